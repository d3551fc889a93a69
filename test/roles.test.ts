// SOUK_ROLE: two `web` processes and one `worker` on one PostgreSQL. The worker is killed with
// SIGKILL while deliveries are in flight and another takes its place: every committed event still
// reaches the receiver at least once, and realtime (across the web processes), webhooks, purchase-
// order mail and AI generations keep working. Webs run no background work; the worker serves only
// its probes.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { client, freshDatabase, ownerWithStore, type Api } from './helpers.js';
import { ConfigError, loadConfig } from '../src/config.js';
import { startReceiver, sleep, type Receiver } from './receiver.js';
import { startSmtpCapture } from './smtp.js';
import { gqlSubscribe, STORE_EVENTS } from './sse-client.js';
import { spawnReplica, type Replica } from './replicas.js';

const skip = process.env.DATABASE_URL ? false : 'needs a real PostgreSQL (DATABASE_URL): the roles run as processes on one database server';

const secretKey = randomBytes(32).toString('hex');
let db: Awaited<ReturnType<typeof freshDatabase>>;
let dataDir: string;
let rx: Receiver;
let smtp: Awaited<ReturnType<typeof startSmtpCapture>>;
const procs: Replica[] = [];

/** A process of the role, as the image runs it (node scripts/start.mjs, the start bundle). */
const startRole = (name: string, role: 'web' | 'worker') =>
  spawnReplica(
    name,
    {
      DATABASE_URL: db.url!,
      SOUK_ROLE: role,
      SOUK_SECRET_KEY: secretKey,
      SOUK_WEBHOOK_ALLOW_LOOPBACK: '1',
      SOUK_SMTP_URL: smtp.url,
      SOUK_DATA_DIR: join(dataDir, name),
      SOUK_METRICS: '1',
    },
    { bundle: true, timeoutMs: 120_000, started: (p) => procs.push(p) },
  );

/** Polls `pick` until it returns a value; fails with `what` after `ms`. */
async function until<T>(what: string, pick: () => Promise<T | undefined>, ms: number): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await pick();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(250);
  }
}

