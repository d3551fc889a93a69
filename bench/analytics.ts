// The lite orders report (lor) on a big store: 1,000,000 orders over the last year across 100
// products, seeded with one generate_series insert (the order_products triggers run on it as on
// any write). Times, through the real HTTP routes, the store-wide report for a year by ISO week
// and a 100-product batch (the default 8 days, and the same year by week), and prints the
// figures beside the statement's own time and the CPU time both spent. Needs PostgreSQL:
// DATABASE_URL names a server where a throwaway database is created and dropped.
// Goal: each report under 500 ms.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { startService } from '../src/service.js';
import { freshDatabase } from '../test/helpers.js';
import { lorStatement } from '../src/domains/analytics/lor.query.js';
import { parseRange } from '../src/domains/analytics/lor.range.js';

const ORDERS = 1_000_000;
const PRODUCTS = 100;
const RUNS = 7;
const GOAL_MS = 500;
/** Linux's USER_HZ: /proc/<pid>/stat counts CPU time in these ticks. */
const CLOCK_TICKS = 100;

if (!process.env.DATABASE_URL) {
  console.error('bench:analytics needs PostgreSQL: set DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/postgres)');
  process.exit(2);
}

const db = await freshDatabase();
const dataDir = mkdtempSync(join(tmpdir(), 'souk-bench-'));
const service = await startService(
  loadConfig({ NODE_ENV: 'test', DATABASE_URL: db.url!, SOUK_DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', SOUK_AUTH_RATE_LIMIT: '100000', SOUK_AUTH_RATE_LIMIT_IP: '100000' }),
);
const pgc = new pg.Client({ connectionString: db.url! });
await pgc.connect();

async function api(method: string, path: string, token: string | null, body?: unknown) {
  const res = await fetch(service.url + path, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 500)}`);
  return JSON.parse(text);
}

try {
  const { token } = await api('POST', '/v1/users/auth/signup', null, { email: `bench${Date.now()}@example.com`, password: 'correct horse battery', name: 'Bench' });
  const store = await api('POST', '/v1/stores', token, { name: 'Bench store' });

  let t0 = performance.now();
  const products = await pgc.query<{ id: string }>(
    `insert into products (id, store_id, name, slug, price, stock, status, metadata, created_at, updated_at)
     select 'prod_bench' || lpad(i::text, 4, '0'), $1, 'Product ' || i, 'product-' || i, 100 * (1 + i % 50), 0, 'active', '{}', now(), now()
       from generate_series(1, ${PRODUCTS}) i returning id`,
    [store.id],
  );
  const productIds = products.rows.map((r) => r.id).sort();
  // Status mix: a realistic share of each kind, by position in the default list.
  const statuses = await pgc.query<{ id: string; kind: string }>('select id, kind from order_statuses where store_id = $1 order by position', [store.id]);
  const weighted = statuses.rows.flatMap((s) => Array(({ new: 2, confirmed: 2, other: 1, fulfilled: 8, returned: 1, cancelled: 2, rejected: 1 } as Record<string, number>)[s.kind] ?? 1).fill(s));
  await pgc.query(
    `insert into orders (id, store_id, customer_name, items, total, status_id, status, metadata, created_at, updated_at, confirmed_at)
     select 'ord_bench' || lpad(g.i::text, 8, '0'), $1, 'Customer ' || g.i, g.items, g.total, st.id, st.slug, '{}', g.at, g.at,
            case when $3::text[] @> array[st.kind] then g.at + interval '1 hour' end
       from (
         select i, now() - interval '365 days' + (i * interval '365 days' / ${ORDERS}) as at,
                case when i % 3 = 0
                  then jsonb_build_array(jsonb_build_object('productId', ($2::text[])[1 + i % ${PRODUCTS}], 'name', 'P', 'quantity', 1 + i % 3, 'price', 100 * (1 + (i % ${PRODUCTS}) % 50)),
                                         jsonb_build_object('productId', ($2::text[])[1 + (i * 7 + 3) % ${PRODUCTS}], 'name', 'Q', 'quantity', 1, 'price', 100 * (1 + ((i * 7 + 3) % ${PRODUCTS}) % 50)))
                  else jsonb_build_array(jsonb_build_object('productId', ($2::text[])[1 + i % ${PRODUCTS}], 'name', 'P', 'quantity', 1 + i % 3, 'price', 100 * (1 + (i % ${PRODUCTS}) % 50)))
                end as items,
                100 * (1 + (i % ${PRODUCTS}) % 50) * (1 + i % 3) + case when i % 3 = 0 then 100 * (1 + ((i * 7 + 3) % ${PRODUCTS}) % 50) else 0 end as total,
                ($4::text[])[1 + (i * 2654435761) % ${weighted.length}] as status_id
           from generate_series(1, ${ORDERS}) i
       ) g join order_statuses st on st.id = g.status_id`,
    [store.id, productIds, ['confirmed', 'fulfilled', 'returned'], weighted.map((s) => s.id)],
  );
  const seeded = performance.now() - t0;
  t0 = performance.now();
  await pgc.query('vacuum analyze orders');
  await pgc.query('vacuum analyze order_products');
  const vacuumed = performance.now() - t0;
  const counts = (await pgc.query('select (select count(*) from orders) as orders, (select count(*) from order_products) as lines')).rows[0];
  console.log(`seeded ${Number(counts.orders).toLocaleString('en')} orders (${Number(counts.lines).toLocaleString('en')} order_products rows) over 365 days across ${PRODUCTS} products in ${(seeded / 1000).toFixed(1)} s (one insert, triggers included); vacuum analyze ${(vacuumed / 1000).toFixed(1)} s`);

  const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
  const year = { from: day(-365), to: day(1), interval: 'week', tz: 'Africa/Algiers' };

  const stats = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return { min: s[0], median: s[Math.floor(s.length / 2)], max: s[s.length - 1] };
  };
  /**
   * CPU time spent so far by this process (the service runs in it) and by the database's server
   * processes (read from /proc when PostgreSQL runs on this machine): wall times on a shared
   * machine depend on its load, CPU times much less.
   */
  async function cpuMs(): Promise<{ node: number; db: number | null }> {
    const node = process.cpuUsage();
    const pids = (await pgc.query<{ pid: number }>('select pid from pg_stat_activity where datname = current_database()')).rows.map((r) => r.pid);
    let db: number | null = 0;
    for (const pid of pids) {
      try {
        const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
        db += (Number(fields[11]) + Number(fields[12])) * (1000 / CLOCK_TICKS);
      } catch {
        db = null;
        break;
      }
    }
    return { node: (node.user + node.system) / 1000, db };
  }
  const load = () => loadavg()[0].toFixed(1);
  const results: Array<{ name: string; median: number; cpu: string }> = [];

  /** HTTP round trips (auth, policy, the statement, GraphQL, JSON) after one warm-up call. */
  async function timeHttp(name: string, call: () => Promise<any>, check: (body: any) => string) {
    const first = await call();
    const ms: number[] = [];
    const before = await cpuMs();
    for (let i = 0; i < RUNS; i++) {
      const s = performance.now();
      await call();
      ms.push(performance.now() - s);
    }
    const after = await cpuMs();
    const node = (after.node - before.node) / RUNS;
    const db = before.db !== null && after.db !== null ? (after.db - before.db) / RUNS : null;
    const cpu = `${(node + (db ?? 0)).toFixed(0)} ms CPU (node ${node.toFixed(0)}${db === null ? '' : ` + postgres ${db.toFixed(0)}`})`;
    const r = stats(ms);
    results.push({ name, median: r.median, cpu });
    console.log(`${name}: HTTP median ${r.median.toFixed(0)} ms (min ${r.min.toFixed(0)}, max ${r.max.toFixed(0)}), ${cpu} per request, load ${load()}; ${check(first)}`);
  }
  /** The statement alone, on its own connection: wall time and the server process's CPU time. */
  async function timeSql(name: string, scope: Parameters<typeof lorStatement>[0], args: Parameters<typeof parseRange>[0]) {
    const { sql, params } = lorStatement(scope, parseRange(args));
    let n = 0;
    const text = sql.replace(/\?/g, () => `$${++n}`);
    await pgc.query(text, params);
    const ms: number[] = [];
    const before = await cpuMs();
    for (let i = 0; i < RUNS; i++) {
      const s = performance.now();
      await pgc.query(text, params);
      ms.push(performance.now() - s);
    }
    const after = await cpuMs();
    const db = before.db !== null && after.db !== null ? `, postgres CPU ${((after.db - before.db) / RUNS).toFixed(0)} ms` : '';
    const r = stats(ms);
    console.log(`${name}: statement alone median ${r.median.toFixed(0)} ms (min ${r.min.toFixed(0)}, max ${r.max.toFixed(0)})${db}`);
  }

  const q = (o: Record<string, string>) => new URLSearchParams(o).toString();
  console.log(`machine: ${cpus().length} CPUs, load ${load()} (wall times grow with the load of a shared machine; CPU times much less)`);
  await timeHttp(
    'store, a year by week (Africa/Algiers)',
    () => api('GET', `/v1/stores/${store.id}/analytics/lor?${q(year)}`, token),
    (b) => `${b.lor.buckets.length} buckets, ${b.lor.totals.orders.toLocaleString('en')} orders, revenue ${b.lor.totals.revenue.toLocaleString('en')}`,
  );
  await timeSql('store, a year by week (Africa/Algiers)', { kind: 'store', storeIds: [store.id] }, year);
  await timeHttp(
    '100-product batch, default 8 days',
    () => api('POST', `/v1/stores/${store.id}/products/analytics/lor/batch`, token, { productIds }),
    (b) => `${b.data.length} reports, ${b.data.reduce((s: number, d: any) => s + d.lor.totals.orders, 0).toLocaleString('en')} product-orders`,
  );
  await timeSql('100-product batch, default 8 days', { kind: 'product', storeId: store.id, productIds }, {});
  await timeHttp(
    '100-product batch, a year by week',
    () => api('POST', `/v1/stores/${store.id}/products/analytics/lor/batch`, token, { productIds, ...year }),
    (b) => `${b.data.length} reports of ${b.data[0].lor.buckets.length} buckets, ${b.data.reduce((s: number, d: any) => s + d.lor.totals.orders, 0).toLocaleString('en')} product-orders`,
  );
  await timeSql('100-product batch, a year by week', { kind: 'product', storeId: store.id, productIds }, year);
  await timeHttp(
    'one product, a year by day',
    () => api('GET', `/v1/stores/${store.id}/products/${productIds[0]}/analytics/lor?${q({ ...year, interval: 'day' })}`, token),
    (b) => `${b.lor.buckets.length} buckets, ${b.lor.totals.orders.toLocaleString('en')} orders`,
  );
  console.log(`\ngoal: each report under ${GOAL_MS} ms`);
  for (const r of results) console.log(`  ${r.median < GOAL_MS ? 'under' : 'OVER '}  ${r.name}: ${r.median.toFixed(0)} ms wall, ${r.cpu}`);
} finally {
  await pgc.end();
  await service.close();
  await db.drop();
  rmSync(dataDir, { recursive: true, force: true });
}
