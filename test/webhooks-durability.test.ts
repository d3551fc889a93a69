import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { assertProblem, client, freshDatabase, ownerWithStore, startTestService, type Api, type TestService } from './helpers.js';
import { ConfigError, loadConfig } from '../src/config.js';
import { startReceiver, sleep, type Receiver } from './receiver.js';
import { createContext } from '../src/core/context.js';
import { transaction } from '../src/core/tx.js';
import { createProduct } from '../src/domains/products/product.service.js';
import { DeliveryPump, deliveryPumpOf, processDelivery } from '../src/webhooks/dispatcher.js';
import { createRequire } from 'node:module';
import pg from 'pg';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let rx: Receiver;
before(async () => {
  rx = await startReceiver();
});
after(() => rx.close());

const hooks = (storeId: string) => `/v1/stores/${storeId}/integrations/webhooks`;

async function setup(api: Api, path: string) {
  const owner = await ownerWithStore(api);
  const w = await api('POST', hooks(owner.storeId), { token: owner.token, body: { name: 'R', url: rx.url.replace('/hook', path) } });
  assert.equal(w.status, 201, w.text);
  return { ...owner, webhook: w.body };
}

describe('transactions', () => {
  let svc: TestService;
  let api: Api;
  before(async () => {
    svc = await startTestService({ SOUK_WEBHOOK_ALLOW_LOOPBACK: '1' });
    api = client(svc.url);
  });
  after(() => svc.close());

  test('a rolled-back write records no event and sends nothing', async () => {
    const path = `/rollback/${randomUUID()}`;
    const s = await setup(api, path);
    const ctx = await createContext(svc.service.deps, `Bearer ${s.token}`, '127.0.0.1');
    await assert.rejects(
      transaction(ctx, async (tx) => {
        await createProduct(tx, s.storeId, { name: 'Doomed', price: 1 });
        throw new Error('abort after the event was recorded');
      }),
      /abort after/,
    );
    await api('POST', `/v1/stores/${s.storeId}/products`, { token: s.token, body: { name: 'Kept', price: 1 } });
    const [d] = await rx.waitFor(1, 10_000, (r) => r.path === path);
    await sleep(1000);
    assert.equal(rx.received.filter((r) => r.path === path).length, 1);
    assert.equal(d.json.data.product.name, 'Kept');
    const events = await svc.service.deps.orm.em.fork().getConnection().execute('select seq, event from store_events where store_id = ? order by seq', [s.storeId]);
    assert.deepEqual(events.map((e) => Number(e.seq)), [1]);
  });

  test('a claim loads what its deliveries need, and a completion records their attempts, each in the same statement', async () => {
    const path = `/batched/${randomUUID()}`;
    const s = await setup(api, path);
    await deliveryPumpOf(svc.service.deps)!.stop();
    for (let i = 0; i < 20; i++) assert.equal((await api('POST', `/v1/stores/${s.storeId}/products`, { token: s.token, body: { name: `B${i}`, price: 1 } })).status, 201);
    // Every statement of this process, the queue's too (pg-boss has its own copy of pg).
    const seen: string[] = [];
    const drivers = [pg, createRequire(new URL('../node_modules/pg-boss/package.json', import.meta.url))('pg') as typeof pg];
    const originals = drivers.map((d) => d.Client.prototype.query);
    drivers.forEach((d, i) => {
      (d.Client.prototype as unknown as { query: (...a: unknown[]) => unknown }).query = function (this: unknown, ...args: unknown[]) {
        const q = args[0] as string | { text?: string };
        seen.push(typeof q === 'string' ? q : String(q?.text ?? q));
        return (originals[i] as (...a: unknown[]) => unknown).apply(this, args);
      };
    });
    const pump = new DeliveryPump(svc.service.deps, svc.service.deps.queue, 8);
    try {
      pump.start();
      const got = await rx.waitFor(20, 15_000, (r) => r.path === path);
      assert.equal(new Set(got.map((d) => d.headers['x-svc-delivery'])).size, 20);
      await pump.stop();
    } finally {
      drivers.forEach((d, i) => (d.Client.prototype.query = originals[i]));
      await pump.stop();
    }
    // Other queues of the process (AI generations, mail) poll meanwhile: their statements name their queue.
    const deliveries = (q: string) => !/\bname = '(?!webhook-delivery')[^']+'/i.test(q);
    const claims = seen.filter((q) => /state = 'active'/i.test(q) && /heartbeat_on =/i.test(q) && deliveries(q));
    const completions = seen.filter((q) => /state = 'completed'/i.test(q) && deliveries(q));
    assert.ok(claims.length >= 1 && completions.length >= 1, seen.join('\n---\n'));
    for (const q of claims) assert.match(q, /from webhooks[\s\S]*webhook_deliveries[\s\S]*store_events/i, 'a claim reads the webhooks, recorded deliveries and events');
    for (const q of completions) assert.match(q, /insert into webhook_deliveries/i, 'a completion records its attempts');
    const apart = seen.filter((q) => /\b(from webhooks|insert into webhook_deliveries)\b/i.test(q) && !/pgboss\./i.test(q));
    assert.deepEqual(apart, [], 'no load or recording of deliveries in a statement of its own');
    const history = await api('GET', `${hooks(s.storeId)}/${s.webhook.id}/history`, { token: s.token });
    assert.equal(history.body.data.length, 20);
  });

  test('a recorded attempt is never repeated', async () => {
    const path = `/once/${randomUUID()}`;
    const s = await setup(api, path);
    const job = { deliveryId: randomUUID(), webhookId: s.webhook.id, storeId: s.storeId, event: 'orderCreated', timestamp: new Date().toISOString(), data: { store_id: s.storeId } };
    await processDelivery(svc.service.deps, job);
    await processDelivery(svc.service.deps, job);
    await sleep(300);
    assert.equal(rx.received.filter((r) => r.path === path).length, 1);
    const history = await api('GET', `${hooks(s.storeId)}/${s.webhook.id}/history`, { token: s.token });
    assert.deepEqual(history.body.data.map((h: { id: string }) => h.id), [job.deliveryId]);
  });
});