before(async () => {
  if (skip) return;
  db = await freshDatabase();
  dataDir = mkdtempSync(join(tmpdir(), 'souk-roles-'));
  rx = await startReceiver();
  smtp = await startSmtpCapture();
});
after(async () => {
  for (const p of procs) if (p.alive) p.proc.kill('SIGKILL');
  await rx?.close();
  await smtp?.close();
  await db?.drop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

test('SOUK_ROLE: all by default; web and worker need PostgreSQL; anything else is refused at start', () => {
  const base = { SOUK_DATA_DIR: mkdtempSync(join(tmpdir(), 'souk-role-config-')) };
  try {
    assert.equal(loadConfig(base).role, 'all');
    assert.equal(loadConfig({ ...base, SOUK_ROLE: 'worker', DATABASE_URL: 'postgres://127.0.0.1/x' }).role, 'worker');
    assert.throws(() => loadConfig({ ...base, SOUK_ROLE: 'web' }), (err) => err instanceof ConfigError && /SOUK_ROLE=web needs DATABASE_URL/.test(err.message));
    assert.throws(() => loadConfig({ ...base, SOUK_ROLE: 'both', DATABASE_URL: 'postgres://127.0.0.1/x' }), /SOUK_ROLE must be all, web or worker/);
  } finally {
    rmSync(base.SOUK_DATA_DIR, { recursive: true, force: true });
  }
});

test('two web processes and a worker: a worker killed mid-delivery is replaced and nothing committed is lost', { skip }, async () => {
  const [webA, webB, firstWorker] = await Promise.all([startRole('webA', 'web'), startRole('webB', 'web'), startRole('worker1', 'worker')]);
  const apiA: Api = client(webA.url);
  const apiB: Api = client(webB.url);

  // The worker serves its probes and metrics, no API.
  assert.equal((await fetch(`${firstWorker.url}/healthz`)).status, 200);
  assert.equal((await fetch(`${firstWorker.url}/readyz`)).status, 200);
  assert.equal((await fetch(`${firstWorker.url}/metrics`)).status, 200);
  for (const path of ['/graphql', '/v1/openapi.json', '/v1/configs']) assert.equal((await fetch(`${firstWorker.url}${path}`)).status, 404, path);
  assert.equal((await fetch(`${webA.url}/v1/configs`)).status, 200);

  const s = await ownerWithStore(apiA);
  const path = `/roles/${s.storeId}`;
  const mine = (r: { path: string }) => r.path === path;
  // Answers are held, so deliveries are in flight (claimed, sent, unrecorded) when the worker dies.
  rx.setResponder((req, res) => setTimeout(() => res.writeHead(200).end('ok'), mine(req) ? 2_000 : 0));
  const hook = await apiA('POST', `/v1/stores/${s.storeId}/integrations/webhooks`, { token: s.token, body: { name: 'rx', url: rx.url.replace('/hook', path) } });
  assert.equal(hook.status, 201, hook.text);
  const sub = gqlSubscribe(webB.url, s.token, STORE_EVENTS, { storeId: s.storeId, events: ['orderCreated', 'aiGenerationUpdated'] });
  try {
    await sub.connected;
    // Orders through both web processes; only the worker delivers.
    const order = async (i: number) => {
      const res = await (i % 2 ? apiB : apiA)('POST', `/v1/stores/${s.storeId}/orders`, { token: s.token, body: { customerName: `C${i}` } });
      assert.equal(res.status, 201, res.text);
      return res.body.id as string;
    };
    // Four at a time: the database server is shared, and each process keeps its own pools.
    const orders: string[] = [];
    for (let i = 0; i < 16; i += 4) orders.push(...(await Promise.all([i, i + 1, i + 2, i + 3].map(order))));
    await rx.waitFor(4, 30_000, mine);
    firstWorker.proc.kill('SIGKILL');
    await new Promise((r) => (firstWorker.alive ? firstWorker.proc.once('exit', r) : r(null)));
    const delivered = () => new Set(rx.received.filter(mine).map((r) => (r.json as { data: { order: { id: string } } }).data.order.id));
    // Orders committed while no worker runs wait for one: the web processes deliver nothing.
    const waiting = await Promise.all(Array.from({ length: 4 }, (_, i) => order(16 + i)));
    await sleep(3_000);
    assert.deepEqual(waiting.filter((id) => delivered().has(id)), [], 'a web process delivered');
    orders.push(...waiting);
    await startRole('worker2', 'worker');

    // Every committed event at least once: what the dead worker had claimed comes back when its claims expire.
    await until('every order delivered', async () => (orders.every((id) => delivered().has(id)) ? true : undefined), 90_000);
    // Answers were held when the worker died, so what it had in flight comes again from its
    // successor once the claims expire. Waited for: every order may have arrived before the kill,
    // and then the check above passes before any claim expired.
    const arrivals = () => rx.received.filter(mine).map((r) => (r.json as { data: { order: { id: string } } }).data.order.id);
    await until('a delivery in flight at the kill made again', async () => (arrivals().length > new Set(arrivals()).size ? true : undefined), 90_000);

    // Realtime across the web processes: every order, whichever web wrote it, reached the subscriber on B.
    await until('every order on the subscription', async () => (orders.every((id) => sub.events().some((e) => e.event === 'orderCreated' && e.data.order.id === id)) ? true : undefined), 20_000);

    // Purchase-order mail: queued by a web process, rendered and mailed by the new worker.
    const supplier = `supplier-${s.storeId}@example.com`;
    const po = await apiB('POST', `/v1/finance/purchase-orders?storeId=${s.storeId}`, { token: s.token, body: { supplier: { name: 'Acme', email: supplier }, items: [{ name: 'Tea', qtyOrdered: 2, unitCost: 3 }] } });
    assert.equal(po.status, 201, po.text);
    assert.equal((await apiB('POST', `/v1/finance/purchase-orders/${po.body.id}/send?storeId=${s.storeId}`, { token: s.token, body: {} })).status, 202);
    const mail = await until('the purchase-order mail', async () => smtp.mails.find((m) => m.to.includes(supplier)), 30_000);
    assert.match(mail.raw, /application\/pdf/);

    // AI generation: queued by a web process, drawn by the worker, its progress seen on the other web.
    const studio = await apiA('POST', `/v1/ai/brand-studios?storeId=${s.storeId}`, { token: s.token, body: { name: 'Roles', generate: { kinds: ['logo'], n: 1, seed: 3 } } });
    assert.equal(studio.status, 201, studio.text);
    const generation = await until(
      'the generation to complete',
      async () => {
        const list = await apiA('GET', `/v1/ai/brand-studios/${studio.body.id}/generations?storeId=${s.storeId}`, { token: s.token });
        return list.body.data.find((g: { status: string }) => g.status === 'completed');
      },
      30_000,
    );
    assert.equal(generation.assets.length, 1);
    await until('aiGenerationUpdated on the subscription', async () => (sub.events().some((e) => e.event === 'aiGenerationUpdated' && e.data.generation.status === 'completed') ? true : undefined), 10_000);
  } finally {
    sub.close();
  }
});
