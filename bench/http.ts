// Reads against the service in a child process (as `npm start` runs it): GET /healthz (the
// floor: fastify and the request log, no auth, no database), REST GET /v1/stores/{id}, the same
// read over GraphQL, and GET /v1/stores/{id}/orders (a list of 20). 16 keep-alive connections.
// PostgreSQL by default (BENCH_DB=embedded for PGlite). Prints req/s and the share of /healthz.
import { closedLoop, fmt, freshDatabase, machine, send, startChild, userAndStore, agent, type LoadResult } from './lib.js';
import { STORE } from '../rest-compat/routes/fragments.js';

const CONCURRENCY = 16;
const MS = Number(process.env.BENCH_SECONDS ?? 4) * 1000;
const WARMUP_MS = 1_000;
const kind = process.env.BENCH_DB ?? 'postgres';

const db = kind === 'postgres' ? await freshDatabase('http') : null;
const svc = await startChild(db?.url ?? null, process.env.BENCH_LOG_LEVEL ? { LOG_LEVEL: process.env.BENCH_LOG_LEVEL } : {});
try {
  const { token, storeId } = await userAndStore(svc.url);
  const auth = { authorization: `Bearer ${token}` };
  for (let i = 0; i < 20; i++) {
    await send(svc.port, 'POST', `/v1/stores/${storeId}/orders`, { ...auth, 'content-type': 'application/json' }, JSON.stringify({ customerName: `Buyer ${i}`, items: [{ name: 'Tea', price: 350 }] }));
  }
  const gql = JSON.stringify({ query: `query($id: ID!) { store(id: $id) { ${STORE} } }`, variables: { id: storeId } });
  const targets: Array<[string, () => Promise<{ status: number; text: string }>]> = [
    ['GET /healthz', () => send(svc.port, 'GET', '/healthz', {})],
    ['REST GET /v1/stores/{id}', () => send(svc.port, 'GET', `/v1/stores/${storeId}`, auth)],
    ['GraphQL store(id)', () => send(svc.port, 'POST', '/graphql', { ...auth, 'content-type': 'application/json' }, gql)],
    ['REST GET .../orders (20)', () => send(svc.port, 'GET', `/v1/stores/${storeId}/orders?limit=20`, auth)],
  ];
  const results: Array<[string, LoadResult]> = [];
  // BENCH_ONLY=2 runs /healthz and the second target only (for a profile of one read).
  const only = process.env.BENCH_ONLY ? [0, Number(process.env.BENCH_ONLY) - 1] : null;
  for (const [name, one] of targets.filter((_, i) => !only || only.includes(i))) {
    const first = await one();
    if (first.status !== 200 || first.text.includes('"errors"')) throw new Error(`${name} answered ${first.status}: ${first.text.slice(0, 300)}`);
    await closedLoop(CONCURRENCY, WARMUP_MS, 1e9, one);
    results.push([name, await closedLoop(CONCURRENCY, MS, 1e9, one)]);
  }
  const floor = results[0][1].rps;
  console.log(`souk bench:http  ${machine()}, ${db ? 'PostgreSQL' : 'embedded PGlite'}, LOG_LEVEL ${process.env.BENCH_LOG_LEVEL ?? 'info'}`);
  console.log(`${CONCURRENCY} keep-alive connections, ${MS / 1000} s per target after a ${WARMUP_MS / 1000} s warm-up; RSS after the run ${fmt(svc.rssMiB())} MiB`);
  console.log('');
  console.log(`${'target'.padEnd(28)}${'requests'.padStart(9)}${'failed'.padStart(8)}${'req/s'.padStart(9)}${'p50 ms'.padStart(9)}${'p99 ms'.padStart(9)}${'of /healthz'.padStart(13)}`);
  for (const [name, r] of results) {
    console.log(`${name.padEnd(28)}${String(r.requests).padStart(9)}${String(r.failures).padStart(8)}${fmt(r.rps).padStart(9)}${fmt(r.p50, 2).padStart(9)}${fmt(r.p99, 2).padStart(9)}${`${fmt((100 * r.rps) / floor, 1)} %`.padStart(13)}`);
    if (r.firstFailure) console.log(`  first failure: ${r.firstFailure}`);
  }
  if (results.some(([, r]) => r.failures)) process.exitCode = 1;
} finally {
  agent.destroy();
  await svc.stop();
  await db?.drop();
}
