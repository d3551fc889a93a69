import type { LorRange } from './lor.range.js';

/**
 * The one SQL statement behind every lor answer, batches included. Scopes (stores, products or
 * landing pages) are the rows of `sc`; buckets come from generate_series over wall-clock times
 * in the zone, each turned into an instant by PostgreSQL (`at time zone`), so a day bucket
 * across a DST change lasts 23 or 25 hours. Each scope reads its window once, from a covering
 * index (orders (store_id, created_at), orders (store_id, landing_page_id, created_at) or
 * order_products (product_id, created_at)); width_bucket places each order in its bucket
 * (a binary search over the bucket starts), and the counts are grouped by status before the
 * status kinds are joined. Every estimate stays small, so no plan crosses the JIT threshold.
 */

export type LorScope =
  /** Stores by id; with `memberOf`, only those the user belongs to are found. */
  | { kind: 'store'; storeIds: string[]; memberOf?: string }
  | { kind: 'product'; storeId: string; productIds: string[] }
  | { kind: 'landingPage'; storeId: string; landingPageIds: string[] };

/** One bucket as the statement returns it: `[start wall clock, offset s, orders, completed, cancelled, returned, confirmed, revenue minor, units]`. */
export type LorBucketRow = [string, number, number, number, number, number, number, number, number];

/** One row per scope, in the order asked; its buckets come as one JSON array, oldest first. */
export interface LorRow {
  key: string;
  found: boolean;
  currency: string | null;
  computed_at: Date;
  from_local: string;
  from_offset: number;
  to_local: string;
  to_offset: number;
  last_item: Date | null;
  buckets: LorBucketRow[] | null;
}

/** Kinds as the report classifies them (CONTRACT-2 §12). */
const COMPLETED = `('fulfilled')`;
const CANCELLED = `('cancelled','rejected','returned')`;

const LOCAL_TEXT = `'YYYY-MM-DD"T"HH24:MI:SS.MS'`;

