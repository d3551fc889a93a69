// Reads with and without a read replica, in one run on PostgreSQL: the members' GraphQL list of 20
// products, the storefront's public REST list of 20 and a member's REST product by id, first against a service with no
// replica, then against one whose SOUK_DATABASE_REPLICA_URLS names a streaming replica of the same
// server (made with pg_basebackup, as test/read-replicas.test.ts makes it). Prints req/s, p50,
// p99, the transactions the replica answered (pg_stat_database), and the ratios. On one machine
// the replica shares the CPUs with the primary: the ratio is the cost (or gain) of the routing
// here, not of a replica on its own host.
import { makeReplica } from '../test/pg-replica.js';
import { closedLoop, fmt, freshDatabase, json, machine, send, startChild, userAndStore, type LoadResult, type RunningService } from './lib.js';

const CONCURRENCY = 16;
const MS = Number(process.env.BENCH_SECONDS ?? 4) * 1000;
const WARMUP_MS = 1_000;
const UNLIMITED = { SOUK_STOREFRONT_MAX_READS_PER_ADDRESS: '100000000' };

const db = await freshDatabase('replicas');
const database = new URL(db.url).pathname.slice(1);
let svc: RunningService | null = await startChild(db.url, UNLIMITED);
const made = await makeReplica(db.url).catch((err: Error) => ({ skip: err.message }));
try {
  if ('skip' in made) {
    console.log(`souk bench:replicas skipped: ${made.skip}`);
    process.exit(0);
  }
  const { token, storeId } = await userAndStore(svc.url);
  await json(svc.url, 'PATCH', `/v1/stores/${storeId}`, { storefront: { limits: { readsPerAddress: 100000000 } } }, token);
  let productId = '';
  for (let i = 0; i < 60; i++) productId = (await json(svc.url, 'POST', `/v1/stores/${storeId}/products`, { name: `Product ${i}`, price: 100 + i, stock: 1000 }, token)).id;
  // A member that only reads: a caller's own writes would keep its reads on the primary.
  const email = `reader${Date.now()}@example.com`;
  const reader = await json(svc.url, 'POST', '/v1/users/auth/signup', { email, password: 'bench-password', name: 'Reader' });
  await json(svc.url, 'POST', `/v1/stores/${storeId}/members`, { email, role: 'admin' }, token);

  const targets = (port: number): Array<[string, () => Promise<{ status: number; text: string }>]> => {
    const body = JSON.stringify({ query: 'query($s: ID!) { products(storeId: $s, limit: 20) { data { id name price stock } nextCursor } }', variables: { s: storeId } });
    return [
      ['member GraphQL list of 20', () => send(port, 'POST', '/graphql', { 'content-type': 'application/json', authorization: `Bearer ${reader.token}` }, body)],
      ['public REST list of 20', () => send(port, 'GET', `/v1/storefront/${storeId}/products?limit=20`, {})],
      // Routed since every query reads from a replica (it was the primary's before).
      ['member REST product by id', () => send(port, 'GET', `/v1/stores/${storeId}/products/${productId}`, { authorization: `Bearer ${reader.token}` })],
    ];
  };
  const replicaXacts = async () => Number((await made.query<{ n: string }>(database, 'select xact_commit::text as n from pg_stat_database where datname = $1', [database]))[0].n);
  const measure = async (s: RunningService) => {
    const out = new Map<string, LoadResult & { replicaXacts: number }>();
    for (const [name, one] of targets(s.port)) {
      const first = await one();
      if (first.status >= 400 || first.text.includes('"errors"')) throw new Error(`${name} answered ${first.status}: ${first.text.slice(0, 300)}`);
      await closedLoop(CONCURRENCY, WARMUP_MS, 1e9, one, (st) => st < 400);
      const x0 = await replicaXacts();
      const r = await closedLoop(CONCURRENCY, MS, 1e9, one, (st) => st < 400);
      out.set(name, { ...r, replicaXacts: (await replicaXacts()) - x0 });
    }
    return out;
  };

  const without = await measure(svc);
  await svc.stop();
  svc = await startChild(db.url, { ...UNLIMITED, SOUK_DATABASE_REPLICA_URLS: made.url(database), SOUK_METRICS: '1' });
  // Until the service's first check found the replica well.
  for (let i = 0; ; i++) {
    const metrics = await (await fetch(`${svc.url}/metrics`)).text();
    if (/^souk_db_replica_up\{[^}]*\} 1$/m.test(metrics)) break;
    if (i > 100) throw new Error('the replica was never in use');
    await new Promise((r) => setTimeout(r, 100));
  }
  const withReplica = await measure(svc);

  console.log(`souk bench:replicas  ${machine()}, PostgreSQL and one streaming replica on this machine`);
  console.log(`${CONCURRENCY} keep-alive connections, ${MS / 1000} s per target after a ${WARMUP_MS / 1000} s warm-up`);
  console.log('');
  console.log(`${'target'.padEnd(40)}${'requests'.padStart(9)}${'failed'.padStart(8)}${'req/s'.padStart(9)}${'p50 ms'.padStart(9)}${'p99 ms'.padStart(9)}${'replica xacts'.padStart(15)}`);
  for (const [label, results] of [['no replica', without], ['replica', withReplica]] as const) {
    for (const [name, r] of results) {
      console.log(`${`${name}, ${label}`.padEnd(40)}${String(r.requests).padStart(9)}${String(r.failures).padStart(8)}${fmt(r.rps).padStart(9)}${fmt(r.p50, 2).padStart(9)}${fmt(r.p99, 2).padStart(9)}${String(r.replicaXacts).padStart(15)}`);
      if (r.firstFailure) console.log(`  first failure: ${r.firstFailure}`);
    }
  }
  console.log('');
  for (const name of without.keys()) {
    console.log(`${`${name}: with / without replica`.padEnd(52)} req/s ${fmt(withReplica.get(name)!.rps / without.get(name)!.rps, 2)}x`);
  }
} finally {
  await svc?.stop();
  if (!('skip' in made)) await made.remove();
  await db.drop();
}
