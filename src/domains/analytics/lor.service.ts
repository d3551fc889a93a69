import { requireActor, type Ctx } from '../../core/context.js';
import { AppError, invalid, notFound } from '../../core/errors.js';
import { DEFAULT_CURRENCY, sumMinor, toMajor } from '../../core/money.js';
import { PERMISSIONS } from '../../core/policy.js';
import { lorStatement, type LorRow, type LorScope } from './lor.query.js';
import { parseRange, type LorRange, type RangeArgs } from './lor.range.js';
import type { LorBucketType, LorType, ProductLorBatchInput, ProductLorBatchType, StoreLorBatchInput, StoreLorBatchType } from './lor.types.js';

/** `2026-03-29T00:00:00.000` and +7200 s → `2026-03-29T00:00:00+02:00` (milliseconds kept when not zero). */
function withOffset(local: string, offsetSeconds: number): string {
  const sign = offsetSeconds < 0 ? '-' : '+';
  const abs = Math.abs(offsetSeconds);
  const hh = String(Math.floor(abs / 3600)).padStart(2, '0');
  const mm = String(Math.floor((abs % 3600) / 60)).padStart(2, '0');
  const ss = abs % 60 ? `:${String(abs % 60).padStart(2, '0')}` : '';
  return `${local.replace(/\.000$/, '')}${sign}${hh}:${mm}${ss}`;
}

const ratio = (num: number, den: number) => (den === 0 ? null : num / den);

/** Runs the statement; a zone this runtime knows but the database does not is still a 400 at tz. */
async function run(ctx: Ctx, scope: LorScope, args: RangeArgs, prefix: string): Promise<{ range: LorRange; byKey: Map<string, LorRow> }> {
  const range = parseRange(args, prefix);
  const { sql, params } = lorStatement(scope, range);
  let rows: LorRow[];
  try {
    rows = await ctx.em.execute<LorRow[]>(sql, params);
  } catch (err) {
    if ((err as { code?: string }).code === '22023' && /time zone/i.test(String((err as Error).message))) {
      throw invalid(`${prefix}tz`, 'must be an IANA time zone name, e.g. Europe/Paris');
    }
    throw err;
  }
  return { range, byKey: new Map(rows.map((r) => [r.key, r])) };
}

/** One scope's row as the report. */
function report(kind: LorScope['kind'], row: LorRow, range: LorRange): LorType {
  const currency = row.currency ?? DEFAULT_CURRENCY;
  const withUnits = kind === 'product';
  const minor: number[] = [];
  const buckets: LorBucketType[] = (row.buckets ?? []).map(([startLocal, offset, orders, completed, cancelled, returned, confirmed, revenue, units]) => {
    minor.push(revenue);
    return {
      start: withOffset(startLocal, offset),
      orders,
      completed,
      cancelled,
      returned,
      rest: orders - completed - cancelled,
      confirmed,
      revenue: toMajor(revenue, currency),
      units: withUnits ? units : null,
    };
  });
  const sum = (pick: (b: LorBucketType) => number) => buckets.reduce((s, b) => s + pick(b), 0);
  const totals = {
    orders: sum((b) => b.orders),
    completed: sum((b) => b.completed),
    cancelled: sum((b) => b.cancelled),
    returned: sum((b) => b.returned),
    rest: sum((b) => b.rest),
    confirmed: sum((b) => b.confirmed),
    revenue: toMajor(sumMinor(minor), currency),
    units: withUnits ? sum((b) => b.units ?? 0) : null,
  };
  return {
    scope: kind,
    from: withOffset(row.from_local, row.from_offset),
    to: withOffset(row.to_local, row.to_offset),
    interval: range.interval,
    tz: range.tz,
    lastSync: new Date(row.computed_at).toISOString(),
    lastItemDate: row.last_item ? new Date(row.last_item).toISOString() : null,
    totalOrders: totals.orders,
    data: buckets.map((b) => [b.completed, b.cancelled, b.rest]),
    buckets,
    totals,
    rates: {
      confirmation: ratio(totals.confirmed, totals.orders),
      completion: ratio(totals.completed, totals.completed + totals.cancelled),
      cancellation: ratio(totals.cancelled, totals.orders),
      return: ratio(totals.returned, totals.completed + totals.returned),
    },
  };
}

async function single(ctx: Ctx, scope: LorScope, key: string, args: RangeArgs, what: string): Promise<{ lor: LorType }> {
  const { range, byKey } = await run(ctx, scope, args, '');
  const row = byKey.get(key);
  if (!row?.found) throw notFound(what);
  return { lor: report(scope.kind, row, range) };
}

export function storeLor(ctx: Ctx, storeId: string, args: RangeArgs) {
  return single(ctx, { kind: 'store', storeIds: [storeId] }, storeId, args, 'store');
}

export function productLor(ctx: Ctx, storeId: string, productId: string, args: RangeArgs) {
  return single(ctx, { kind: 'product', storeId, productIds: [productId] }, productId, args, 'product');
}

export function landingPageLor(ctx: Ctx, storeId: string, landingPageId: string, args: RangeArgs) {
  return single(ctx, { kind: 'landingPage', storeId, landingPageIds: [landingPageId] }, landingPageId, args, 'product landing page');
}

const unique = (ids: string[]) => [...new Set(ids)];

export async function productLorBatch(ctx: Ctx, storeId: string, input: ProductLorBatchInput): Promise<ProductLorBatchType> {
  const ids = unique(input.productIds);
  const { range, byKey } = await run(ctx, { kind: 'product', storeId, productIds: ids }, input, 'input.');
  const result: ProductLorBatchType = { data: [], failed: [] };
  for (const productId of ids) {
    const row = byKey.get(productId);
    if (row?.found) result.data.push({ productId, lor: report('product', row, range) });
    else result.failed.push({ productId, code: 'NOT_FOUND' });
  }
  return result;
}

/**
 * Stores the caller belongs to are read in the same statement that counts; any membership
 * role may read analytics, and a token needs a scope that reads store data.
 */
export async function storeLorBatch(ctx: Ctx, input: StoreLorBatchInput): Promise<StoreLorBatchType> {
  const actor = requireActor(ctx);
  const scopes = PERMISSIONS['store.read'].scopes;
  if (actor.scopes && !scopes.some((s) => actor.scopes!.includes(s))) throw new AppError('FORBIDDEN', `This token lacks the scope ${scopes.join(' or ')}`);
  const ids = unique(input.storeIds);
  const { range, byKey } = await run(ctx, { kind: 'store', storeIds: ids, memberOf: actor.userId }, input, 'input.');
  const result: StoreLorBatchType = { data: [], failed: [] };
  for (const storeId of ids) {
    const row = byKey.get(storeId);
    if (row?.found) result.data.push({ storeId, lor: report('store', row, range) });
    else result.failed.push({ storeId, code: 'NOT_FOUND' });
  }
  return result;
}
