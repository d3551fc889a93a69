import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { loadConfig, pgConnection } from '../src/config.js';
import type { ReadRoute, ReplicaState } from '../src/db/replicas.js';
import { client, freshDatabase, memberWithRole, ownerWithStore, startTestService, until, type Api, type TestService } from './helpers.js';
import { makeReplica, type PgReplica } from './pg-replica.js';

/**
 * Read replicas against a real streaming replica of the test's PostgreSQL server (pg_basebackup,
 * pg_ctl on a spare loopback port; see pg-replica.ts), one for the whole file, removed at the end.
 */
let replica: PgReplica | null = null;
let dataDir = '';
let db: Awaited<ReturnType<typeof freshDatabase>> | null = null;
let svc: TestService | null = null;
let setupSkip: string | null = process.env.DATABASE_URL ? null : 'needs a real PostgreSQL (DATABASE_URL): a streaming replica follows a server';

const database = () => pgConnection(db!.url!).database;

/** A query on the replica itself. */
const onReplica = <T extends pg.QueryResultRow>(sql: string, params: unknown[] = []) => replica!.query<T>(database(), sql, params);

/** Resolves once the service's one replica is in `state` (now, or at a later check). */
function replicaState(reads: ReadRoute, state: ReplicaState): Promise<void> {
  return new Promise((resolve) => {
    if (reads.status()[0]?.state === state) return resolve();
    const stop = reads.watch((s) => {
      if (s[0]?.state !== state) return;
      stop();
      resolve();
    });
  });
}

/** Until the replica has replayed everything the primary has written so far. */
async function caughtUp(): Promise<void> {
  const primary = new pg.Client({ ...pgConnection(db!.url!) });
  await primary.connect();
  const [{ lsn }] = (await primary.query<{ lsn: string }>('select pg_current_wal_lsn()::text as lsn')).rows;
  await primary.end();
  await until('the replica to replay the primary', async () => (await onReplica<{ ok: boolean }>('select pg_last_wal_replay_lsn() >= $1::pg_lsn as ok', [lsn]))[0].ok);
}

async function startService(maxLagMs: number): Promise<TestService> {
  return startTestService(
    { SOUK_DATABASE_REPLICA_URLS: replica!.url(database()), SOUK_REPLICA_MAX_LAG_MS: String(maxLagMs), SOUK_METRICS: '1' },
    { databaseUrl: db!.url, dataDir: (dataDir ||= mkdtempSync(join(tmpdir(), 'souk-test-'))) },
  );
}

