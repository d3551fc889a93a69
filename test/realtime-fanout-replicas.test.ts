// Two web processes (SOUK_ROLE=web) on one PostgreSQL, 2,000 realtime readers on them together:
// each process has one LISTEN connection and fans every event out in-process to its readers
// (REST event streams and graphql-sse subscriptions, of two stores), and every reader gets every
// event of its store once, in order, whichever process the write went through.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import type { ClientRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { client, freshDatabase, ownerWithStore, type Api } from './helpers.js';
import { spawnReplica, type Replica } from './replicas.js';
import { rawSse, STORE_EVENTS } from './sse-client.js';

const skip = process.env.DATABASE_URL ? false : 'needs a real PostgreSQL (DATABASE_URL): the processes share one database server';
/** Readers per process and store: REST streams and GraphQL subscriptions. 2 x 2 x (400 + 100) = 2,000. */
const REST = 400;
const GRAPHQL = 100;
/** Events per store, written through both processes in turn. */
const EVENTS = 10;

let db: Awaited<ReturnType<typeof freshDatabase>>;
let dataDir: string;
const procs: Replica[] = [];

before(async () => {
  if (skip) return;
  db = await freshDatabase();
  dataDir = mkdtempSync(join(tmpdir(), 'souk-fanout-'));
  const secret = randomBytes(32).toString('hex');
  const start = (name: string) =>
    spawnReplica(name, { DATABASE_URL: db.url!, SOUK_ROLE: 'web', SOUK_SECRET_KEY: secret, SOUK_DATA_DIR: join(dataDir, name) }, { timeoutMs: 120_000, started: (p) => procs.push(p) });
  // Together, as a deployment starts them: the migration lock lets one migrate at a time.
  await Promise.all([start('A'), start('B')]);
});
after(async () => {
  await Promise.all(
    procs.map(async (p) => {
      if (!p.alive) return;
      const exited = new Promise((r) => p.proc.once('exit', r));
      p.proc.kill('SIGTERM');
      await exited;
    }),
  );
  await db?.drop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** A reader: the ids of the events it received, in arrival order. */
interface Reader {
  ids: number[];
  req: ClientRequest;
  readonly ended: boolean;
}

async function read(url: string, token: string, graphql: { storeId: string } | null): Promise<Reader> {
  const ids: number[] = [];
  const sse = await rawSse(url, token, graphql && { query: STORE_EVENTS, variables: { storeId: graphql.storeId } }, (data) => {
    const payload = JSON.parse(data);
    ids.push(Number(graphql ? payload.data.storeEvents.id : payload.id));
  });
  return {
    ids,
    req: sse.req,
    get ended() {
      return sse.ended;
    },
  };
}

/** Runs `fns` with at most `n` at once. */
async function limited<T>(n: number, fns: Array<() => Promise<T>>): Promise<T[]> {
  const out: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < fns.length) {
        const i = next++;
        out[i] = await fns[i]();
      }
    }),
  );
  return out;
}

test('2,000 readers on two web processes: every event of their store reaches each once, in order', { skip }, async () => {
  const [A, B] = procs;
  const apis: Api[] = [client(A.url), client(B.url)];
  const stores = [await ownerWithStore(apis[0]), await ownerWithStore(apis[1])];
  const opens: Array<() => Promise<Reader>> = [];
  for (const p of [A, B]) {
    for (const s of stores) {
      for (let i = 0; i < REST; i++) opens.push(() => read(`${p.url}/v1/stores/${s.storeId}/events/stream`, s.token, null));
      for (let i = 0; i < GRAPHQL; i++) opens.push(() => read(`${p.url}/graphql/stream`, s.token, { storeId: s.storeId }));
    }
  }
  // A reader is registered once its response has begun.
  const t0 = Date.now();
  const readers = await limited(50, opens);
  const t1 = Date.now();
  try {
    assert.equal(readers.length, 2_000);
    // Both stores at once, each alternating between the processes.
    await Promise.all(
      stores.map(async (s, k) => {
        for (let i = 0; i < EVENTS; i++) {
          const res = await apis[(i + k) % 2]('POST', `/v1/stores/${s.storeId}/orders`, { token: s.token, body: { customerName: `n${i}` }, contract: false });
          assert.equal(res.status, 201, res.text);
        }
      }),
    );
    const deadline = Date.now() + 60_000;
    while (readers.some((r) => r.ids.length < EVENTS && !r.ended) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    console.log(`# opened 2,000 readers in ${t1 - t0} ms; wrote and delivered ${EVENTS * 2} events in ${Date.now() - t1} ms`);
    const expected = Array.from({ length: EVENTS }, (_, i) => i + 1);
    const wrong = readers.filter((r) => r.ids.length !== EVENTS || r.ids.some((id, i) => id !== expected[i]));
    assert.equal(wrong.length, 0, `${wrong.length} readers got another sequence, e.g. ${JSON.stringify(wrong[0]?.ids)}`);
    // One LISTEN connection per process, whatever the number of readers.
    const admin = new pg.Client({ connectionString: db.url! });
    await admin.connect();
    try {
      const { rows } = await admin.query(`select count(*)::int as n from pg_stat_activity where datname = current_database() and application_name = 'souk-realtime'`);
      assert.equal(rows[0].n, 2);
    } finally {
      await admin.end();
    }
  } finally {
    for (const r of readers) r.req.destroy();
  }
});
