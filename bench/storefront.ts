// The storefront beside the members' API, in one run against one service in a child process
// (as `npm start` runs it) on PostgreSQL: a product read and a list of 20, public (REST and
// GraphQL) against the members' GraphQL reads; a 304 revalidation against a full public read; a
// guest checkout against a member's order create (every shopper from one address, whose limit row
// then serializes the checkouts, and each from their own). 16 keep-alive connections; prints req/s, p50,
// p99, the service's CPU per request (steadier than req/s on a shared machine) and the ratios.
import { agent, closedLoop, cpuMs, fmt, freshDatabase, json, machine, send, startChild, userAndStore, type LoadResult } from './lib.js';

const CONCURRENCY = 16;
const MS = Number(process.env.BENCH_SECONDS ?? 4) * 1000;
const WARMUP_MS = 1_000;
/**
 * Limits far above what the run asks, so the numbers are the work's and not the limiter's refusals.
 * The service trusts the loopback proxy's X-Forwarded-For: one checkout target sends each shopper
 * from an address of their own (198.18.0.0/15, the range set aside for benchmarks; only a header).
 */
const UNLIMITED = {
  SOUK_TRUST_PROXY: '127.0.0.1', SOUK_STOREFRONT_MAX_READS_PER_ADDRESS: '100000000', SOUK_STOREFRONT_MAX_CHECKOUTS_PER_ADDRESS: '1000000', SOUK_STOREFRONT_MAX_CHECKOUTS_PER_PHONE: '1000000' };

