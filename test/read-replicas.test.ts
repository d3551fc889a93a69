import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { pgConnection } from '../src/config.js';
import type { ReadRoute, ReplicaState } from '../src/db/replicas.js';
import { client, freePort, freshDatabase, memberWithRole, ownerWithStore, startTestService, until, type Api, type TestService } from './helpers.js';

/**
 * Read replicas against a real streaming replica of the test's PostgreSQL server: made with
 * pg_basebackup, started with pg_ctl on a spare loopback port (as the postgres user when the
 * test runs as root), stopped and removed at the end. One replica for the whole file.
 */
const run = promisify(execFile);

/** Debian's server binaries, newest version first. */
function serverBin(): string | null {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a));
  for (const v of versions) {
    const bin = join(root, v, 'bin');
    if (existsSync(join(bin, 'pg_basebackup')) && existsSync(join(bin, 'pg_ctl'))) return bin;
  }
  return null;
}

/** PostgreSQL refuses to run as root: its binaries then run as the postgres user. */
const asRoot = process.getuid?.() === 0;
const pgCmd = (bin: string, args: string[]) => (asRoot ? run('runuser', ['-u', 'postgres', '--', bin, ...args]) : run(bin, args));

const bin = serverBin();
const skipReason = !process.env.DATABASE_URL
  ? 'needs a real PostgreSQL (DATABASE_URL): a streaming replica follows a server'
  : !bin
    ? 'needs the PostgreSQL server binaries (pg_basebackup, pg_ctl under /usr/lib/postgresql/*/bin)'
    : asRoot && !(await run('id', ['-u', 'postgres']).then(() => true, () => false))
      ? 'runs as root without a postgres user to run the replica as'
      : null;

let replicaDir = '';
let dataDir = '';
let replicaPort = 0;
let replicaRunning = false;
let db: Awaited<ReturnType<typeof freshDatabase>> | null = null;
let svc: TestService | null = null;
let setupSkip: string | null = skipReason;

/** Makes and starts the replica; a refusal from the server (no replication allowed) is a skip, said plainly. */
async function startReplica(primaryUrl: string): Promise<string | null> {
  const p = pgConnection(primaryUrl);
  replicaDir = mkdtempSync(join(tmpdir(), 'souk-replica-'));
  if (asRoot) chownSync(replicaDir, Number((await run('id', ['-u', 'postgres'])).stdout.trim()), Number((await run('id', ['-g', 'postgres'])).stdout.trim()));
  const data = join(replicaDir, 'data');
  try {
    await pgCmd(join(bin!, 'pg_basebackup'), ['-h', p.host, '-p', String(p.port), '-U', p.user, '-D', data, '-R', '-X', 'stream', '-c', 'fast']);
  } catch (err) {
    const stderr = String((err as { stderr?: unknown }).stderr ?? err).trim();
    return `this server refuses replication connections (pg_hba.conf needs "host replication all 127.0.0.1/32 trust"; .ci/run adds it): ${stderr}`;
  }
  // A standby needs these at least as high as its primary's.
  const admin = new pg.Client({ ...p });
  await admin.connect();
  const { rows } = await admin.query<{ name: string; setting: string }>(
    "select name, setting from pg_settings where name in ('max_connections', 'max_worker_processes', 'max_wal_senders', 'max_prepared_transactions', 'max_locks_per_transaction')",
  );
  await admin.end();
  replicaPort = await freePort();
  const conf = [
    "listen_addresses = '127.0.0.1'",
    `port = ${replicaPort}`,
    `unix_socket_directories = '${replicaDir}'`,
    'hot_standby = on',
    'fsync = off',
    'shared_buffers = 32MB',
    ...rows.map((r) => `${r.name} = ${r.setting}`),
  ];
  writeFileSync(join(data, 'postgresql.conf'), conf.join('\n') + '\n');
  writeFileSync(join(data, 'pg_hba.conf'), 'local all all trust\nhost all all 127.0.0.1/32 trust\n');
  if (asRoot) await run('chown', ['-R', 'postgres:postgres', replicaDir]);
  await pgCmd(join(bin!, 'pg_ctl'), ['-D', data, '-l', join(replicaDir, 'log'), '-w', '-t', '60', 'start']);
  replicaRunning = true;
  return null;
}

async function stopReplica(): Promise<void> {
  if (!replicaRunning) return;
  replicaRunning = false;
  await pgCmd(join(bin!, 'pg_ctl'), ['-D', join(replicaDir, 'data'), '-m', 'immediate', '-w', 'stop']).catch(() => {});
}

/** A query on the replica itself. */
async function onReplica<T extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<T[]> {
  const c = new pg.Client({ host: '127.0.0.1', port: replicaPort, user: pgConnection(db!.url!).user, database: pgConnection(db!.url!).database });
  await c.connect();
  try {
    return (await c.query<T>(sql, params)).rows;
  } finally {
    await c.end();
  }
}

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
  const u = pgConnection(db!.url!);
  return startTestService(
    { SOUK_DATABASE_REPLICA_URLS: `postgres://${u.user}@127.0.0.1:${replicaPort}/${u.database}`, SOUK_REPLICA_MAX_LAG_MS: String(maxLagMs), SOUK_METRICS: '1' },
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
  const orderCount = async (token: string) => {
    const res = await api('GET', `/v1/stores/${owner.storeId}/orders`, { token });
    assert.equal(res.status, 200, res.text);
    return (res.body.data as unknown[]).length;
  };

  before(async () => {
    if (setupSkip) return;
    db = await freshDatabase();
    setupSkip = await startReplica(db.url!);
    if (setupSkip) return;
    // A lag bound no test step comes near: the replica stays in use while its replay is paused.
    svc = await startService(600_000);
    api = client(svc.url);
  });

  after(async () => {
    await svc?.close();
    await stopReplica();
    await db?.drop();
    if (replicaDir) rmSync(replicaDir, { recursive: true, force: true });
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
    // A read that is not routed (one product by id) is the primary's for everyone.
    const one = await api('GET', `/v1/stores/${owner.storeId}/products/${productId}`, { token: reader.token });
    assert.equal(one.body.name, 'Green Tea');
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
    const metrics = await (await fetch(`${svc.url}/metrics`)).text();
    if (!metrics.includes('souk_db_replica_up')) assert.fail(`souk_db_replica_up missing from /metrics:\n${metrics.slice(0, 500)}`);

    await onReplica('select pg_wal_replay_resume()');
    await replicaState(reads, 'ok');
    await caughtUp();
    assert.deepEqual(await shopNames(), ['Green Tea']);
  });

  test('with the replica down, reads still answer (from the primary)', async (t) => {
    if (setupSkip) return t.skip(setupSkip);
    const reads = svc!.service.deps.db.reads;
    await stopReplica();
    await replicaState(reads, 'down');
    assert.match(reads.status()[0].reason ?? '', /unreachable/);
    assert.deepEqual(await shopNames(), ['Green Tea']);
    assert.equal(await shopProduct(), 'Green Tea');
    assert.deepEqual(await listNames(reader.token), ['Green Tea']);
    assert.equal(await orderCount(reader.token), 1);
  });
});