describe('restart', () => {
  test('jobs committed before the process stopped are delivered after it starts again', async () => {
    const db = await freshDatabase();
    const dataDir = mkdtempSync(join(tmpdir(), 'souk-restart-'));
    const reuse = { databaseUrl: db.url, dataDir };
    const path = `/restart/${randomUUID()}`;
    try {
      const first = await startTestService({ SOUK_WEBHOOK_ALLOW_LOOPBACK: '1' }, reuse);
      const api1 = client(first.url);
      const s = await setup(api1, path);
      // Stop this process's worker so the jobs stay queued, as if it died right after commit.
      await deliveryPumpOf(first.service.deps)!.stop();
      for (let i = 0; i < 3; i++) {
        assert.equal((await api1('POST', `/v1/stores/${s.storeId}/products`, { token: s.token, body: { name: `Queued ${i}`, price: 1 } })).status, 201);
      }
      await sleep(800);
      assert.equal(rx.received.filter((r) => r.path === path).length, 0);
      await first.close();

      const second = await startTestService({ SOUK_WEBHOOK_ALLOW_LOOPBACK: '1' }, reuse);
      try {
        const got = await rx.waitFor(3, 15_000, (r) => r.path === path);
        assert.deepEqual(got.map((d) => d.json.data.product.name).sort(), ['Queued 0', 'Queued 1', 'Queued 2']);
        assert.equal(new Set(got.map((d) => d.headers['x-svc-delivery'])).size, 3);
      } finally {
        await second.close();
      }
    } finally {
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('address guard (default settings)', () => {
  let svc: TestService;
  let api: Api;
  before(async () => {
    svc = await startTestService();
    api = client(svc.url);
  });
  after(() => svc.close());

  test('deliveries to loopback and private addresses are refused and recorded as failed', async () => {
    const s = await ownerWithStore(api);
    for (const url of [rx.url, `https://localhost:${rx.port}/hook`, 'https://10.1.2.3/hook', 'https://[::1]/hook', 'https://169.254.169.254/latest']) {
      const res = await api('POST', `${hooks(s.storeId)}/test`, { token: s.token, body: { url } });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.status, 'failed', url);
      assert.equal(res.body.statusCode, null);
      // The refusal never names the address the host resolved to.
      assert.equal(res.body.error, 'refused: the address is not public (private, loopback, link-local or reserved)', url);
    }
    // Loopback, by literal or by name, is saved and judged at send time (a private literal is refused when saved: below).
    for (const url of [rx.url, `https://localhost:${rx.port}/hook`]) {
      const w = await api('POST', hooks(s.storeId), { token: s.token, body: { name: 'Local', url } });
      assert.equal(w.status, 201, w.text);
      const saved = await api('POST', `${hooks(s.storeId)}/${w.body.id}/test`, { token: s.token });
      assert.equal(saved.body.status, 'failed');
      const history = await api('GET', `${hooks(s.storeId)}/${w.body.id}/history`, { token: s.token });
      assert.equal(history.body.data[0].status, 'failed');
      assert.match(history.body.data[0].error, /^refused:/);
      assert.equal(rx.received.filter((r) => r.headers['x-svc-webhook-id'] === w.body.id).length, 0);
    }
  });

  test('private IP literals are refused when a webhook is saved, naming the setting; nothing is sent', async () => {
    const s = await ownerWithStore(api);
    const ok = await api('POST', hooks(s.storeId), { token: s.token, body: { name: 'Public', url: 'https://example.com/hook' } });
    assert.equal(ok.status, 201, ok.text);
    const before = rx.received.length;
    const literals: Array<[string, RegExp]> = [
      ['https://10.0.0.1/hook', /SOUK_WEBHOOK_ALLOW_CIDRS/],
      ['https://192.168.1.1/hook', /SOUK_WEBHOOK_ALLOW_CIDRS/],
      ['https://[::ffff:10.0.0.1]/hook', /SOUK_WEBHOOK_ALLOW_CIDRS/],
      ['https://[fd00::1]/hook', /SOUK_WEBHOOK_ALLOW_CIDRS/],
      ['https://169.254.169.254/latest', /SOUK_WEBHOOK_ALLOW_CIDRS/],
      ['https://0xa000001/hook', /SOUK_WEBHOOK_ALLOW_CIDRS/],
    ];
    for (const [url, setting] of literals) {
      for (const res of [
        await api('POST', hooks(s.storeId), { token: s.token, body: { name: 'Private', url } }),
        await api('PATCH', `${hooks(s.storeId)}/${ok.body.id}`, { token: s.token, body: { url } }),
      ]) {
        assertProblem(res, 400, 'VALIDATION_FAILED');
        assert.equal(res.body.errors[0].path, 'url', url);
        assert.match(res.body.errors[0].message, setting, url);
      }
    }
    const list = await api('GET', hooks(s.storeId), { token: s.token });
    assert.deepEqual(list.body.data.map((w: any) => w.url), ['https://example.com/hook']);
    assert.equal(rx.received.length, before, 'no request left the service');
  });

  test('SOUK_WEBHOOK_ALLOW_LOOPBACK=1 opens loopback only; SOUK_WEBHOOK_ALLOW_CIDRS opens the networks it lists', async () => {
    const dev = await startTestService({ SOUK_WEBHOOK_ALLOW_LOOPBACK: '1', SOUK_WEBHOOK_ALLOW_CIDRS: '10.20.0.0/16, fd00:20::/32' });
    try {
      const api2 = client(dev.url);
      const s = await ownerWithStore(api2);
      const create = (url: string) => api2('POST', hooks(s.storeId), { token: s.token, body: { name: 'H', url } });
      const local = await create(rx.url.replace('/hook', '/loopback-switch'));
      assert.equal(local.status, 201, local.text);
      const sent = await api2('POST', `${hooks(s.storeId)}/${local.body.id}/test`, { token: s.token });
      assert.equal(sent.body.status, 'success', sent.text);
      const byName = await api2('POST', `${hooks(s.storeId)}/test`, { token: s.token, body: { url: `https://localhost:${rx.port}/loopback-switch` } });
      assert.equal(byName.body.status, 'success', byName.text);
      assert.equal(rx.received.filter((r) => r.path === '/loopback-switch').length, 2);
      for (const url of ['https://10.0.0.1/hook', 'https://192.168.1.1/hook', 'https://10.21.0.1/hook', 'https://[fd00:21::1]/hook']) {
        const res = await create(url);
        assertProblem(res, 400, 'VALIDATION_FAILED');
        assert.match(res.body.errors[0].message, /SOUK_WEBHOOK_ALLOW_CIDRS/);
        // An ad-hoc test is judged at send time: refused before any connection.
        const tried = await api2('POST', `${hooks(s.storeId)}/test`, { token: s.token, body: { url } });
        assert.deepEqual([tried.body.status, tried.body.statusCode, tried.body.error], ['failed', null, 'refused: the address is not public (private, loopback, link-local or reserved)'], url);
      }
      // Saved only: the listed networks are never connected to here.
      for (const url of ['https://10.20.3.4/hook', 'https://[fd00:20::5]/hook']) assert.equal((await create(url)).status, 201, url);
    } finally {
      await dev.close();
    }
    assert.throws(() => loadConfig({ SOUK_SECRET_KEY: 'a'.repeat(64), SOUK_WEBHOOK_ALLOW_CIDRS: '10.0.0.0/33' }), ConfigError);
    assert.throws(() => loadConfig({ SOUK_SECRET_KEY: 'a'.repeat(64), SOUK_WEBHOOK_ALLOW_CIDRS: 'intranet' }), ConfigError);
  });

  test('http:// urls are refused unless SOUK_WEBHOOK_ALLOW_HTTP=1', async () => {
    const s = await ownerWithStore(api);
    const res = await api('POST', hooks(s.storeId), { token: s.token, body: { name: 'Plain', url: 'http://example.com/hook' } });
    assert.equal(res.status, 400);
    const relaxed = await startTestService({ SOUK_WEBHOOK_ALLOW_HTTP: '1' });
    try {
      const api2 = client(relaxed.url);
      const s2 = await ownerWithStore(api2);
      const ok = await api2('POST', hooks(s2.storeId), { token: s2.token, body: { name: 'Plain', url: 'http://example.com/hook' } });
      assert.equal(ok.status, 201, ok.text);
    } finally {
      await relaxed.close();
    }
  });
});