export function lorStatement(scope: LorScope, range: LorRange): { sql: string; params: unknown[] } {
  const params: unknown[] = [];
  const v = (value: unknown) => {
    params.push(value);
    return '?';
  };

  const keys = scope.kind === 'store' ? scope.storeIds : scope.kind === 'product' ? scope.productIds : scope.landingPageIds;
  let scopes: () => string;
  let source: { table: string; match: (r: string, key: string) => string; amount: string; units: string };
  if (scope.kind === 'store') {
    const member = () => scope.memberOf
      ? ` and exists (select 1 from store_members m where m.store_id = st.id and m.user_id = ${v(scope.memberOf)})`
      : '';
    scopes = () => `select x.key, x.pos, st.id is not null as found, st.currency
      from jsonb_array_elements_text(${v(JSON.stringify(keys))}::jsonb) with ordinality as x(key, pos)
      left join stores st on st.id = x.key${member()}`;
    source = { table: 'orders', match: (r, key) => `${r}.store_id = ${key}`, amount: 'r.total', units: 'null::bigint' };
  } else {
    const table = scope.kind === 'product' ? 'products' : 'product_landing_pages';
    const storeId = scope.storeId;
    scopes = () => `select x.key, x.pos, t.id is not null as found, st.currency
      from jsonb_array_elements_text(${v(JSON.stringify(keys))}::jsonb) with ordinality as x(key, pos)
      left join ${table} t on t.store_id = ${v(storeId)} and t.id = x.key
      left join stores st on st.id = t.store_id`;
    source =
      scope.kind === 'product'
        ? // The product was found in the store (sc); its id is unique across stores.
          { table: 'order_products', match: (r, key) => `${r}.product_id = ${key}`, amount: 'r.amount', units: 'r.quantity' }
        : { table: 'orders', match: (r, key) => `${r}.store_id = ${v(storeId)} and ${r}.landing_page_id = ${key}`, amount: 'r.total', units: 'null::bigint' };
  }

  // Fragments are functions: each placeholder's value is pushed where the text is written.
  const bound = (b: LorRange['from']) => (b.instant !== null ? `${v(b.instant)}::timestamptz` : `(${v(b.local)}::timestamp at time zone ${v(range.tz)})`);
  const step = { day: '1 day', week: '7 days', month: '1 month' }[range.interval];

  const sql = `with p as materialized (
      select ${bound(range.from)} as f, ${bound(range.to)} as t, ${v(range.tz)}::text as tz
    ),
    sc as materialized (${scopes()}),
    b as materialized (
      select x.n, x.g at time zone p.tz as s,
             to_char((x.g at time zone p.tz) at time zone p.tz, ${LOCAL_TEXT}) as start_local,
             extract(epoch from ((x.g at time zone p.tz) at time zone p.tz) - ((x.g at time zone p.tz) at time zone 'UTC'))::int as start_offset
        from p, lateral (
          select n + 1 as n, date_trunc('${range.interval}', p.f at time zone p.tz) + n * interval '${step}' as g
            from generate_series(0, ${Number(range.buckets)}) as n
        ) x
       where x.g < p.t at time zone p.tz
    ),
    a as (
      select sc.key, x.n, x.status_id, x.conf, x.c, x.amount, x.units
        from sc cross join p
        cross join lateral (
          select width_bucket(r.created_at, (select array_agg(b.s order by b.n) from b)) as n,
                 r.status_id, r.confirmed_at is not null as conf, count(*) as c, sum(${source.amount}) as amount, sum(${source.units}) as units
            from ${source.table} r
           where ${source.match('r', 'sc.key')} and r.created_at >= p.f and r.created_at < p.t
           group by 1, r.status_id, conf
        ) x
       where sc.found
    ),
    k as (
      select a.key, a.n,
             sum(a.c) as orders,
             coalesce(sum(a.c) filter (where s.kind in ${COMPLETED}), 0) as completed,
             coalesce(sum(a.c) filter (where s.kind in ${CANCELLED}), 0) as cancelled,
             coalesce(sum(a.c) filter (where s.kind = 'returned'), 0) as returned,
             coalesce(sum(a.c) filter (where a.conf), 0) as confirmed,
             coalesce(sum(a.amount) filter (where s.kind in ${COMPLETED}), 0) as revenue,
             coalesce(sum(a.units) filter (where s.kind in ${COMPLETED}), 0) as units
        from a left join order_statuses s on s.id = a.status_id
       group by a.key, a.n
    ),
    last as (
      select sc.key, (select max(r.created_at) from ${source.table} r where ${source.match('r', 'sc.key')}) as last_item
        from sc where sc.found
    ),
    bk as (
      select sc.key,
             json_agg(json_build_array(b.start_local, b.start_offset, coalesce(k.orders, 0), coalesce(k.completed, 0), coalesce(k.cancelled, 0),
                                       coalesce(k.returned, 0), coalesce(k.confirmed, 0), coalesce(k.revenue, 0), coalesce(k.units, 0)) order by b.n) as buckets
        from sc join b on sc.found
        left join k on k.key = sc.key and k.n = b.n
       group by sc.key
    )
    select sc.key, sc.found, sc.currency, now() as computed_at,
           to_char(p.f at time zone p.tz, ${LOCAL_TEXT}) as from_local,
           extract(epoch from (p.f at time zone p.tz) - (p.f at time zone 'UTC'))::int as from_offset,
           to_char(p.t at time zone p.tz, ${LOCAL_TEXT}) as to_local,
           extract(epoch from (p.t at time zone p.tz) - (p.t at time zone 'UTC'))::int as to_offset,
           last.last_item, bk.buckets
      from sc cross join p
      left join last on last.key = sc.key
      left join bk on bk.key = sc.key
     order by sc.pos`;
  return { sql, params };
}
