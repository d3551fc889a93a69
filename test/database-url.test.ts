import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { ConfigError, loadConfig, pgConnection } from '../src/config.js';
import { client, freshDatabase, startTestService, signup } from './helpers.js';

const me = userInfo().username;

test('DATABASE_URL in the forms libpq (and psql) accept, gaps filled as libpq fills them', () => {
  const cases: Array<[string, NodeJS.ProcessEnv, object]> = [
    // A Unix socket: the directory as the host parameter, or percent-encoded in the host's place.
    ['postgres:///shop?host=/var/run/postgresql', {}, { host: '/var/run/postgresql', port: 5432, database: 'shop', user: me }],
    ['postgres:///shop?host=/var/run/postgresql', { PGUSER: 'ops' }, { host: '/var/run/postgresql', port: 5432, database: 'shop', user: 'ops' }],
    ['postgresql://ops@%2Fvar%2Frun%2Fpostgresql:5433/shop', {}, { host: '/var/run/postgresql', port: 5433, database: 'shop', user: 'ops' }],
    // No database: the user's name; parameters in the query string.
    ['postgres://ops@db.example', {}, { host: 'db.example', port: 5432, database: 'ops', user: 'ops' }],
    ['postgres://db.example?dbname=shop&user=ops&port=6000', {}, { host: 'db.example', port: 6000, database: 'shop', user: 'ops' }],
    ['postgres://', { PGHOST: '/run/pg', PGPORT: '6001', PGUSER: 'u', PGDATABASE: 'd' }, { host: '/run/pg', port: 6001, database: 'd', user: 'u' }],
    ['postgres://ops:p%40ss@[::1]:5432/shop', {}, { host: '::1', port: 5432, database: 'shop', user: 'ops', password: 'p@ss' }],
    // libpq's keyword/value form, a quoted value with an escaped quote.
    ["host=/var/run/postgresql dbname=shop user=ops password='a b\\'c'", {}, { host: '/var/run/postgresql', port: 5432, database: 'shop', user: 'ops', password: "a b'c" }],
  ];
  for (const [raw, env, expected] of cases) assert.deepEqual({ ...pgConnection(raw, env) }, expected, raw);

  // sslmode as libpq means it: require encrypts without checking the certificate; disable is plain.
  assert.deepEqual(pgConnection('postgres://ops@db.example/shop?sslmode=require', {}).ssl, { rejectUnauthorized: false });
  assert.equal(pgConnection('postgres://ops@db.example/shop?sslmode=disable', {}).ssl, false);
  assert.equal(pgConnection('postgres://ops@db.example/shop', {}).ssl, undefined);

  // No host at all: the default socket directory where a server listens there, else localhost.
  const host = pgConnection('postgres:///shop', {}).host;
  assert.ok(host === 'localhost' || existsSync(`${host}/.s.PGSQL.5432`), host);

  // Read at start, through loadConfig with its own environment.
  const config = loadConfig({ DATABASE_URL: 'postgres:///shop?host=/var/run/postgresql', PGUSER: 'postgres', SOUK_DATA_DIR: '/tmp/souk-config-test', SOUK_SECRET_KEY: '0'.repeat(64) });
  assert.deepEqual({ ...config.databaseConnection }, { host: '/var/run/postgresql', port: 5432, database: 'shop', user: 'postgres' });
});

test('a DATABASE_URL that is no connection string stops the start, and the message never holds the password', () => {
  for (const raw of ['mysql://ops:s3cret@db.example/shop', 'postgres://ops:s3cret@h1:5432,h2:5432/shop', 'postgres://ops:s3cret@db.example:99999/shop', 'postgres://ops:s3cret@db.example/shop?sslmode=verify-ca', 'db.example shop']) {
    assert.throws(
      () => pgConnection(raw, {}),
      (err: Error) => err instanceof ConfigError && /^DATABASE_URL/.test(err.message) && !err.message.includes('s3cret'),
      raw,
    );
  }
});

const SOCKET_DIR = '/var/run/postgresql';
const noSocket = !process.env.DATABASE_URL || !existsSync(`${SOCKET_DIR}/.s.PGSQL.5432`) ? `needs DATABASE_URL and a PostgreSQL socket in ${SOCKET_DIR}` : false;

test('the service runs on PostgreSQL through its Unix socket: postgres:///db?host=/var/run/postgresql', { skip: noSocket, timeout: 120_000 }, async () => {
  const db = await freshDatabase();
  const name = new URL(db.url!).pathname.slice(1);
  // The user from PGUSER, as psql takes it: the URL names none.
  const dataDir = mkdtempSync(join(tmpdir(), 'souk-socket-'));
  const svc = await startTestService({ DATABASE_URL: `postgres:///${name}?host=${SOCKET_DIR}`, PGUSER: 'postgres' }, { databaseUrl: null, dataDir });
  try {
    const api = client(svc.url);
    assert.equal((await api('GET', '/readyz', { contract: false })).status, 200);
    const owner = await signup(api, 'Socket');
    const store = await api('POST', '/v1/stores', { token: owner.token, body: { name: 'Socket shop' } });
    assert.equal(store.status, 201);
    // Every client of the service (ORM, queue, LISTEN) came in through the socket: no client address.
    const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    const { rows } = await admin.query<{ application_name: string; client_addr: string | null }>('select application_name, client_addr from pg_stat_activity where datname = $1', [name]);
    await admin.end();
    assert.ok(rows.length >= 2, JSON.stringify(rows));
    assert.deepEqual(rows.filter((r) => r.client_addr !== null), []);
  } finally {
    await svc.close();
    await db.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
