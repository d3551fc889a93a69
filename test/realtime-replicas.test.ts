import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { client, freshDatabase, ownerWithStore, type Api } from './helpers.js';
import { startReceiver, sleep, type Receiver } from './receiver.js';
import { gqlSubscribe, openSse, STORE_EVENTS } from './sse-client.js';
import { spawnReplica, type Replica } from './replicas.js';
import { initOrm, serverTarget, type DatabaseTarget } from '../src/db/orm.js';
import { ENTITIES } from '../src/domains/entities.js';
import { MIGRATIONS } from '../src/db/migrations/index.js';

const skip = process.env.DATABASE_URL ? false : 'needs a real PostgreSQL (DATABASE_URL): replicas share one database server';

const secretKey = randomBytes(32).toString('hex');
let db: Awaited<ReturnType<typeof freshDatabase>>;
let dataDir: string;
let rx: Receiver;
const replicas: Replica[] = [];

/** A server process on the shared database, from the sources under tsx. */
async function startReplica(name: string): Promise<Replica> {
  const env = { DATABASE_URL: db.url!, SOUK_SECRET_KEY: secretKey, SOUK_WEBHOOK_ALLOW_LOOPBACK: '1', SOUK_DATA_DIR: join(dataDir, name) };
  const replica = await spawnReplica(name, env, { timeoutMs: 60_000 });
  replicas.push(replica);
  return replica;
}

async function stopReplica(r: Replica, signal: NodeJS.Signals): Promise<void> {
  if (!r.alive) return;
  let timer: NodeJS.Timeout | undefined;
  const exited = new Promise<void>((resolve) => r.proc.once('exit', () => resolve()));
  r.proc.kill(signal);
  await Promise.race([exited, new Promise((resolve) => (timer = setTimeout(resolve, 25_000)))]);
  clearTimeout(timer);
  if (r.alive) r.proc.kill('SIGKILL');
}

async function createOrder(api: Api, storeId: string, token: string) {
  const res = await api('POST', `/v1/stores/${storeId}/orders`, { token, body: { customerName: 'Ada', items: [{ name: 'Tea', quantity: 1, price: 2 }] } });
  assert.equal(res.status, 201, res.text);
  // paymentToken is in the create response only, never in an event payload.
  const { paymentToken: _token, ...order } = res.body;
  return order;
}

test('replicas starting together on a new database migrate one at a time', { skip }, async () => {
  const fresh = await freshDatabase();
  const target: DatabaseTarget = serverTarget(fresh.url!);
  try {
    const orms = await Promise.all([initOrm(target, ENTITIES), initOrm(target, ENTITIES), initOrm(target, ENTITIES)]);
    await Promise.all(orms.map((o) => o.close(true)));
    const c = new pg.Client({ connectionString: fresh.url! });
    await c.connect();
    const { rows } = await c.query('select count(*)::int as n from mikro_orm_migrations');
    await c.end();
    assert.equal(rows[0].n, MIGRATIONS.length);
  } finally {
    await fresh.drop();
  }
});

