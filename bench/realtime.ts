// Realtime fan-out benchmark. The server runs in this process; the readers (REST event streams
// and graphql-sse subscriptions, BENCH_GRAPHQL of them) and the writer run in BENCH_CLIENTS child
// processes, so they count neither in the server's memory nor in its event loop. Readers are
// spread over BENCH_STORES stores, each written BENCH_RATE times a second through the REST API:
// every reader gets BENCH_RATE events a second. Printed per run: delivery, the latency from the
// event's time (taken when the write locks its store's sequence, the last step before commit) to
// its arrival at the reader, the server's CPU per delivery (which moves much less with the
// neighbours' load than latency does), and its memory per idle reader; with the load average.
// Prints numbers; not a test.
//
//   npm run bench:realtime                                 embedded PGlite
//   DATABASE_URL=postgres://... npm run bench:realtime     a fresh database on that server
//   BENCH_SUBSCRIBERS=10000,19500 BENCH_STORES=10 BENCH_RATE=1 BENCH_SECONDS=20 BENCH_GRAPHQL=0.1 BENCH_CLIENTS=2
//
// Runs one after the other in the same server (BENCH_SUBSCRIBERS is a list). A process may hold
// as many sockets as its open-file limit allows (`ulimit -n`): readers beyond it fail to connect.
import { fork } from 'node:child_process';
import { Agent } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { rawSse } from '../test/sse-client.js';

const RUNS = (process.env.BENCH_SUBSCRIBERS ?? '1000').split(',').map(Number);
const STORES = Number(process.env.BENCH_STORES ?? 10);
const RATE = Number(process.env.BENCH_RATE ?? 1);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const GRAPHQL = Number(process.env.BENCH_GRAPHQL ?? 0.1);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 2);
/** Readers connecting at once, per client process. */
const OPENING = 64;

const SUBSCRIPTION = 'subscription($storeId: ID!) { storeEvents(storeId: $storeId) { id timestamp } }';

interface Target {
  url: string;
  token: string;
  stores: string[];
}

interface ClientReport {
  readers: number;
  failed: number;
  written: number;
  writeErrors: number;
  received: number;
  latenciesMs: number[];
}

const percentile = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : NaN);
const load = () => loadavg()[0].toFixed(1);

// ---------------------------------------------------------------- a child: readers (and, in the first, the writer)
async function clients(): Promise<void> {
  const { url, token, stores } = JSON.parse(process.env.BENCH_TARGET!) as Target;
  const index = Number(process.env.BENCH_INDEX);
  const count = Number(process.env.BENCH_COUNT);
  const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
  const latencies: number[] = [];
  let received = 0;
  const onData = (data: string) => {
    const at = data.indexOf('"timestamp":"');
    if (at < 0) return;
    latencies.push(performance.timeOrigin + performance.now() - Date.parse(data.slice(at + 13, at + 37)));
    received++;
  };
  // Reader i of this process is reader `index + i * CLIENTS` overall: stores and kinds spread evenly.
  const readers: Array<Awaited<ReturnType<typeof rawSse>>> = [];
  let failed = 0;
  let next = 0;
  await Promise.all(
    Array.from({ length: OPENING }, async () => {
      while (next < count) {
        const n = index + next++ * CLIENTS;
        const storeId = stores[n % stores.length];
        // Every 1/GRAPHQL-th reader subscribes over graphql-sse.
        const graphql = GRAPHQL > 0 && Math.floor(n * GRAPHQL) !== Math.floor((n + 1) * GRAPHQL);
        try {
          readers.push(
            await rawSse(
              graphql ? `${url}/graphql/stream` : `${url}/v1/stores/${storeId}/events/stream`,
              token,
              graphql ? { query: SUBSCRIPTION, variables: { storeId } } : null,
              onData,
              agent,
            ),
          );
        } catch {
          failed++;
        }
      }
    }),
  );
  process.send!({ ready: true, readers: readers.length, failed });
  await new Promise<void>((resolve) => process.once('message', () => resolve()));

  let written = 0;
  let writeErrors = 0;
  if (index === 0) {
    const writes: Promise<void>[] = [];
    const body = JSON.stringify({ customerName: 'Bench', items: [{ name: 'Tea', quantity: 1, price: 2 }] });
    const perSecond = RATE * stores.length;
    const total = perSecond * SECONDS;
    const started = performance.now();
    // Paced by the clock, not by responses: a slow server does not lower the offered rate.
    for (let i = 0; i < total; i++) {
      const due = started + (i * 1000) / perSecond;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      writes.push(
        fetch(`${url}/v1/stores/${stores[i % stores.length]}/orders`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body })
          .then(async (res) => {
            await res.arrayBuffer();
            if (res.status === 201) written++;
            else writeErrors++;
          })
          .catch(() => {
            writeErrors++;
          }),
      );
    }
    await Promise.all(writes);
  }
  process.send!({ written, writeErrors });
  // The parent says how many deliveries to expect once the writer is done.
  const expected = await new Promise<number>((resolve) => process.once('message', (m: { expected: number }) => resolve(m.expected)));
  for (let i = 0; i < 400 && received < expected; i++) await new Promise((r) => setTimeout(r, 50));
  for (const r of readers) r.req.destroy();
  const report: ClientReport = { readers: readers.length, failed, written, writeErrors, received, latenciesMs: latencies };
  process.send!(report, () => process.exit(0));
}

