import type { EntityManager } from '@mikro-orm/postgresql';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { Promo } from './promo.entity.js';
import type { PromoCreateInput, PromoPage, PromoReason, PromoType, PromoUpdateInput, PromoValidateInput, PromoValidation } from './promo.types.js';
import { Product } from '../products/product.entity.js';
import { orderForPromo } from './promo.hooks.js';
import { storeCurrency } from '../stores/currency.js';
import { AppError, conflict, invalid, notFound } from '../../core/errors.js';
import type { Ctx, Deps } from '../../core/context.js';
import { transaction, type TxCtx } from '../../core/tx.js';
import { lineMinor, percentOf, sumMinor, toMajor, toMinor } from '../../core/money.js';
import { page, pageLimit } from '../../lib/pagination.js';
import { phoneKey } from '../../lib/phone.js';
import { enforce, SlidingWindowLimiter } from '../../lib/rate-limit.js';

/** Public validation calls allowed per client IP per minute (CONTRACT-2 §10). */
export const VALIDATE_PER_MINUTE = 60;

/** Each running service's validation limiter, made on first use. */
const limiters = new WeakMap<Deps, SlidingWindowLimiter>();

export const normalizeCode = (code: string) => code.trim().toUpperCase();


export function promoView(p: Promo, currency: string): PromoType {
  return {
    id: p.id,
    storeId: p.storeId,
    code: p.code,
    type: p.type,
    value: p.type === 'fixed' ? toMajor(p.value, currency) : p.value,
    minSubtotal: p.minSubtotal == null ? null : toMajor(p.minSubtotal, currency),
    maxUses: p.maxUses,
    uses: p.uses,
    maxUsesPerCustomer: p.maxUsesPerCustomer,
    productIds: p.productIds,
    startsAt: p.startsAt?.toISOString() ?? null,
    endsAt: p.endsAt?.toISOString() ?? null,
    active: p.active,
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
  };
}

/** `value` in the stored unit of the type: a percent with at most 2 decimals, or minor units. */
function storedValue(type: string, value: number | null | undefined, currency: string): number {
  if (type === 'free_shipping') return 0;
  if (value == null) throw invalid('value', `is required for a ${type} promo`);
  if (type === 'percentage') {
    if (!(value > 0 && value <= 100)) throw invalid('value', 'must be a percent above 0 and at most 100');
    if (Math.round(value * 100) / 100 !== value) throw invalid('value', 'has at most 2 decimals');
    return value;
  }
  const minor = toMinor(value, currency, 'value');
  if (minor <= 0) throw invalid('value', 'must be above 0');
  return minor;
}

async function assertProducts(ctx: Ctx, storeId: string, ids: string[]): Promise<string[]> {
  const unique = [...new Set(ids)];
  if (!unique.length) return [];
  const found = new Set((await ctx.em.find(Product, { storeId, id: { $in: unique } }, { fields: ['id'] })).map((p) => p.id));
  const missing = ids.findIndex((id) => !found.has(id));
  if (missing !== -1) throw invalid(`productIds.${missing}`, 'no such product in this store');
  return unique;
}

function assertWindow(p: Promo): void {
  if (p.startsAt && p.endsAt && p.endsAt <= p.startsAt) throw invalid('endsAt', 'must be after startsAt');
}

const uniqueCode = <T>(p: Promise<T>) =>
  p.catch((err) => {
    if (err instanceof UniqueConstraintViolationException) throw conflict('The promo code is taken in this store');
    throw err;
  });

async function assertCodeFree(ctx: Ctx, storeId: string, code: string, exceptId?: string): Promise<void> {
  const other = await ctx.em.findOne(Promo, { storeId, code });
  if (other && other.id !== exceptId) throw conflict(`The promo code ${code} is taken in this store`);
}

