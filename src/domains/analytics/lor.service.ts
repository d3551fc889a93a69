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
async function run(ctx: Ctx, scope: LorScope, args: RangeArgs, prefix: string): Promise<{ range: LorRange; byKey: Map<string, LorRow[]> }> {
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
  const byKey = new Map<string, LorRow[]>();
  for (const row of rows) {
    const list = byKey.get(row.key) ?? [];
    list.push(row);
    byKey.set(row.key, list);
  }
  return { range, byKey };
}

/** One scope's rows (one per bucket, oldest first) as the report. */
function report(kind: LorScope['kind'], rows: LorRow[], range: LorRange): LorType {
  const head = rows[0];
  const currency = head.currency ?? DEFAULT_CURRENCY;
  const withUnits = kind === 'product';
  const minor: number[] = [];
  const buckets: LorBucketType[] = rows.map((r) => {
    const orders = Number(r.orders ?? 0);
    const completed = Number(r.completed ?? 0);
    const cancelled = Number(r.cancelled ?? 0);
    minor.push(Number(r.revenue ?? 0));
    return {
      start: withOffset(r.start_local!, r.start_offset!),
      orders,
      completed,
      cancelled,
      returned: Number(r.returned ?? 0),
      rest: orders - completed - cancelled,
      confirmed: Number(r.confirmed ?? 0),
      revenue: toMajor(Number(r.revenue ?? 0), currency),
      units: withUnits ? Number(r.units ?? 0) : null,
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
    from: withOffset(head.from_local, head.from_offset),
    to: withOffset(head.to_local, head.to_offset),
    interval: range.interval,
    tz: range.tz,
    lastSync: new Date(head.computed_at).toISOString(),
    lastItemDate: head.last_item ? new Date(head.last_item).toISOString() : null,
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
  const rows = byKey.get(key);
  if (!rows || !rows[0].found) throw notFound(what);
  return { lor: report(scope.kind, rows, range) };
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
    const rows = byKey.get(productId);
    if (rows?.[0].found) result.data.push({ productId, lor: report('product', rows, range) });
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
    const rows = byKey.get(storeId);
    if (rows?.[0].found) result.data.push({ storeId, lor: report('store', rows, range) });
    else result.failed.push({ storeId, code: 'NOT_FOUND' });
  }
  return result;
}