describe('several replicas on one PostgreSQL', { skip }, () => {
  let A: Replica;
  let B: Replica;
  let apiA: Api;
  let apiB: Api;

  before(async () => {
    db = await freshDatabase();
    dataDir = mkdtempSync(join(tmpdir(), 'souk-replicas-'));
    // Together, as a deployment starts them: the migration lock lets one migrate at a time.
    [A, B] = await Promise.all([startReplica('A'), startReplica('B')]);
    apiA = client(A.url);
    apiB = client(B.url);
    rx = await startReceiver();
  });
  after(async () => {
    await Promise.all(replicas.map((r) => stopReplica(r, 'SIGTERM')));
    await rx?.close();
    await db?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  test('a subscriber on B receives an order created through A, and the other way round', async () => {
    const s = await ownerWithStore(apiA);
    const sub = gqlSubscribe(B.url, s.token, STORE_EVENTS, { storeId: s.storeId });
    const sse = await openSse(`${A.url}/v1/stores/${s.storeId}/events/stream`, { authorization: `Bearer ${s.token}` });
    try {
      await sub.connected;
      const viaA = await createOrder(apiA, s.storeId, s.token);
      const viaB = await createOrder(apiB, s.storeId, s.token);
      await sub.waitFor(2);
      await sse.waitFor(2);
      await sleep(300);
      assert.deepEqual(sub.events().map((e) => [e.id, e.event, e.data.order.id]), [['1', 'orderCreated', viaA.id], ['2', 'orderCreated', viaB.id]]);
      assert.deepEqual(sub.events()[0].data.order, viaA);
      assert.deepEqual(sse.events().map((e) => [e.id, e.data.order.id]), [['1', viaA.id], ['2', viaB.id]]);
    } finally {
      sub.close();
      await sse.close();
    }
  });

  test('each event reaches a webhook exactly once across both replicas', async () => {
    const s = await ownerWithStore(apiA);
    const path = `/hook/${s.storeId}`;
    const hook = await apiA('POST', `/v1/stores/${s.storeId}/integrations/webhooks`, { token: s.token, body: { name: 'rx', url: rx.url.replace('/hook', path) } });
    assert.equal(hook.status, 201, hook.text);
    const n = 40;
    const created = await Promise.all(Array.from({ length: n }, (_, i) => createOrder(i % 2 ? apiB : apiA, s.storeId, s.token)));
    const mine = (r: { path: string }) => r.path === path;
    await rx.waitFor(n, 30_000, mine);
    // Long enough for a second claim of any job to have been sent.
    await sleep(2_000);
    const got = rx.received.filter(mine);
    assert.equal(got.length, n);
    assert.equal(new Set(got.map((r) => r.headers['x-svc-delivery'])).size, n);
    assert.deepEqual(new Set(got.map((r) => r.json.data.order.id)), new Set(created.map((o) => o.id)));
  });

  test('SIGKILL of replica A mid-load: B resumes its stream with Last-Event-ID and no committed event is lost', async () => {
    const s = await ownerWithStore(apiB);
    const path = `/hook/${s.storeId}`;
    const hook = await apiB('POST', `/v1/stores/${s.storeId}/integrations/webhooks`, { token: s.token, body: { name: 'rx', url: rx.url.replace('/hook', path) } });
    assert.equal(hook.status, 201, hook.text);
    const streamUrl = `${B.url}/v1/stores/${s.storeId}/events/stream`;
    const auth = { authorization: `Bearer ${s.token}` };
    const seen: number[] = [];
    const orderIds = new Set<string>();
    const take = (messages: Array<{ id?: string; data: string }>) => {
      for (const m of messages) {
        seen.push(Number(m.id));
        orderIds.add(JSON.parse(m.data).data.order.id);
      }
    };

    const acknowledged: string[] = [];
    // Writers through A until it dies, and one through B that outlives it.
    const writer = (api: Api, max: number) =>
      (async () => {
        for (let i = 0; i < max; i++) {
          try {
            acknowledged.push((await createOrder(api, s.storeId, s.token)).id);
          } catch {
            return;
          }
        }
      })();
    const first = await openSse(`${streamUrl}?after=0`, auth);
    const writers = [writer(apiA, 200), writer(apiA, 200), writer(apiA, 200), writer(apiB, 60)];
    await first.waitFor(20, 30_000);
    await first.close();
    take(first.messages);
    // While this client is away, A dies with work in flight.
    await sleep(300);
    A.proc.kill('SIGKILL');
    await Promise.all(writers);
    if (A.alive) await new Promise((r) => A.proc.once('exit', r));

    const pool = new pg.Client({ connectionString: db.url! });
    await pool.connect();
    try {
      const committed = Number((await pool.query('select seq from store_event_seqs where store_id = $1', [s.storeId])).rows[0].seq);
      assert.ok(committed > seen.length, `events were committed after the first stream closed (${committed})`);
      const resumed = await openSse(streamUrl, { ...auth, 'last-event-id': String(seen[seen.length - 1]) });
      await resumed.waitFor(committed - seen.length, 30_000);
      await sleep(300);
      await resumed.close();
      take(resumed.messages);
      assert.deepEqual(seen, Array.from({ length: committed }, (_, i) => i + 1), 'every committed event once, in order');
      for (const id of acknowledged) assert.ok(orderIds.has(id), `acknowledged order ${id} was streamed`);

      // Webhook side: nothing lost, nothing sent twice. A job A had claimed when it died stays
      // active until the queue's expiry (60 s) hands it to B; it is counted as held, not lost.
      const mine = (r: { path: string }) => r.path === path;
      let jobs: Array<{ state: string; order: string }> = [];
      for (let i = 0; i < 150; i++) {
        jobs = (
          await pool.query(
            `select j.state, e.data->'order'->>'id' as order
               from pgboss.job j join store_events e on e.store_id = j.data->>'storeId' and e.seq = (j.data->>'seq')::bigint
              where j.name = 'webhook-delivery' and j.data->>'storeId' = $1`,
            [s.storeId],
          )
        ).rows;
        const delivered = new Set(rx.received.filter(mine).map((r) => r.json.data.order.id));
        if (jobs.every((j) => j.state === 'active' || delivered.has(j.order))) break;
        await sleep(200);
      }
      const deliveries = rx.received.filter(mine);
      const delivered = new Set(deliveries.map((r) => r.json.data.order.id));
      assert.equal(jobs.length, committed, 'one delivery job per committed event');
      for (const j of jobs) assert.ok(delivered.has(j.order) || j.state === 'active', `order ${j.order}: delivered, or held by the dead replica (${j.state})`);
      assert.equal(new Set(deliveries.map((r) => r.headers['x-svc-delivery'])).size, deliveries.length, 'no delivery sent twice');
      assert.equal(delivered.size, deliveries.length, 'no event delivered under two delivery ids');
      // A worker claims at most batchSize (8) x localConcurrency (2) jobs at once.
      assert.ok(delivered.size >= committed - 16, `at most what A had claimed is pending (${delivered.size}/${committed})`);
    } finally {
      await pool.end();
    }
  });
});