describe('read replicas (a real streaming replica)', () => {
  let api: Api;
  let owner: Awaited<ReturnType<typeof ownerWithStore>>;
  let reader: { token: string };
  let productId = '';
  const listNames = async (token: string) => {
    const res = await api('GET', `/v1/stores/${owner.storeId}/products`, { token });
    assert.equal(res.status, 200, res.text);
    return (res.body.data as Array<{ name: string }>).map((p) => p.name);
  };
  const shopNames = async () => {
    const res = await api('GET', `/v1/storefront/${owner.storeId}/products`);
    assert.equal(res.status, 200, res.text);
    return (res.body.data as Array<{ name: string }>).map((p) => p.name);
  };
  const shopProduct = async () => {
    const res = await api('GET', `/v1/storefront/${owner.storeId}/products/${productId}`);
    assert.equal(res.status, 200, res.text);
    return res.body.name as string;
  };
  /** One product's name through each door: /graphql, a /v1 REST row, the Feeef face. */
  const gqlProduct = async (token: string) => {
    const res = await api('POST', '/graphql', { token, body: { query: 'query($s: ID!, $id: ID!) { product(storeId: $s, id: $id) { name } }', variables: { s: owner.storeId, id: productId } } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.errors, undefined, res.text);
    return res.body.data.product.name as string;
  };
  const restProduct = async (token: string) => {
    const res = await api('GET', `/v1/stores/${owner.storeId}/products/${productId}`, { token });
    assert.equal(res.status, 200, res.text);
    return res.body.name as string;
  };
  const feeefProduct = async (token: string) => {
    const res = await api('GET', `/feeef/v1/products/${productId}`, { token });
    assert.equal(res.status, 200, res.text);
    return res.body.name as string;
  };
  const orderCount = async (token: string) => {
    const res = await api('GET', `/v1/stores/${owner.storeId}/orders`, { token });
    assert.equal(res.status, 200, res.text);
    return (res.body.data as unknown[]).length;
  };

  before(async () => {
    if (setupSkip) return;
    db = await freshDatabase();
    const made = await makeReplica(db.url!);
    if ('skip' in made) {
      setupSkip = made.skip;
      return;
    }
    replica = made;
    // A lag bound no test step comes near: the replica stays in use while its replay is paused.
    svc = await startService(600_000);
    api = client(svc.url);
  });

  after(async () => {
    await svc?.close();
    await replica?.remove();
    await db?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  test('catalog and list reads come from the replica; a caller that wrote reads its write from the primary', async (t) => {
    if (setupSkip) return t.skip(setupSkip);
    owner = await ownerWithStore(api);
    // A member that only reads: no write of its own keeps it on the primary.
    reader = await memberWithRole(api, owner.token, owner.storeId, 'admin');
    const created = await api('POST', `/v1/stores/${owner.storeId}/products`, { token: owner.token, body: { name: 'Mint Tea', price: 10 } });
    assert.equal(created.status, 201, created.text);
    productId = created.body.id;
    await caughtUp();
    await replicaState(svc!.service.deps.db.reads, 'ok');
    assert.deepEqual(await listNames(reader.token), ['Mint Tea']);

    await onReplica('select pg_wal_replay_pause()');
    await until('replay to pause', async () => (await onReplica<{ s: string }>('select pg_get_wal_replay_pause_state() as s'))[0].s === 'paused');

    // The mutation and its own answer are the primary's.
    const renamed = await api('PATCH', `/v1/stores/${owner.storeId}/products/${productId}`, { token: owner.token, body: { name: 'Green Tea' } });
    assert.equal(renamed.status, 200, renamed.text);
    assert.equal(renamed.body.name, 'Green Tea');
    const order = await api('POST', `/v1/stores/${owner.storeId}/orders`, { token: owner.token, body: { customerName: 'Ada', items: [{ name: 'Tea', quantity: 1, price: 2 }] } });
    assert.equal(order.status, 201, order.text);

    // Reads that tolerate lag see the replica, where replay stopped before the change.
    assert.deepEqual(await shopNames(), ['Mint Tea']);
    assert.equal(await shopProduct(), 'Mint Tea');
    assert.deepEqual(await listNames(reader.token), ['Mint Tea']);
    assert.equal(await orderCount(reader.token), 0);
    // The caller that wrote reads its writes: the primary answers it.
    assert.deepEqual(await listNames(owner.token), ['Green Tea']);
    assert.equal(await orderCount(owner.token), 1);
    // Every query operation reads from the replica, whichever door it comes through ...
    assert.equal(await gqlProduct(reader.token), 'Mint Tea');
    assert.equal(await restProduct(reader.token), 'Mint Tea');
    assert.equal(await feeefProduct(reader.token), 'Mint Tea');
    // ... but not the caller that wrote: all three read its write from the primary.
    assert.equal(await gqlProduct(owner.token), 'Green Tea');
    assert.equal(await restProduct(owner.token), 'Green Tea');
    assert.equal(await feeefProduct(owner.token), 'Green Tea');
  });

  test('access checks and mutations use the primary; a GraphQL or Feeef write sends its caller to the primary', async (t) => {
    if (setupSkip) return t.skip(setupSkip);
    // Replay is still paused: these members exist on the primary only. Their tokens and their
    // membership are checked there, while the product they read comes from the replica.
    const late = await memberWithRole(api, owner.token, owner.storeId, 'admin');
    const lateFeeef = await memberWithRole(api, owner.token, owner.storeId, 'admin');
    assert.equal(await gqlProduct(late.token), 'Mint Tea');
    assert.equal(await feeefProduct(lateFeeef.token), 'Mint Tea');
    assert.deepEqual(await listNames(late.token), ['Mint Tea']);

    // A mutation reads what it changes from the primary, even for a caller that never wrote: the
    // name it answers with is the primary's (the replica still says Mint Tea).
    const changed = await api('POST', '/graphql', {
      token: late.token,
      body: { query: 'mutation($s: ID!, $id: ID!) { updateProduct(storeId: $s, id: $id, input: { price: 12 }) { name price } }', variables: { s: owner.storeId, id: productId } },
    });
    assert.equal(changed.body.errors, undefined, changed.text);
    assert.equal(changed.body.data.updateProduct.name, 'Green Tea');
    // Its caller's next reads, through any door, are the primary's.
    assert.equal(await gqlProduct(late.token), 'Green Tea');
    assert.equal(await restProduct(late.token), 'Green Tea');
    assert.deepEqual(await listNames(late.token), ['Green Tea']);

    // The Feeef face's write reads the product before changing it (the Feeef fields it keeps in
    // metadata): that read is the primary's too, or the field the owner just kept would be lost.
    const kept = await api('PUT', `/feeef/v1/products/${productId}`, { token: owner.token, body: { decoration: 'ribbon' } });
    assert.equal(kept.status, 200, kept.text);
    assert.equal(kept.body.decoration, 'ribbon', kept.text);
    const put = await api('PUT', `/feeef/v1/products/${productId}`, { token: lateFeeef.token, body: { price: 13, metadata: { shelf: 'B' } } });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.body.name, 'Green Tea');
    assert.equal(put.body.decoration, 'ribbon', put.text);
    assert.equal(put.body.metadata?.shelf, 'B', put.text);
    assert.equal(await feeefProduct(lateFeeef.token), 'Green Tea');
    assert.equal(await gqlProduct(lateFeeef.token), 'Green Tea');
    // The reader, who wrote nothing, still reads the replica.
    assert.equal(await gqlProduct(reader.token), 'Mint Tea');
  });

  test('a query that writes (a page stored on its first view) writes on the primary', async (t) => {
    if (setupSkip) return t.skip(setupSkip);
    await onReplica('select pg_wal_replay_resume()');
    const page = await api('POST', `/v1/pages?storeId=${owner.storeId}`, { token: owner.token, body: { title: 'Delivery', slug: 'delivery', body: '# Fast', status: 'published' } });
    assert.equal(page.status, 201, page.text);
    // A page from before pages stored their HTML: rendered and stored by its first view.
    const primary = new pg.Client({ ...pgConnection(db!.url!) });
    await primary.connect();
    try {
      await primary.query('update pages set html = null where id = $1', [page.body.id]);
      await caughtUp();
      assert.equal(svc!.service.deps.db.reads.status()[0].state, 'ok');
      // Anonymous: nothing keeps this read off the replica, which has the page without its HTML.
      const view = await api('GET', `/v1/pages/view/delivery?storeId=${owner.storeId}`);
      assert.equal(view.status, 200, view.text);
      assert.match(view.body.html, /<h1>Fast<\/h1>/);
      const [row] = (await primary.query<{ html: string | null }>('select html from pages where id = $1', [page.body.id])).rows;
      assert.match(row.html ?? '', /<h1>Fast<\/h1>/);
      // Replay paused again behind a change, for the next test's lag.
      await onReplica('select pg_wal_replay_pause()');
      await until('replay to pause', async () => (await onReplica<{ s: string }>('select pg_get_wal_replay_pause_state() as s'))[0].s === 'paused');
      await primary.query("update pages set title = 'Delivery times' where id = $1", [page.body.id]);
    } finally {
      await primary.end();
    }
  });

  test('a replica lagging beyond SOUK_REPLICA_MAX_LAG_MS is skipped; reads go to the primary until it catches up', async (t) => {
    if (setupSkip) return t.skip(setupSkip);
    // The same database, a service allowing 100 ms: replay is still paused behind the rename.
    await svc!.close();
    svc = await startService(100);
    api = client(svc.url);
    const reads = svc.service.deps.db.reads;
    await replicaState(reads, 'lagging');
    assert.ok((reads.status()[0].lagMs ?? 0) > 100);
    assert.deepEqual(await shopNames(), ['Green Tea']);
    assert.deepEqual(await listNames(reader.token), ['Green Tea']);
    assert.equal(await orderCount(reader.token), 1);
    assert.equal(await gqlProduct(reader.token), 'Green Tea');
    assert.equal(await feeefProduct(reader.token), 'Green Tea');
    const metrics = await (await fetch(`${svc.url}/metrics`)).text();
    if (!metrics.includes('souk_db_replica_up')) assert.fail(`souk_db_replica_up missing from /metrics:\n${metrics.slice(0, 500)}`);

    await onReplica('select pg_wal_replay_resume()');
    await replicaState(reads, 'ok');
    await caughtUp();
    assert.deepEqual(await shopNames(), ['Green Tea']);
  });

  test('with the replica down, reads still answer (from the primary)', async (t) => {
    if (setupSkip) return t.skip(setupSkip);
    // Checks once a second (a large lag bound): the replica is stopped between two of them.
    await svc!.close();
    svc = await startService(600_000);
    api = client(svc.url);
    const reads = svc.service.deps.db.reads;
    await replicaState(reads, 'ok');
    assert.deepEqual(await listNames(reader.token), ['Green Tea']);
    assert.equal(await orderCount(reader.token), 1);
    // At once, whether or not a check has seen it yet: a read that finds the replica gone is the
    // primary's. First through the ORM (the order list) ...
    await replica!.stop();
    assert.equal(await orderCount(reader.token), 1);
    await replicaState(reads, 'down');
    assert.match(reads.status()[0].reason ?? '', /unreachable|lost during a read/);
    assert.deepEqual(await shopNames(), ['Green Tea']);
    // ... then, the replica back and stopped again, through a prepared statement (the catalog).
    await replica!.start();
    await replicaState(reads, 'ok');
    assert.equal(await shopProduct(), 'Green Tea');
    await replica!.stop();
    assert.deepEqual(await shopNames(), ['Green Tea']);
    assert.equal(await shopProduct(), 'Green Tea');
    assert.deepEqual(await listNames(reader.token), ['Green Tea']);
    // Queries through every door answer too, from the primary.
    assert.equal(await gqlProduct(reader.token), 'Green Tea');
    assert.equal(await restProduct(reader.token), 'Green Tea');
    assert.equal(await feeefProduct(reader.token), 'Green Tea');
    await replicaState(reads, 'down');
  });
});

describe('SOUK_DATABASE_REPLICA_URLS and SOUK_REPLICA_MAX_LAG_MS', () => {
  const base = { SOUK_DATA_DIR: mkdtempSync(join(tmpdir(), 'souk-config-')), DATABASE_URL: 'postgres://app@db.internal:5432/shop' };
  after(() => rmSync(base.SOUK_DATA_DIR, { recursive: true, force: true }));

  test('a comma list in either libpq form; the default lag bound is 1 s', () => {
    const c = loadConfig({ ...base, SOUK_DATABASE_REPLICA_URLS: 'postgres://app:pw@replica-1:6432/shop , host=/var/run/replica-2 port=5433 dbname=shop user=app' });
    assert.deepEqual(c.databaseReplicaConnections, [
      { host: 'replica-1', port: 6432, user: 'app', database: 'shop', password: 'pw' },
      { host: '/var/run/replica-2', port: 5433, user: 'app', database: 'shop' },
    ]);
    assert.equal(c.replicaMaxLagMs, 1000);
    assert.equal(loadConfig({ ...base, SOUK_REPLICA_MAX_LAG_MS: '250' }).replicaMaxLagMs, 250);
    assert.deepEqual(loadConfig(base).databaseReplicaConnections, []);
  });

  test('refused at start: replicas without DATABASE_URL, an unreadable entry (named, never echoed), a lag bound out of range', () => {
    assert.throws(() => loadConfig({ SOUK_DATA_DIR: base.SOUK_DATA_DIR, SOUK_DATABASE_REPLICA_URLS: 'postgres://app@replica-1/shop' }), /SOUK_DATABASE_REPLICA_URLS needs DATABASE_URL/);
    assert.throws(
      () => loadConfig({ ...base, SOUK_DATABASE_REPLICA_URLS: 'postgres://app@replica-1/shop,mysql://root:s3cret@x/y' }),
      (err: Error) => /SOUK_DATABASE_REPLICA_URLS \(entry 2\) must be a PostgreSQL connection string/.test(err.message) && !err.message.includes('s3cret'),
    );
    assert.throws(() => loadConfig({ ...base, SOUK_REPLICA_MAX_LAG_MS: '5' }), /SOUK_REPLICA_MAX_LAG_MS must be an integer between 10 and 3600000/);
  });
});
