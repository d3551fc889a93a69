import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { loadConfig } from '../src/config.js';
import { startService, type Service } from '../src/service.js';
import { client, freshDatabase, ownerWithStore, signup, startTestService, type Api } from './helpers.js';
import { startReceiver } from './receiver.js';

/** A service whose log lines are captured as parsed JSON. */
async function loggedService(env: Record<string, string> = {}) {
  const db = await freshDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), 'souk-obs-'));
  const lines: any[] = [];
  const raw: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const l of String(chunk).split("\n")) {
        if (!l.trim()) continue;
        raw.push(l);
        lines.push(JSON.parse(l));
      }
      done();
    },
  });
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    SOUK_DATA_DIR: dataDir,
    PORT: '0',
    SOUK_AUTH_RATE_LIMIT: '100000',
    SOUK_AUTH_RATE_LIMIT_IP: '100000',
    ...(db.url ? { DATABASE_URL: db.url } : {}),
    ...env,
  });
  const service: Service = await startService(config, { log: pino({ level: 'info' }, sink) });
  return {
    service,
    api: client(service.url),
    lines,
    raw,
    dataDir,
    async close() {
      await service.close();
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

describe('request logging', () => {
  let s: Awaited<ReturnType<typeof loggedService>>;
  before(async () => {
    s = await loggedService({ SOUK_WEBHOOK_ALLOW_LOOPBACK: '1' });
  });
  after(() => s.close());

  test('one line per request with route pattern, status, duration, ids; X-Request-Id kept or minted', async () => {
    const owner = await ownerWithStore(s.api);
    const res = await s.api('GET', `/v1/stores/${owner.storeId}`, { token: owner.token, headers: { 'x-request-id': 'trace-abc.123' } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-request-id'), 'trace-abc.123');
    const minted = await s.api('GET', '/healthz', { headers: { 'x-request-id': 'bad id with spaces' } });
    assert.match(String(minted.headers.get('x-request-id')), /^[0-9a-f-]{36}$/);
    await new Promise((r) => setTimeout(r, 50));
    const mine = s.lines.filter((l) => l.reqId === 'trace-abc.123');
    assert.equal(mine.length, 1, JSON.stringify(mine));
    const line = mine[0];
    assert.equal(line.method, 'GET');
    assert.equal(line.route, '/v1/stores/:storeId');
    assert.equal(line.status, 200);
    assert.equal(typeof line.ms, 'number');
    assert.equal(line.userId, owner.user.id);
    assert.equal(line.storeId, owner.storeId);
    // Strict JSON readers refuse duplicate keys: the request id appears once in the line.
    const text = s.raw.find((l) => l.includes('trace-abc.123'))!;
    assert.equal(text.match(/"reqId"/g)?.length, 1, text);
  });

  test("a GraphQL request's line names its operation", async () => {
    const owner = await ownerWithStore(s.api);
    await s.api('POST', '/graphql', { token: owner.token, headers: { 'x-request-id': 'gql-op' }, body: { query: 'query StoreName($id: ID!) { store(id: $id) { name } }', variables: { id: owner.storeId } } });
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(s.lines.find((l) => l.reqId === 'gql-op')?.operation, 'StoreName');
  });

  test('development mail is a file named by one JSON line, never text in the log stream', async () => {
    const { email } = await signup(s.api, 'Mail');
    await new Promise((r) => setTimeout(r, 100));
    const files = s.lines.filter((l) => l.msg === 'development mail written to a file').map((l) => l.file as string);
    assert.ok(files.length > 0, 'no mail line');
    assert.ok(files.every((f) => f.startsWith(join(s.dataDir, 'mail'))));
    const mail = files.map((f) => readFileSync(f, 'utf8')).find((m) => m.includes(`To: ${email}`));
    assert.match(String(mail), /verify-email\?token=/);
    assert.ok(!s.raw.some((l) => l.includes('verify-email?token=')), 'the link is in the log stream');
  });

  test('GraphQL failures log their error code; no token, email or query string in any line', async () => {
    const owner = await ownerWithStore(s.api);
    const gql = await s.api('POST', '/graphql', { token: owner.token, headers: { 'x-request-id': 'gql-fail' }, body: { query: 'query($id: ID!) { store(id: $id) { id } }', variables: { id: 'st_nope' } } });
    assert.equal(gql.body.errors[0].extensions.code, 'NOT_FOUND');
    await s.api('GET', '/v1/users/auth/reset-password?token=SECRET-RESET-TOKEN', { headers: { 'x-request-id': 'reset' } });
    await new Promise((r) => setTimeout(r, 50));
    const line = s.lines.find((l) => l.reqId === 'gql-fail');
    assert.deepEqual(line.errorCodes, ['NOT_FOUND']);
    assert.equal(line.route, '/graphql');
    const all = JSON.stringify(s.lines);
    assert.ok(!all.includes(owner.token), 'no bearer token');
    assert.ok(!all.includes(owner.email), 'no email address');
    assert.ok(!all.includes('SECRET-RESET-TOKEN'), 'no reset token');
    assert.equal(s.lines.find((l) => l.reqId === 'reset').route, '/v1/users/auth/reset-password');
  });

  test('a failed delivery logs one warn line without the body', async () => {
    const rx = await startReceiver((_r, res) => res.writeHead(500).end('receiver body secret'));
    try {
      const owner = await ownerWithStore(s.api);
      const hook = await s.api('POST', `/v1/stores/${owner.storeId}/integrations/webhooks`, { token: owner.token, body: { name: 'R', url: rx.url } });
      await s.api('POST', `/v1/stores/${owner.storeId}/orders`, { token: owner.token, body: { customerName: 'Ada' } });
      await rx.waitFor(1);
      let warn: any;
      for (let i = 0; i < 50 && !warn; i++) {
        warn = s.lines.find((l) => l.msg === 'webhook delivery failed' && l.webhookId === hook.body.id);
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.ok(warn, 'a warn line');
      assert.equal(warn.level, 40);
      assert.equal(warn.event, 'orderCreated');
      assert.equal(warn.statusCode, 500);
      assert.ok(!JSON.stringify(s.lines).includes('receiver body secret'));
    } finally {
      await rx.close();
    }
  });
});

describe('CORS', () => {
  test('listed origins get CORS headers on preflight, answers and the SSE stream; others none', async () => {
    const svc = await startTestService({ SOUK_CORS_ORIGINS: 'https://shop.example' });
    const api: Api = client(svc.url);
    try {
      const owner = await ownerWithStore(api);
      const pre = await fetch(`${svc.url}/v1/stores/${owner.storeId}`, {
        method: 'OPTIONS',
        headers: { origin: 'https://shop.example', 'access-control-request-method': 'PATCH', 'access-control-request-headers': 'authorization,content-type' },
      });
      assert.equal(pre.status, 204);
      assert.equal(pre.headers.get('access-control-allow-origin'), 'https://shop.example');
      assert.match(String(pre.headers.get('access-control-allow-methods')), /PATCH/);
      assert.match(String(pre.headers.get('access-control-allow-headers')), /authorization/);
      const get = await api('GET', `/v1/stores/${owner.storeId}`, { token: owner.token, headers: { origin: 'https://shop.example' } });
      assert.equal(get.headers.get('access-control-allow-origin'), 'https://shop.example');
      assert.match(String(get.headers.get('access-control-expose-headers')), /x-request-id/);
      const foreign = await api('GET', `/v1/stores/${owner.storeId}`, { token: owner.token, headers: { origin: 'https://evil.example' } });
      assert.equal(foreign.headers.get('access-control-allow-origin'), null);
      const ctl = new AbortController();
      const stream = await fetch(`${svc.url}/v1/stores/${owner.storeId}/events/stream`, { headers: { authorization: `Bearer ${owner.token}`, origin: 'https://shop.example', accept: 'text/event-stream' }, signal: ctl.signal });
      assert.equal(stream.status, 200);
      assert.equal(stream.headers.get('access-control-allow-origin'), 'https://shop.example');
      ctl.abort();
      const gsse = await fetch(`${svc.url}/graphql/stream`, {
        method: 'POST',
        headers: { authorization: `Bearer ${owner.token}`, origin: 'https://shop.example', accept: 'text/event-stream', 'content-type': 'application/json' },
        body: JSON.stringify({ query: `subscription { storeEvents(storeId: "${owner.storeId}") { id } }` }),
        signal: AbortSignal.timeout(2000),
      }).catch(() => null);
      if (gsse) assert.equal(gsse.headers.get('access-control-allow-origin'), 'https://shop.example');
    } finally {
      await svc.close();
    }
  });

  test('production without SOUK_CORS_ORIGINS sends no CORS headers', async () => {
    const svc = await startTestService({ NODE_ENV: 'production', SOUK_SECRET_KEY: 'a'.repeat(64) });
    try {
      const res = await fetch(`${svc.url}/healthz`, { headers: { origin: 'https://shop.example' } });
      assert.equal(res.headers.get('access-control-allow-origin'), null);
    } finally {
      await svc.close();
    }
  });
});

describe('metrics and introspection', () => {
  test('GET /metrics is off by default and Prometheus text with SOUK_METRICS=1', async () => {
    const off = await startTestService();
    try {
      assert.equal((await fetch(`${off.url}/metrics`)).status, 404);
    } finally {
      await off.close();
    }
    const svc = await startTestService({ SOUK_METRICS: '1' });
    try {
      const api = client(svc.url);
      const owner = await ownerWithStore(api);
      await api('GET', `/v1/stores/${owner.storeId}`, { token: owner.token });
      const res = await fetch(`${svc.url}/metrics`);
      assert.equal(res.status, 200);
      assert.match(String(res.headers.get('content-type')), /text\/plain/);
      const text = await res.text();
      assert.match(text, /souk_http_requests_total\{method="GET",route="\/v1\/stores\/:storeId",status="200"\} 1/);
      assert.match(text, /souk_http_request_duration_seconds_bucket/);
      assert.match(text, /souk_queue_depth \d+/);
      assert.match(text, /souk_realtime_subscribers \d+/);
      assert.match(text, /souk_db_pool_connections\{state="used"\}/);
      assert.match(text, /souk_webhook_deliveries_total/);
      assert.match(text, /souk_cpu_pool_tasks\{state="waiting"\} 0/);
      assert.match(text, /souk_cpu_pool_refusals\{reason="saturated"\} 0/);
    } finally {
      await svc.close();
    }
  });

  test('SOUK_GRAPHQL_INTROSPECTION=0 turns introspection off; on by default, in production too', async () => {
    const q = { query: '{ __schema { queryType { name } } }' };
    const prod = await startTestService({ NODE_ENV: 'production', SOUK_SECRET_KEY: 'b'.repeat(64) });
    try {
      const res = await client(prod.url)('POST', '/graphql', { body: q });
      assert.equal(res.body.data?.__schema?.queryType?.name, 'Query', res.text);
    } finally {
      await prod.close();
    }
    const off = await startTestService({ SOUK_GRAPHQL_INTROSPECTION: '0' });
    try {
      const res = await client(off.url)('POST', '/graphql', { body: q });
      assert.ok(res.body.errors?.length, res.text);
    } finally {
      await off.close();
    }
  });
});