export async function createPromo(ctx: Ctx, storeId: string, input: PromoCreateInput): Promise<PromoType> {
  const currency = await storeCurrency(ctx, storeId);
  const code = normalizeCode(input.code);
  return uniqueCode(
    transaction(ctx, async (tx) => {
      await assertCodeFree(tx, storeId, code);
      const promo = tx.em.create(Promo, {
        storeId,
        code,
        type: input.type,
        value: storedValue(input.type, input.value, currency),
        minSubtotal: input.minSubtotal == null ? null : toMinor(input.minSubtotal, currency, 'minSubtotal'),
        maxUses: input.maxUses ?? null,
        maxUsesPerCustomer: input.maxUsesPerCustomer ?? null,
        productIds: await assertProducts(tx, storeId, input.productIds ?? []),
        startsAt: input.startsAt ?? null,
        endsAt: input.endsAt ?? null,
        active: input.active ?? true,
      });
      assertWindow(promo);
      await tx.em.flush();
      return promoView(promo, currency);
    }),
  );
}

export async function listPromos(ctx: Ctx, storeId: string, args: { limit?: number | null; cursor?: string | null; active?: boolean | null; q?: string | null }): Promise<PromoPage> {
  const limit = pageLimit(args.limit);
  const where: Record<string, unknown> = { storeId };
  if (args.cursor) where.id = { $lt: args.cursor };
  if (args.active != null) where.active = args.active;
  if (args.q) where.code = { $like: `%${normalizeCode(args.q).replace(/[\\%_]/g, (c) => `\\${c}`)}%` };
  const rows = await ctx.em.find(Promo, where, { orderBy: { id: 'desc' }, limit: limit + 1 });
  const p = page(rows, limit);
  const currency = await storeCurrency(ctx, storeId);
  return { data: p.data.map((row) => promoView(row, currency)), nextCursor: p.nextCursor };
}

async function findPromo(ctx: Ctx, storeId: string, id: string): Promise<Promo> {
  const promo = await ctx.em.findOne(Promo, { id, storeId });
  if (!promo) throw notFound('promo');
  return promo;
}

export async function getPromo(ctx: Ctx, storeId: string, id: string): Promise<PromoType> {
  return promoView(await findPromo(ctx, storeId, id), await storeCurrency(ctx, storeId));
}

/** Partial update; `uses` only moves with redemptions. */
export async function updatePromo(ctx: Ctx, storeId: string, id: string, input: PromoUpdateInput): Promise<PromoType> {
  const currency = await storeCurrency(ctx, storeId);
  return uniqueCode(
    transaction(ctx, async (tx) => {
      const promo = await findPromo(tx, storeId, id);
      if (input.code != null) {
        const code = normalizeCode(input.code);
        if (code !== promo.code) await assertCodeFree(tx, storeId, code, id);
        promo.code = code;
      }
      if (input.type != null || input.value != null) {
        const type = input.type ?? promo.type;
        const value = input.value ?? (type === promo.type ? (promo.type === 'fixed' ? toMajor(promo.value, currency) : promo.value) : null);
        promo.value = storedValue(type, value, currency);
        promo.type = type;
      }
      if (input.minSubtotal !== undefined) promo.minSubtotal = input.minSubtotal == null ? null : toMinor(input.minSubtotal, currency, 'minSubtotal');
      if (input.maxUses !== undefined) promo.maxUses = input.maxUses ?? null;
      if (input.maxUsesPerCustomer !== undefined) promo.maxUsesPerCustomer = input.maxUsesPerCustomer ?? null;
      if (input.productIds != null) promo.productIds = await assertProducts(tx, storeId, input.productIds);
      if (input.startsAt !== undefined) promo.startsAt = input.startsAt;
      if (input.endsAt !== undefined) promo.endsAt = input.endsAt;
      if (input.active != null) promo.active = input.active;
      assertWindow(promo);
      promo.updatedAt = new Date();
      await tx.em.flush();
      return promoView(promo, currency);
    }),
  );
}

