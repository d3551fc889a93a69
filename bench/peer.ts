// The operations the Vendure peer (../shared/tools/vendure-peer) is compared on, against the
// service in a child process (as `npm start` runs it, LOG_LEVEL warn as the peer harness runs it)
// on PostgreSQL: product by id, a list of 20 products, a price update (a mutation with its event),
// an order create naming a product and one carrying its own name and price, all over GraphQL.
// Beside req/s it prints the CPU each operation costs, in the service's process and in
// PostgreSQL's backends (from /proc): on a shared machine req/s moves with the neighbours' load,
// CPU per operation much less. BENCH_VENDURE=http://127.0.0.1:3100 (a peer started by the
// harness's start.sh and seeded by its seed.mjs, pid file beside it) measures Vendure's twins in
// the same run, interleaved, and prints Souk ÷ Vendure for both.
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { closedLoop, cpuMs, fmt, freshDatabase, json, machine, PG_ADMIN_URL, send, startChild, agent } from './lib.js';

const CONCURRENCY = 10;
const MS = Number(process.env.BENCH_SECONDS ?? 4) * 1000;
const WARMUP_MS = 1_000;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);

/** CPU of the PostgreSQL backends connected to one database. */
async function backendsOf(database: string): Promise<number[]> {
  const c = new pg.Client({ connectionString: PG_ADMIN_URL });
  await c.connect();
  try {
    const { rows } = await c.query('select pid from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [database]);
    return rows.map((r) => Number(r.pid));
  } finally {
    await c.end();
  }
}

interface Case {
  name: string;
  one: (i: number) => Promise<{ status: number; text: string }>;
  pid: number;
  database: string;
}
interface Measured {
  rps: number[];
  p99: number[];
  appMs: number[];
  dbMs: number[];
}

async function measure(c: Case): Promise<{ rps: number; p99: number; appMs: number; dbMs: number }> {
  await closedLoop(CONCURRENCY, WARMUP_MS, 1e9, c.one);
  const backends = await backendsOf(c.database);
  const app0 = cpuMs(c.pid);
  const db0 = backends.reduce((s, p) => s + cpuMs(p), 0);
  const r = await closedLoop(CONCURRENCY, MS, 1e9, c.one);
  const app = cpuMs(c.pid) - app0;
  const db = backends.reduce((s, p) => s + cpuMs(p), 0) - db0;
  if (r.failures) throw new Error(`${c.name}: ${r.failures} failed, first: ${r.firstFailure}`);
  return { rps: r.rps, p99: r.p99, appMs: app / r.requests, dbMs: db / r.requests };
}

const gqlCall = (port: number, path: string, token: string | null, query: string, variables: (i: number) => Record<string, unknown>) => async (i: number) => {
  const res = await send(port, 'POST', path, { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, JSON.stringify({ query, variables: variables(i) }));
  // A GraphQL error is a failure here, as in the peer harness.
  return res.text.includes('"errors"') ? { status: 500, text: res.text } : res;
};

const db = await freshDatabase('peer');
const svc = await startChild(db.url, { LOG_LEVEL: 'warn' });
const cases: Case[] = [];
try {
  const { token } = await json(svc.url, 'POST', '/v1/users/auth/signup', { email: `peer${Date.now()}@example.com`, password: 'bench-password', name: 'Peer' });
  const store = await json(svc.url, 'POST', '/v1/stores', { name: 'Peer Store' }, token);
  const ids: string[] = [];
  for (let i = 1; i <= 200; i++) {
    ids.push((await json(svc.url, 'POST', `/v1/stores/${store.id}/products`, { name: `peer-product-${i}`, price: Number((10 + i / 100).toFixed(2)), stock: 1_000_000 }, token)).id);
  }
  const database = new URL(db.url).pathname.slice(1);
  const souk = (name: string, query: string, variables: (i: number) => Record<string, unknown> = () => ({})) =>
    cases.push({ name: `souk.${name}`, one: gqlCall(svc.port, '/graphql', token, query, variables), pid: svc.proc.pid!, database });
  const s = store.id;
  const byId = (i: number) => ({ id: ids[i % ids.length] });
  souk('product', `query($id: ID!) { product(storeId: "${s}", id: $id) { name slug price stock } }`, byId);
  souk('products', `{ products(storeId: "${s}", limit: 20) { data { id name slug } nextCursor } }`);
  souk('updatePrice', `mutation($id: ID!, $p: Float!) { updateProduct(storeId: "${s}", id: $id, input: { price: $p }) { id price } }`, (i) => ({ ...byId(i), p: Number((10 + (i % 1000) / 100).toFixed(2)) }));
  souk('createOrder', `mutation($id: ID!) { createOrder(storeId: "${s}", input: { customerName: "Bench Buyer", customerPhone: "0555000111", items: [{ productId: $id, quantity: 1 }] }) { id total } }`, byId);
  souk('createOrderPlain', `mutation { createOrder(storeId: "${s}", input: { customerName: "Bench Buyer", customerPhone: "0555000111", items: [{ name: "Tea", price: 4.5, quantity: 1 }] }) { id total } }`);

  const vendure = process.env.BENCH_VENDURE?.replace(/\/$/, '');
  if (vendure) {
    const dir = process.env.BENCH_VENDURE_DIR ?? '/tmp/peer-vendure';
    const pid = Number(readFileSync(`${dir}/vendure-${new URL(vendure).port}.pid`, 'utf8'));
    const login = await fetch(`${vendure}/admin-api`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'mutation { login(username: "superadmin", password: "peer-vendure-admin") { ... on CurrentUser { id } } }' }),
    });
    const admin = login.headers.get('vendure-auth-token');
    const seeded = JSON.parse(readFileSync(process.env.BENCH_VENDURE_IDS ?? `${dir}/seed-ids.json`, 'utf8')) as { productIds: string[]; variantIds: string[] };
    const port = Number(new URL(vendure).port);
    const v = (name: string, path: string, auth: string | null, query: string, variables: (i: number) => Record<string, unknown> = () => ({})) =>
      cases.push({ name: `vendure.${name}`, one: gqlCall(port, path, auth, query, variables), pid, database: process.env.BENCH_VENDURE_DB ?? 'vendure_peer' });
    v('product', '/shop-api', null, 'query($id: ID!) { product(id: $id) { name slug variants { price stockLevel } } }', (i) => ({ id: seeded.productIds[i % seeded.productIds.length] }));
    v('products', '/shop-api', null, '{ products(options: { take: 20 }) { totalItems items { id name slug } } }');
    v('updatePrice', '/admin-api', admin, 'mutation($id: ID!, $p: Money!) { updateProductVariants(input: [{ id: $id, price: $p }]) { id price } }', (i) => ({ id: seeded.variantIds[i % seeded.variantIds.length], p: 1000 + (i % 1000) }));
  }

  // BENCH_ONLY=souk.updatePrice,... measures only those (for a profile of one operation).
  const only = process.env.BENCH_ONLY?.split(',');
  if (only) cases.splice(0, cases.length, ...cases.filter((c) => only.includes(c.name)));
  const results = new Map<string, Measured>(cases.map((c) => [c.name, { rps: [], p99: [], appMs: [], dbMs: [] }]));
  // Rounds interleave the cases, so a change in the neighbours' load falls on all of them alike.
  for (let round = 0; round < ROUNDS; round++) {
    for (const c of cases) {
      const m = await measure(c);
      const r = results.get(c.name)!;
      r.rps.push(m.rps);
      r.p99.push(m.p99);
      r.appMs.push(m.appMs);
      r.dbMs.push(m.dbMs);
    }
  }
  const median = (a: number[]) => [...a].sort((x, y) => x - y)[(a.length - 1) >> 1];
  console.log(`souk bench:peer  ${machine()}, PostgreSQL, LOG_LEVEL warn`);
  console.log(`${CONCURRENCY} keep-alive connections, ${ROUNDS} interleaved rounds of ${MS / 1000} s per case after a ${WARMUP_MS / 1000} s warm-up; medians`);
  console.log('');
  console.log(`${'case'.padEnd(24)}${'req/s'.padStart(8)}${'p99 ms'.padStart(9)}${'app CPU ms/op'.padStart(15)}${'db CPU ms/op'.padStart(14)}${'total ms/op'.padStart(13)}`);
  const agg = new Map([...results].map(([n, r]) => [n, { rps: median(r.rps), p99: median(r.p99), app: median(r.appMs), db: median(r.dbMs) }]));
  for (const [n, a] of agg) {
    console.log(`${n.padEnd(24)}${fmt(a.rps).padStart(8)}${fmt(a.p99, 1).padStart(9)}${fmt(a.app, 2).padStart(15)}${fmt(a.db, 2).padStart(14)}${fmt(a.app + a.db, 2).padStart(13)}`);
  }
  if (vendure && !only) {
    console.log('');
    console.log('Souk ÷ Vendure: req/s in the same rounds, and Vendure CPU per op ÷ Souk CPU per op (service + database)');
    for (const name of ['product', 'products', 'updatePrice']) {
      const sk = agg.get(`souk.${name}`)!;
      const vd = agg.get(`vendure.${name}`)!;
      console.log(`  ${name.padEnd(14)} req/s ${fmt(sk.rps / vd.rps, 1)}×   CPU ${fmt((vd.app + vd.db) / (sk.app + sk.db), 1)}×`);
    }
    const vu = agg.get('vendure.updatePrice')!;
    const co = agg.get('souk.createOrder')!;
    console.log(`  order create naming a product ÷ Vendure's price update: req/s ${fmt(co.rps / vu.rps, 1)}×   CPU ${fmt((vu.app + vu.db) / (co.app + co.db), 1)}×`);
  }
  const plain = agg.get('souk.createOrderPlain');
  const named = agg.get('souk.createOrder');
  if (plain && named) console.log(`order create naming a product ÷ plain create: req/s ${fmt(named.rps / plain.rps, 2)}, CPU ${fmt((plain.app + plain.db) / (named.app + named.db), 2)}`);
} finally {
  agent.destroy();
  await svc.stop();
  await db.drop();
}
