// REST vs GraphQL vs bare fastify on the same read: GET /v1/stores/{storeId}, the same query
// over POST /graphql, and a bare fastify route returning the same JSON. The service runs
// in-process on a throwaway embedded PGlite; all traffic is on 127.0.0.1. Prints numbers.
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import Fastify from 'fastify';
import { loadConfig } from '../src/config.js';
import { startService } from '../src/service.js';
import { STORE } from '../rest-compat/routes/fragments.js';

const CONCURRENCY = 16;
/** Each phase stops at whichever bound comes first; with the start-up the run stays near 20 s. */
const WARMUP_REQUESTS = 200;
const WARMUP_MS = 1_000;
const MAX_REQUESTS = 20_000;
const MAX_MS = 4_000;

interface Target {
  name: string;
  port: number;
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** The store object out of a response body, to check every target answers the same. */
  pick: (body: unknown) => unknown;
}

interface Result {
  name: string;
  requests: number;
  failures: number;
  seconds: number;
  rps: number;
  p50: number;
  p99: number;
}

const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });

function send(t: Target): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: t.port, method: t.method, path: t.path, headers: t.headers, agent }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(t.body);
  });
}

/** CONCURRENCY workers, each sending one request after the other until a bound is reached. */
async function run(t: Target, maxRequests: number, maxMs: number): Promise<Result> {
  const latencies: number[] = [];
  let started = 0;
  let failures = 0;
  const t0 = performance.now();
  const deadline = t0 + maxMs;
  const worker = async () => {
    while (started < maxRequests && performance.now() < deadline) {
      started++;
      const s = performance.now();
      try {
        const res = await send(t);
        if (res.status !== 200) failures++;
      } catch {
        failures++;
      }
      latencies.push(performance.now() - s);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const seconds = (performance.now() - t0) / 1000;
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? NaN;
  return { name: t.name, requests: latencies.length, failures, seconds, rps: latencies.length / seconds, p50: pct(50), p99: pct(99) };
}

async function main() {
  const began = performance.now();
  const dataDir = mkdtempSync(join(tmpdir(), 'souk-bench-'));
  const config = loadConfig({ NODE_ENV: 'test', SOUK_DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'silent' });
  const service = await startService(config);
  const startup = performance.now() - began;
  const bare = Fastify({ logger: false });
  try {
    const base = service.url;
    const post = async (path: string, body: unknown, token?: string) => {
      const res = await fetch(base + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(body),
      });
      if (res.status !== 201) throw new Error(`POST ${path} answered ${res.status}: ${await res.text()}`);
      return res.json() as Promise<any>;
    };
    const { token } = await post('/v1/users/auth/signup', { email: 'bench@example.com', password: 'bench-password', name: 'Bench' });
    const store = await post('/v1/stores', { name: 'Bench Store' }, token);

    // The bare route answers with the very object the REST route returns.
    bare.get('/v1/stores/:storeId', async () => store);
    await bare.listen({ host: '127.0.0.1', port: 0 });
    const barePort = (bare.server.address() as { port: number }).port;
    const port = Number(new URL(base).port);
    const auth = { authorization: `Bearer ${token}` };

    const targets: Target[] = [
      { name: 'REST  GET /v1/stores/{id}', port, method: 'GET', path: `/v1/stores/${store.id}`, headers: auth, pick: (b) => b },
      {
        name: 'GraphQL POST /graphql',
        port,
        method: 'POST',
        path: '/graphql',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ query: `query($storeId: ID!) { store(id: $storeId) { ${STORE} } }`, variables: { storeId: store.id } }),
        pick: (b) => (b as { data?: { store?: unknown } }).data?.store,
      },
      { name: 'bare fastify route', port: barePort, method: 'GET', path: `/v1/stores/${store.id}`, headers: auth, pick: (b) => b },
    ];

    // Same answer from all three, or the comparison means nothing.
    for (const t of targets) {
      const res = await send(t);
      const got = res.status === 200 ? t.pick(JSON.parse(res.text)) : undefined;
      if (!isDeepStrictEqual(got, store)) throw new Error(`${t.name} answered ${res.status} ${res.text.slice(0, 300)}`);
    }

    const results: Result[] = [];
    for (const t of targets) {
      await run(t, WARMUP_REQUESTS, WARMUP_MS);
      results.push(await run(t, MAX_REQUESTS, MAX_MS));
    }

    const [rest, gql, bareResult] = results;
    const f = (n: number, d = 0) => n.toFixed(d);
    console.log(`souk bench:http  node ${process.version}, ${cpus().length} CPUs, load ${loadavg().map((l) => l.toFixed(2)).join(' ')}, embedded PGlite`);
    console.log(`concurrency ${CONCURRENCY}, keep-alive, per target a warm-up (${WARMUP_REQUESTS} requests or ${WARMUP_MS / 1000} s) then up to ${MAX_REQUESTS} requests or ${MAX_MS / 1000} s`);
    console.log('');
    console.log(`${'target'.padEnd(28)}${'requests'.padStart(9)}${'failed'.padStart(8)}${'req/s'.padStart(9)}${'p50 ms'.padStart(9)}${'p99 ms'.padStart(9)}`);
    for (const r of results) {
      console.log(`${r.name.padEnd(28)}${String(r.requests).padStart(9)}${String(r.failures).padStart(8)}${f(r.rps).padStart(9)}${f(r.p50, 2).padStart(9)}${f(r.p99, 2).padStart(9)}`);
    }
    console.log('');
    for (const [label, r] of [['REST/bare', rest], ['GraphQL/bare', gql]] as const) {
      console.log(`${label.padEnd(14)} throughput ${f(r.rps / bareResult.rps, 3)}  p50 latency ${f(r.p50 / bareResult.p50, 2)}x  p99 latency ${f(r.p99 / bareResult.p99, 2)}x`);
    }
    console.log(`REST/GraphQL   throughput ${f(rest.rps / gql.rps, 3)}`);
    console.log(`total ${f((performance.now() - began) / 1000, 1)} s (start-up ${f(startup / 1000, 1)} s)`);
    if (results.some((r) => r.failures)) process.exitCode = 1;
  } finally {
    agent.destroy();
    await bare.close();
    await service.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error('bench:http failed:', err instanceof Error ? err.message : err);
  process.exit(1);
});