// ---------------------------------------------------------------- the parent: the server
async function server(): Promise<void> {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const memory = () => {
    for (let i = 0; i < 3; i++) gc();
    const m = process.memoryUsage();
    return { rss: m.rss, heap: m.heapUsed };
  };

  const { loadConfig } = await import('../src/config.js');
  const { startService } = await import('../src/service.js');
  const pg = (await import('pg')).default;

  const base = process.env.DATABASE_URL;
  let databaseUrl: string | undefined;
  const dbName = `souk_bench_${randomBytes(4).toString('hex')}`;
  if (base) {
    const admin = new pg.Client({ connectionString: base });
    await admin.connect();
    await admin.query(`create database ${dbName}`);
    await admin.end();
    const u = new URL(base);
    u.pathname = `/${dbName}`;
    databaseUrl = u.toString();
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'souk-bench-'));
  const service = await startService(
    loadConfig({ NODE_ENV: 'test', HOST: '127.0.0.1', PORT: '0', SOUK_DATA_DIR: dataDir, ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) }),
  );
  try {
    const call = async (path: string, body: unknown, token?: string) => {
      const res = await fetch(service.url + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(body),
      });
      return (await res.json()) as any;
    };
    const { token } = await call('/v1/users/auth/signup', { email: `bench${Date.now()}@example.com`, password: 'correct horse battery', name: 'Bench' });
    const stores: string[] = [];
    for (let i = 0; i < STORES; i++) stores.push((await call('/v1/stores', { name: `Bench ${i}` }, token)).id);
    const mode = databaseUrl ? 'PostgreSQL (LISTEN/NOTIFY)' : 'embedded PGlite (in-process emitter)';
    console.log(`realtime fan-out, ${mode}; ${STORES} stores, each written ${RATE}/s for ${SECONDS} s; ${Math.round(GRAPHQL * 100)} % graphql-sse, the rest REST streams; readers in ${CLIENTS} processes`);

    for (const subscribers of RUNS) {
      const target: Target = { url: service.url, token, stores };
      const children = Array.from({ length: CLIENTS }, (_, index) =>
        fork(new URL(import.meta.url).pathname, ['clients'], {
          execArgv: ['--import', 'tsx'],
          env: {
            ...process.env,
            BENCH_TARGET: JSON.stringify(target),
            BENCH_INDEX: String(index),
            BENCH_COUNT: String(Math.floor(subscribers / CLIENTS) + (index < subscribers % CLIENTS ? 1 : 0)),
          },
        }),
      );
      const inboxes = children.map((child) => {
        const messages: any[] = [];
        const waiting: Array<(m: any) => void> = [];
        child.on('message', (m) => (waiting.length ? waiting.shift()!(m) : messages.push(m)));
        child.once('exit', (code) => code && console.error(`  a client process exited with ${code}`));
        return () => new Promise<any>((resolve) => (messages.length ? resolve(messages.shift()) : waiting.push(resolve)));
      });
      const before = memory();
      const opening = performance.now();
      const ready = await Promise.all(inboxes.map((next) => next()));
      const openMs = performance.now() - opening;
      const readers = ready.reduce((n, r) => n + r.readers, 0);
      // Let the server settle the new connections before measuring.
      await new Promise((r) => setTimeout(r, 2_000));
      const idle = memory();
      const loadBefore = load();
      const cpuBefore = process.cpuUsage();
      const runStart = performance.now();
      children.forEach((c) => c.send('go'));
      const writes = await Promise.all(inboxes.map((next) => next()));
      const written = writes.reduce((n, w) => n + w.written, 0);
      const writeErrors = writes.reduce((n, w) => n + w.writeErrors, 0);
      // Each store's readers get each of its events.
      const perStore = written / STORES;
      children.forEach((c, i) => c.send({ expected: Math.round(perStore * ready[i].readers) }));
      const reports = (await Promise.all(inboxes.map((next) => next()))) as ClientReport[];
      const cpu = process.cpuUsage(cpuBefore);
      const runMs = performance.now() - runStart;
      const loadAfter = load();
      const expected = Math.round(perStore * readers);
      const received = reports.reduce((n, r) => n + r.received, 0);
      const sorted = reports.flatMap((r) => r.latenciesMs).sort((a, b) => a - b);
      const failed = ready.reduce((n, r) => n + r.failed, 0);
      console.log(`  ${subscribers} readers x ${RATE}/s (${readers} open${failed ? `, ${failed} failed to open` : ''}, opened in ${(openMs / 1000).toFixed(1)} s)`);
      console.log(`    committed ${written} events, failed writes ${writeErrors}; delivered ${received} of ${expected} (${((100 * received) / Math.max(1, expected)).toFixed(2)} %)`);
      console.log(
        `    commit->client p50 ${percentile(sorted, 50).toFixed(0)} ms, p90 ${percentile(sorted, 90).toFixed(0)} ms, p99 ${percentile(sorted, 99).toFixed(0)} ms, max ${(sorted[sorted.length - 1] ?? NaN).toFixed(0)} ms; load ${loadBefore} -> ${loadAfter}`,
      );
      console.log(
        `    server CPU ${((cpu.user + cpu.system) / 1000 / runMs * 100).toFixed(0)} % of a core over the run; ${((cpu.user + cpu.system) / Math.max(1, received)).toFixed(1)} us per delivery (the writes' own work included)`,
      );
      console.log(
        `    per idle reader: rss ${((idle.rss - before.rss) / Math.max(1, readers) / 1024).toFixed(1)} KiB, heap ${((idle.heap - before.heap) / Math.max(1, readers) / 1024).toFixed(1)} KiB (server process, after gc)`,
      );
      await Promise.all(children.map((c) => (c.exitCode === null ? new Promise((r) => c.once('exit', r)) : null)));
      // The readers' connections close on the server too before the next run measures its baseline.
      for (let i = 0; i < 200 && service.deps.realtime.size > 0; i++) await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    await service.close();
    rmSync(dataDir, { recursive: true, force: true });
    if (base) {
      const admin = new pg.Client({ connectionString: base });
      await admin.connect();
      await admin.query(`drop database if exists ${dbName} with (force)`);
      await admin.end();
    }
  }
}

if (process.argv[2] === 'clients') await clients();
else await server();