const db = await freshDatabase('storefront');
const svc = await startChild(db.url, UNLIMITED);
try {
  const { token, storeId } = await userAndStore(svc.url);
  const store = await json(svc.url, 'PATCH', `/v1/stores/${storeId}`, { storefront: { limits: { checkoutsPerAddress: 1000000, checkoutsPerPhone: 1000000, readsPerAddress: 100000000 } } }, token);
  const slug: string = store.slug;
  const products = [];
  for (let i = 0; i < 60; i++) {
    products.push(await json(svc.url, 'POST', `/v1/stores/${storeId}/products`, { name: `Product ${i}`, price: 100 + i, stock: 1_000_000, description: 'A product of the benchmark' }, token));
  }
  await json(svc.url, 'POST', `/v1/shipping_methods?storeId=${storeId}`, { name: 'Courier', price: 400, status: 'published' }, token);
  const p = products[30];
  const auth = { authorization: `Bearer ${token}` };
  const jsonHeaders = { 'content-type': 'application/json' };
  const gql = (query: string, variables: Record<string, unknown>, headers: Record<string, string> = {}) => {
    const body = JSON.stringify({ query, variables });
    return () => send(svc.port, 'POST', '/graphql', { ...headers, ...jsonHeaders }, body);
  };
  const etag = await fetch(`${svc.url}/v1/storefront/${slug}/products/${p.id}`).then((r) => r.headers.get('etag')!);
  const shopper = (i: number) => ({
    customerName: `Shopper ${i}`,
    // A different phone each time: a shopper's second identical cart would be a duplicate (409).
    customerPhone: `0555${String(i % 1_000_000).padStart(6, '0')}`,
    shipping: { state: '16', city: 'Alger Centre', type: 'home' },
    items: [{ productId: p.id, quantity: 1 }],
  });
  let checkouts = 0;
  let creates = 0;
  const targets: Array<[string, (i: number) => Promise<{ status: number; text: string }>]> = [
    ['member GraphQL product(id)', gql('query($s: ID!, $id: ID!) { product(storeId: $s, id: $id) { id name price stock } }', { s: storeId, id: p.id }, auth)],
    ['public REST product', () => send(svc.port, 'GET', `/v1/storefront/${slug}/products/${p.id}`, {})],
    ['public GraphQL product', gql('query($s: String!, $id: String!) { storefront(store: $s) { product(idOrSlug: $id) { id name price inStock } } }', { s: slug, id: p.id })],
    ['public REST product, 304', () => send(svc.port, 'GET', `/v1/storefront/${slug}/products/${p.id}`, { 'if-none-match': etag })],
    ['member GraphQL list of 20', gql('query($s: ID!) { products(storeId: $s, limit: 20) { data { id name price stock } nextCursor } }', { s: storeId }, auth)],
    // The same fields as the public REST list answers: the bytes written are most of a list's cost here.
    [
      'member GraphQL list, REST fields',
      gql('query($s: ID!) { products(storeId: $s, limit: 20) { data { id slug name description price compareAtPrice photoUrl images sku stock createdAt updatedAt } nextCursor } }', { s: storeId }, auth),
    ],
    ['public REST list of 20', () => send(svc.port, 'GET', `/v1/storefront/${slug}/products?limit=20`, {})],
    ['public GraphQL list of 20', gql('query($s: String!) { storefront(store: $s) { products(limit: 20) { data { id name price inStock } nextCursor } } }', { s: slug })],
    [
      'member order create',
      () => send(svc.port, 'POST', `/v1/stores/${storeId}/orders`, { ...auth, ...jsonHeaders }, JSON.stringify({ customerName: `Buyer ${creates++}`, items: [{ productId: p.id, quantity: 1 }] })),
    ],
    ['guest checkout', () => send(svc.port, 'POST', `/v1/storefront/${slug}/orders`, jsonHeaders, JSON.stringify(shopper(checkouts++)))],
    [
      'guest checkout, many addresses',
      () => {
        const i = checkouts++;
        return send(svc.port, 'POST', `/v1/storefront/${slug}/orders`, { ...jsonHeaders, 'x-forwarded-for': `198.18.${(i >> 8) & 255}.${i & 255}` }, JSON.stringify(shopper(i)));
      },
    ],
  ];
  const results = new Map<string, LoadResult & { cpuPerReq: number }>();
  // BENCH_TARGETS=regex runs only the targets it matches (a profile of one of them).
  const only = process.env.BENCH_TARGETS ? new RegExp(process.env.BENCH_TARGETS) : null;
  for (const [name, one] of targets) {
    if (only && !only.test(name)) continue;
    const first = await one(0);
    if (first.status >= 400 || first.text.includes('"errors"')) throw new Error(`${name} answered ${first.status}: ${first.text.slice(0, 300)}`);
    await closedLoop(CONCURRENCY, WARMUP_MS, 1e9, one, (s) => s < 400);
    const cpu0 = cpuMs(svc.proc.pid!);
    const r = await closedLoop(CONCURRENCY, MS, 1e9, one, (s) => s < 400);
    results.set(name, { ...r, cpuPerReq: (cpuMs(svc.proc.pid!) - cpu0) / r.requests });
  }
  console.log(`souk bench:storefront  ${machine()}, PostgreSQL`);
  console.log(`${CONCURRENCY} keep-alive connections, ${MS / 1000} s per target after a ${WARMUP_MS / 1000} s warm-up`);
  console.log('');
  console.log(`${'target'.padEnd(33)}${'requests'.padStart(9)}${'failed'.padStart(8)}${'req/s'.padStart(9)}${'p50 ms'.padStart(9)}${'p99 ms'.padStart(9)}${'CPU ms/req'.padStart(12)}`);
  for (const [name, r] of results) {
    console.log(`${name.padEnd(33)}${String(r.requests).padStart(9)}${String(r.failures).padStart(8)}${fmt(r.rps).padStart(9)}${fmt(r.p50, 2).padStart(9)}${fmt(r.p99, 2).padStart(9)}${fmt(r.cpuPerReq, 3).padStart(12)}`);
    if (r.firstFailure) console.log(`  first failure: ${r.firstFailure}`);
  }
  const ratio = (a: string, b: string, what: string, goal: string) => {
    const x = results.get(a);
    const y = results.get(b);
    if (!x || !y) return;
    console.log(`${what.padEnd(52)} req/s ${fmt(x.rps / y.rps, 2)}x, CPU per request ${fmt(x.cpuPerReq / y.cpuPerReq, 2)}x  (goal ${goal})`);
  };
  console.log('');
  ratio('public REST product', 'member GraphQL product(id)', 'public product read / members\' GraphQL read', 'req/s >= 1x');
  ratio('public GraphQL product', 'member GraphQL product(id)', 'public GraphQL product / members\' GraphQL read', 'req/s >= 1x');
  ratio('public REST list of 20', 'member GraphQL list of 20', 'public list of 20 / members\' GraphQL list', 'req/s >= 1x');
  ratio('public REST list of 20', 'member GraphQL list, REST fields', 'public list of 20 / members\' list, same fields', 'req/s >= 1x');
  ratio('public REST product, 304', 'public REST product', '304 revalidation / full public read', 'req/s >= 5x');
  ratio('guest checkout', 'member order create', 'guest checkout, one address / member create', 'CPU per request <= 1.5x');
  ratio('guest checkout, many addresses', 'member order create', 'guest checkout, many addresses / member create', 'CPU per request <= 1.5x');
  if ([...results.values()].some((r) => r.failures)) process.exitCode = 1;
} finally {
  agent.destroy();
  await svc.stop();
  await db.drop();
}