export async function deletePromo(ctx: Ctx, storeId: string, id: string): Promise<void> {
  await transaction(ctx, async (tx) => {
    tx.em.remove(await findPromo(tx, storeId, id));
    await tx.em.flush();
  });
}

/** A cart line priced in minor units. */
export interface PricedLine {
  productId: string | null;
  quantity: number;
  price: number;
}

export interface PromoOutcome {
  reason: PromoReason | null;
  subtotal: number;
  discount: number;
  freeShipping: boolean;
}

/**
 * The rules, in the contract's order of reasons. `customerUses` is how often this customer
 * already redeemed it (null: unknown customer, not checked). Amounts in minor units.
 */
export function evaluatePromo(promo: Promo | null, lines: PricedLine[], now: Date, customerUses: number | null): PromoOutcome {
  const subtotal = sumMinor(lines.map((l) => lineMinor(l.price, l.quantity)));
  const refuse = (reason: PromoReason): PromoOutcome => ({ reason, subtotal, discount: 0, freeShipping: false });
  if (!promo) return refuse('not_found');
  if (!promo.active) return refuse('inactive');
  if (promo.startsAt && promo.startsAt > now) return refuse('not_started');
  if (promo.endsAt && promo.endsAt <= now) return refuse('expired');
  if (promo.maxUses != null && promo.uses >= promo.maxUses) return refuse('max_uses');
  if (promo.maxUsesPerCustomer != null && customerUses != null && customerUses >= promo.maxUsesPerCustomer) return refuse('max_uses_customer');
  if (promo.minSubtotal != null && subtotal < promo.minSubtotal) return refuse('min_subtotal');
  const eligible = promo.productIds.length ? lines.filter((l) => l.productId && promo.productIds.includes(l.productId)) : lines;
  const base = sumMinor(eligible.map((l) => lineMinor(l.price, l.quantity)));
  if (promo.type === 'free_shipping') return eligible.length ? { reason: null, subtotal, discount: 0, freeShipping: true } : refuse('not_applicable');
  if (base <= 0) return refuse('not_applicable');
  const discount = promo.type === 'percentage' ? percentOf(base, promo.value) : Math.min(promo.value, base);
  return { reason: null, subtotal, discount, freeShipping: false };
}

/** The customer a per-customer cap counts: one key per phone however typed (`phoneKey`). */
async function customerUses(ctx: Ctx, promo: Promo | null, key: string | null): Promise<number | null> {
  if (!promo || promo.maxUsesPerCustomer == null || !key) return null;
  const [row] = await (ctx.em as EntityManager).execute<Array<{ n: number }>>(
    'select count(*)::int as n from promo_redemptions where promo_id = ? and customer_key = ?',
    [promo.id, key],
  );
  return row.n;
}

function limiter(ctx: Ctx): SlidingWindowLimiter {
  let l = limiters.get(ctx.deps);
  if (!l) limiters.set(ctx.deps, (l = new SlidingWindowLimiter(VALIDATE_PER_MINUTE, 60_000)));
  return l;
}

