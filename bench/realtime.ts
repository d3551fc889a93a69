// Realtime fan-out benchmark: N SSE subscribers on one store, events written at a fixed
// rate through the REST API, latency from the event's timestamp (taken in the write
// transaction, just before commit) to its arrival at each subscriber; and the server's
// memory per idle subscriber. The server runs in this process; the subscribers and the
// writer run in a child process so that they do not count in the server's memory.
// Prints numbers; not a test.
//
//   npm run bench:realtime                    embedded PGlite
//   DATABASE_URL=postgres://... npm run bench:realtime   a fresh database on that server
//   BENCH_SUBSCRIBERS=200 BENCH_RATE=100 BENCH_SECONDS=10
import { fork } from 'node:child_process';
import { request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 200);
const RATE = Number(process.env.BENCH_RATE ?? 100);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);

interface ClientsReport {
  expected: number;
  written: number;
  writeErrors: number;
  received: number;
  latenciesMs: number[];
}

const percentile = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : NaN);

// ---------------------------------------------------------------- the child: subscribers and writer
async function clients(): Promise<void> {
  const { url, token, storeId } = JSON.parse(process.env.BENCH_TARGET!) as { url: string; token: string; storeId: string };
  const latencies: number[] = [];
  let received = 0;
  const streams = await Promise.all(
    Array.from(
      { length: SUBSCRIBERS },
      () =>
        new Promise<{ close(): void }>((resolve, reject) => {
          const req = request(`${url}/v1/stores/${storeId}/events/stream`, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' } }, (res) => {
            if (res.statusCode !== 200) return reject(new Error(`stream answered ${res.statusCode}`));
            res.setEncoding('utf8');
            let buf = '';
            res.on('data', (chunk: string) => {
              buf += chunk;
              let at: number;
              while ((at = buf.indexOf('\n\n')) >= 0) {
                const block = buf.slice(0, at);
                buf = buf.slice(at + 2);
                const data = block.split('\n').find((l) => l.startsWith('data: '));
                if (!data) continue;
                const now = performance.timeOrigin + performance.now();
                latencies.push(now - Date.parse(JSON.parse(data.slice(6)).timestamp));
                received++;
              }
            });
            resolve({ close: () => req.destroy() });
          });
          req.on('error', reject);
          req.end();
        }),
    ),
  );
  process.send!({ ready: true });
  await new Promise<void>((resolve) => process.once('message', () => resolve()));

  let written = 0;
  let writeErrors = 0;
  const writes: Promise<void>[] = [];
  const body = JSON.stringify({ customerName: 'Bench', items: [{ name: 'Tea', quantity: 1, price: 2 }] });
  const total = RATE * SECONDS;
  const started = performance.now();
  // Paced by the clock, not by responses: a slow server does not lower the offered rate.
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    writes.push(
      fetch(`${url}/v1/stores/${storeId}/orders`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body })
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
  const expected = written * SUBSCRIBERS;
  for (let i = 0; i < 200 && received < expected; i++) await new Promise((r) => setTimeout(r, 50));
  for (const s of streams) s.close();
  const report: ClientsReport = { expected, written, writeErrors, received, latenciesMs: latencies };
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
    const store = await call('/v1/stores', { name: 'Bench' }, token);

    const child = fork(new URL(import.meta.url).pathname, ['clients'], {
      execArgv: ['--import', 'tsx'],
      env: { ...process.env, BENCH_TARGET: JSON.stringify({ url: service.url, token, storeId: store.id }) },
    });
    const messages: unknown[] = [];
    const next = () =>
      new Promise<any>((resolve, reject) => {
        if (messages.length) return resolve(messages.shift());
        child.once('message', () => resolve(messages.shift()));
        child.once('exit', (code) => reject(new Error(`clients exited with ${code}`)));
      });
    child.on('message', (m) => messages.push(m));

    const before = memory();
    await next();
    // Let the server settle the new connections before measuring.
    await new Promise((r) => setTimeout(r, 1_000));
    const idle = memory();
    child.send('go');
    const report = (await next()) as ClientsReport;

    const sorted = report.latenciesMs.sort((a, b) => a - b);
    const mode = databaseUrl ? 'PostgreSQL (LISTEN/NOTIFY)' : 'embedded PGlite (in-process emitter)';
    console.log(`realtime fan-out, ${mode}`);
    console.log(`  subscribers            ${SUBSCRIBERS} SSE streams on one store`);
    console.log(`  offered                ${RATE} events/s for ${SECONDS} s; committed ${report.written}, failed writes ${report.writeErrors}`);
    console.log(`  delivered              ${report.received} of ${report.expected} (${((100 * report.received) / Math.max(1, report.expected)).toFixed(2)} %)`);
    console.log(`  latency commit->client p50 ${percentile(sorted, 50).toFixed(1)} ms, p90 ${percentile(sorted, 90).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms, max ${(sorted[sorted.length - 1] ?? NaN).toFixed(1)} ms`);
    console.log(
      `  memory per idle subscriber  rss ${((idle.rss - before.rss) / SUBSCRIBERS / 1024).toFixed(1)} KiB, heap ${((idle.heap - before.heap) / SUBSCRIBERS / 1024).toFixed(1)} KiB (server process, after gc)`,
    );
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