/** Public: prices the cart (or an order) from the store's own records and says what the code would do. */
export async function validatePromo(ctx: Ctx, storeId: string, input: PromoValidateInput): Promise<PromoValidation> {
  enforce([[limiter(ctx), ctx.ip]]);
  const currency = await storeCurrency(ctx, storeId);
  let lines: PricedLine[];
  let customer = phoneKey(input.customerPhone);
  if (input.orderId) {
    const order = await orderForPromo(ctx, storeId, input.orderId);
    if (!order) throw notFound('order');
    lines = order.items;
    customer = phoneKey(input.customerPhone ?? order.customerPhone, order.country);
  } else {
    if (!input.items) throw invalid('items', 'give the cart items or an orderId');
    const ids = [...new Set(input.items.map((i) => i.productId))];
    const products = ids.length ? await ctx.em.find(Product, { storeId, id: { $in: ids } }, { fields: ['id', 'price'] }) : [];
    const price = new Map(products.map((p) => [p.id, p.price]));
    // Items naming no product of the store add nothing: the cart is priced from the store's records only.
    lines = input.items.filter((i) => price.has(i.productId)).map((i) => ({ productId: i.productId, quantity: i.quantity ?? 1, price: price.get(i.productId)! }));
  }
  const promo = await ctx.em.findOne(Promo, { storeId, code: normalizeCode(input.code) });
  const outcome = evaluatePromo(promo, lines, new Date(), await customerUses(ctx, promo, customer));
  return {
    valid: outcome.reason === null,
    reason: outcome.reason,
    subtotal: toMajor(outcome.subtotal, currency),
    discount: toMajor(outcome.discount, currency),
    total: toMajor(outcome.subtotal - outcome.discount, currency),
    freeShipping: outcome.freeShipping,
  };
}

/**
 * What a code would do to priced lines now, counting no use (a storefront cart). `customer` is the
 * customer's phone key (E.164) for per-customer caps, null when not given.
 */
export async function quotePromo(ctx: Ctx, storeId: string, rawCode: string, lines: PricedLine[], customer: string | null): Promise<PromoOutcome & { code: string }> {
  const code = normalizeCode(rawCode);
  const promo = await ctx.em.findOne(Promo, { storeId, code });
  return { code, ...evaluatePromo(promo, lines, new Date(), await customerUses(ctx, promo, customer)) };
}

/** The reason a `redeemPromo` refusal names. */
export const refusalReason = (err: unknown): PromoReason | null =>
  err instanceof AppError && err.code === 'CONFLICT' && err.errors?.[0]?.path === 'promoCode' ? (err.errors[0].message as PromoReason) : null;

const refused = (reason: PromoReason) => new AppError('CONFLICT', `The promo code cannot be used: ${reason}`, [{ path: 'promoCode', message: reason }]);

export interface Redemption {
  code: string;
  /** Minor units off the items; a free_shipping code takes the shipping cost off instead. */
  discount: number;
  freeShipping: boolean;
}

/**
 * Redeems a code for a new order, in the order's transaction. The use is counted by an UPDATE
 * that checks `uses < max_uses` itself, so concurrent checkouts never exceed the cap; that
 * UPDATE also locks the promo row, so the per-customer count that follows is serialized too.
 * Any refusal is a 409 naming the reason, and the transaction undoes the count.
 */
export async function redeemPromo(
  tx: TxCtx,
  storeId: string,
  order: { id: string; items: PricedLine[]; customerPhone: string | null; shippingAddress: { country: string } | null },
  rawCode: string,
): Promise<Redemption> {
  const em = tx.em as EntityManager;
  const code = normalizeCode(rawCode);
  const [row] = await em.execute<Array<Record<string, unknown>>>(
    `update promos set uses = uses + 1 where store_id = ? and code = ? and (max_uses is null or uses < max_uses) returning *`,
    [storeId, code],
  );
  const now = new Date();
  if (!row) {
    const promo = await tx.em.findOne(Promo, { storeId, code });
    throw refused(evaluatePromo(promo, order.items, now, null).reason ?? 'max_uses');
  }
  const promo = em.map(Promo, row);
  // The row now counts this order's use; the rules judge the state before it.
  const before = Object.assign(Object.create(Promo.prototype) as Promo, promo, { uses: promo.uses - 1 });
  const customer = phoneKey(order.customerPhone, order.shippingAddress?.country);
  const outcome = evaluatePromo(before, order.items, now, await customerUses(tx, promo, customer));
  if (outcome.reason) throw refused(outcome.reason);
  await em.execute('insert into promo_redemptions (promo_id, order_id, customer_key, created_at) values (?, ?, ?, ?)', [promo.id, order.id, customer, now]);
  return { code, discount: outcome.discount, freeShipping: outcome.freeShipping };
}
