import { LockMode } from '@mikro-orm/core';
import { ShippingMethod, ShippingPrice, PRICE_STATUSES, type DeliveryType, type PriceTable } from './shipping.entity.js';
import type {
  ShippingMethodForkInput,
  ShippingMethodInput,
  ShippingMethodPage,
  ShippingMethodType,
  ShippingMethodUpdateInput,
  ShippingPriceCreateInput,
  ShippingPricePage,
  ShippingPriceReplaceInput,
  ShippingPriceType,
  ShippingQuoteType,
} from './shipping.types.js';
import { checkCountry, checkDeliveryType, lookupRate, parsePriceTable, priceTableView } from './price-table.js';
import type { Ctx } from '../../core/context.js';
import { conflict, invalid, notFound } from '../../core/errors.js';
import { holdsPermission } from '../../core/policy.js';
import { transaction, type TxCtx } from '../../core/tx.js';
import { HTTP_URL_MESSAGE, isHttpUrl } from '../../core/input.js';
import { exponent, isCurrency, toMajor, toMinor } from '../../core/money.js';
import { page, pageLimit } from '../../lib/pagination.js';
import { mergePatch } from '../../lib/json.js';
import { storeCurrency } from '../stores/currency.js';

// ─── Shipping prices ─────────────────────────────────────────────────────────

export function priceView(p: ShippingPrice): ShippingPriceType {
  return {
    id: p.id,
    storeId: p.storeId,
    name: p.name,
    logoUrl: p.logoUrl,
    currency: p.currency,
    status: p.status,
    prices: priceTableView(p.prices, p.currency),
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
  };
}

function checkCurrency(code: string): string {
  if (!isCurrency(code)) throw invalid('currency', 'is not an ISO 4217 currency code');
  return code;
}

export async function listPrices(ctx: Ctx, storeId: string, f: { limit?: number | null; cursor?: string | null; status?: string | null }): Promise<ShippingPricePage> {
  const limit = pageLimit(f.limit);
  const rows = await ctx.em.find(
    ShippingPrice,
    { storeId, ...(f.cursor ? { id: { $lt: f.cursor } } : {}), ...(f.status ? { status: f.status } : {}) },
    { orderBy: { id: 'desc' }, limit: limit + 1 },
  );
  const p = page(rows, limit);
  return { data: p.data.map(priceView), nextCursor: p.nextCursor };
}

async function findPrice(ctx: Ctx, storeId: string, id: string, lock?: LockMode): Promise<ShippingPrice> {
  const p = await ctx.em.findOne(ShippingPrice, { id, storeId }, lock ? { lockMode: lock } : {});
  if (!p) throw notFound('shipping price');
  return p;
}

export async function getPrice(ctx: Ctx, storeId: string, id: string): Promise<ShippingPriceType> {
  return priceView(await findPrice(ctx, storeId, id));
}

export async function createPrice(ctx: Ctx, storeId: string, input: ShippingPriceCreateInput): Promise<ShippingPriceType> {
  return transaction(ctx, async (tx) => {
    const currency = input.currency ? checkCurrency(input.currency) : await storeCurrency(tx, storeId);
    const p = tx.em.create(ShippingPrice, {
      storeId,
      name: input.name.trim(),
      logoUrl: input.logoUrl ?? null,
      currency,
      status: input.status ?? 'draft',
      prices: parsePriceTable(input.prices ?? {}, currency),
    });
    await tx.em.flush();
    return priceView(p);
  });
}

/** PUT: `prices` replaced whole (re-read in the currency that results), other given fields set. */
export async function replacePrice(ctx: Ctx, storeId: string, id: string, input: ShippingPriceReplaceInput): Promise<ShippingPriceType> {
  return transaction(ctx, async (tx) => {
    const p = await findPrice(tx, storeId, id, LockMode.PESSIMISTIC_WRITE);
    if (input.currency) p.currency = checkCurrency(input.currency);
    if (input.name != null) p.name = input.name.trim();
    if (input.logoUrl !== undefined) p.logoUrl = input.logoUrl;
    if (input.status != null) p.status = input.status;
    p.prices = parsePriceTable(input.prices, p.currency);
    p.updatedAt = new Date();
    await tx.em.flush();
    return priceView(p);
  });
}

const PATCHABLE = new Set(['name', 'logoUrl', 'currency', 'status', 'prices']);

/**
 * PATCH is an RFC 7396 merge patch of the price as the API shows it (major units): `null`
 * removes a member (a state, or one delivery type, which then reads as not delivered).
 */
export async function patchPrice(ctx: Ctx, storeId: string, id: string, patch: Record<string, unknown>): Promise<ShippingPriceType> {
  for (const key of Object.keys(patch)) if (!PATCHABLE.has(key)) throw invalid(key, 'is not a field that can be patched');
  return transaction(ctx, async (tx) => {
    const p = await findPrice(tx, storeId, id, LockMode.PESSIMISTIC_WRITE);
    const current = priceView(p);
    const doc = mergePatch({ name: current.name, logoUrl: current.logoUrl, currency: current.currency, status: current.status, prices: current.prices }, patch) as Record<string, unknown>;
    if (typeof doc.name !== 'string' || doc.name.trim().length < 1 || doc.name.length > 200) throw invalid('name', 'must be 1 to 200 characters');
    if (doc.logoUrl != null && (typeof doc.logoUrl !== 'string' || doc.logoUrl.length > 2048)) throw invalid('logoUrl', 'must be a string of at most 2048 characters, or null');
    if (doc.logoUrl != null && !isHttpUrl(doc.logoUrl)) throw invalid('logoUrl', HTTP_URL_MESSAGE);
    if (typeof doc.currency !== 'string') throw invalid('currency', 'is required');
    if (typeof doc.status !== 'string' || !(PRICE_STATUSES as readonly string[]).includes(doc.status)) throw invalid('status', `must be one of ${PRICE_STATUSES.join(', ')}`);
    p.currency = checkCurrency(doc.currency);
    p.name = doc.name.trim();
    p.logoUrl = (doc.logoUrl as string | null | undefined) ?? null;
    p.status = doc.status;
    p.prices = parsePriceTable(doc.prices ?? {}, p.currency);
    p.updatedAt = new Date();
    await tx.em.flush();
    return priceView(p);
  });
}

/** A price a method quotes from stays (409); the row lock makes a concurrent link wait for this. */
export async function deletePrice(ctx: Ctx, storeId: string, id: string): Promise<void> {
  await transaction(ctx, async (tx) => {
    const p = await findPrice(tx, storeId, id, LockMode.PESSIMISTIC_WRITE);
    const users = await tx.em.count(ShippingMethod, { shippingPriceId: id });
    if (users > 0) throw conflict(`This shipping price is used by ${users} shipping method${users === 1 ? '' : 's'}; unlink or delete them first`);
    tx.em.remove(p);
    await tx.em.flush();
  });
}

// ─── Shipping methods ────────────────────────────────────────────────────────

function methodView(m: ShippingMethod, currency: string, forks: number): ShippingMethodType {
  return {
    id: m.id,
    storeId: m.storeId,
    name: m.name,
    description: m.description,
    logoUrl: m.logoUrl,
    price: toMajor(m.price, currency),
    shippingPriceId: m.shippingPriceId,
    status: m.status,
    policy: m.policy,
    sourceId: m.sourceId,
    forks,
    createdAt: m.createdAt.toISOString(),
    updatedAt: m.updatedAt.toISOString(),
  };
}

/** Views with their fork counts, counted in one query. */
async function methodViews(ctx: Ctx, rows: ShippingMethod[]): Promise<ShippingMethodType[]> {
  const counts = new Map<string, number>();
  if (rows.length) {
    const found = await ctx.em.execute<Array<{ source_id: string; n: string }>>(
      `select source_id, count(*) as n from shipping_methods where source_id in (${rows.map(() => '?').join(',')}) group by source_id`,
      rows.map((r) => r.id),
    );
    for (const row of found) counts.set(row.source_id, Number(row.n));
  }
  const out: ShippingMethodType[] = [];
  for (const r of rows) out.push(methodView(r, await storeCurrency(ctx, r.storeId), counts.get(r.id) ?? 0));
  return out;
}

export async function listMethods(ctx: Ctx, storeId: string, f: { limit?: number | null; cursor?: string | null; status?: string | null }): Promise<ShippingMethodPage> {
  const limit = pageLimit(f.limit);
  const rows = await ctx.em.find(
    ShippingMethod,
    { storeId, ...(f.cursor ? { id: { $lt: f.cursor } } : {}), ...(f.status ? { status: f.status } : {}) },
    { orderBy: { id: 'desc' }, limit: limit + 1 },
  );
  const p = page(rows, limit);
  return { data: await methodViews(ctx, p.data), nextCursor: p.nextCursor };
}

async function findMethod(ctx: Ctx, storeId: string, id: string, lock?: LockMode): Promise<ShippingMethod> {
  const m = await ctx.em.findOne(ShippingMethod, { id, storeId }, lock ? { lockMode: lock } : {});
  if (!m) throw notFound('shipping method');
  return m;
}

export async function getMethod(ctx: Ctx, storeId: string, id: string): Promise<ShippingMethodType> {
  return (await methodViews(ctx, [await findMethod(ctx, storeId, id)]))[0];
}

/** A linked price must be the store's own; share-locked so that its deletion waits for this link. */
async function linkablePrice(tx: TxCtx, storeId: string, priceId: string): Promise<string> {
  const p = await tx.em.findOne(ShippingPrice, { id: priceId, storeId }, { lockMode: LockMode.PESSIMISTIC_READ });
  if (!p) throw invalid('shippingPriceId', 'is not a shipping price of this store');
  return p.id;
}

export async function createMethod(ctx: Ctx, storeId: string, input: ShippingMethodInput): Promise<ShippingMethodType> {
  return transaction(ctx, async (tx) => {
    const currency = await storeCurrency(tx, storeId);
    const m = tx.em.create(ShippingMethod, {
      storeId,
      ...(await methodFields(tx, storeId, currency, input)),
    });
    await tx.em.flush();
    return methodView(m, currency, 0);
  });
}

async function methodFields(tx: TxCtx, storeId: string, currency: string, input: ShippingMethodInput) {
  return {
    name: input.name.trim(),
    description: input.description ?? null,
    logoUrl: input.logoUrl ?? null,
    price: toMinor(input.price ?? 0, currency, 'price'),
    shippingPriceId: input.shippingPriceId ? await linkablePrice(tx, storeId, input.shippingPriceId) : null,
    status: input.status ?? 'draft',
    policy: input.policy ?? 'private',
  };
}

/** PUT replaces every field, PATCH the given ones. */
export async function updateMethod(
  ctx: Ctx,
  storeId: string,
  id: string,
  input: ShippingMethodUpdateInput | ShippingMethodInput,
  mode: 'patch' | 'replace',
): Promise<ShippingMethodType> {
  return transaction(ctx, async (tx) => {
    const m = await findMethod(tx, storeId, id, LockMode.PESSIMISTIC_WRITE);
    const currency = await storeCurrency(tx, storeId);
    if (mode === 'replace') {
      Object.assign(m, await methodFields(tx, storeId, currency, input as ShippingMethodInput));
    } else {
      const p = input as ShippingMethodUpdateInput;
      if (p.name != null) m.name = p.name.trim();
      if (p.description !== undefined) m.description = p.description;
      if (p.logoUrl !== undefined) m.logoUrl = p.logoUrl;
      if (p.price != null) m.price = toMinor(p.price, currency, 'price');
      if (p.shippingPriceId !== undefined) m.shippingPriceId = p.shippingPriceId ? await linkablePrice(tx, storeId, p.shippingPriceId) : null;
      if (p.status != null) m.status = p.status;
      if (p.policy != null) m.policy = p.policy;
    }
    m.updatedAt = new Date();
    await tx.em.flush();
    return (await methodViews(tx, [m]))[0];
  });
}

export async function deleteMethod(ctx: Ctx, storeId: string, id: string): Promise<void> {
  await transaction(ctx, async (tx) => {
    tx.em.remove(await findMethod(tx, storeId, id));
    await tx.em.flush();
  });
}

/** An amount re-expressed in another currency's minor units (same major value, rounded to it). */
function reexpress(minor: number, from: string, to: string): number {
  if (from === to) return minor;
  return Math.round(toMajor(minor, from) * 10 ** exponent(to));
}

/**
 * A private copy in `storeId`. A public method can be forked into any store, a private one
 * only by a member of its own. A linked price table stays shared inside one store and is
 * copied into another, so that every store only ever quotes from (and deletes) its own rows.
 */
export async function forkMethod(ctx: Ctx, storeId: string, id: string, input: ShippingMethodForkInput): Promise<ShippingMethodType> {
  return transaction(ctx, async (tx) => {
    const source = await tx.em.findOne(ShippingMethod, { id });
    if (!source || (source.policy !== 'public' && !(await holdsPermission(tx, source.storeId, 'store.read')))) throw notFound('shipping method');
    const currency = await storeCurrency(tx, storeId);
    let shippingPriceId: string | null = null;
    if (source.shippingPriceId && source.storeId === storeId) {
      shippingPriceId = await linkablePrice(tx, storeId, source.shippingPriceId);
    } else if (source.shippingPriceId) {
      const table = await tx.em.findOne(ShippingPrice, { id: source.shippingPriceId });
      if (table) {
        const copy = tx.em.create(ShippingPrice, { storeId, name: table.name, logoUrl: table.logoUrl, currency: table.currency, status: table.status, prices: structuredClone(table.prices) });
        shippingPriceId = copy.id;
      }
    }
    const fork = tx.em.create(ShippingMethod, {
      storeId,
      name: input.name?.trim() || input.title?.trim() || source.name,
      description: source.description,
      logoUrl: source.logoUrl,
      price: reexpress(source.price, await storeCurrency(tx, source.storeId), currency),
      shippingPriceId,
      status: source.status,
      policy: 'private',
      sourceId: source.id,
    });
    await tx.em.flush();
    return methodView(fork, currency, 0);
  });
}

// ─── Quotes ──────────────────────────────────────────────────────────────────

export interface Quote {
  /** Minor units of `currency`; null when not delivered there that way. */
  amount: number | null;
  currency: string;
}

/** What the method charges for a delivery: its price table's rate, or its flat price. */
export async function quoteMethod(ctx: Ctx, method: ShippingMethod, country: string, state: string | null, type: DeliveryType): Promise<Quote> {
  if (method.shippingPriceId) {
    const table = await ctx.em.findOne(ShippingPrice, { id: method.shippingPriceId });
    if (!table) return { amount: null, currency: await storeCurrency(ctx, method.storeId) };
    return { amount: lookupRate(table.prices, country, state, type), currency: table.currency };
  }
  return { amount: method.price, currency: await storeCurrency(ctx, method.storeId) };
}

export async function shippingQuote(ctx: Ctx, storeId: string, methodId: string, country: string, state: string | null, type: string): Promise<ShippingQuoteType> {
  const t = checkDeliveryType(type, 'type');
  const c = checkCountry(country, 'country');
  const method = await findMethod(ctx, storeId, methodId);
  const q = await quoteMethod(ctx, method, c, state, t);
  return { methodId, country: c, state, type: t, available: q.amount !== null, price: q.amount === null ? null : toMajor(q.amount, q.currency), currency: q.currency };
}

export interface OrderShipping {
  shippingMethodId?: string | null;
  shippingType?: string | null;
  shippingAddress?: { country?: string | null; wilayaCode?: string | null } | null;
}

/**
 * The shipping cost of a new order in minor units of its currency: 0 without a method; the
 * method's quote for the address's country and state otherwise (400 where it does not deliver).
 */
export async function orderShippingCost(ctx: Ctx, storeId: string, currency: string, input: OrderShipping): Promise<number> {
  if (!input.shippingMethodId) return 0;
  if (!input.shippingType) throw invalid('shippingType', 'is required with a shippingMethodId');
  const type = checkDeliveryType(input.shippingType, 'shippingType');
  const method = await ctx.em.findOne(ShippingMethod, { id: input.shippingMethodId, storeId });
  if (!method) throw invalid('shippingMethodId', 'is not a shipping method of this store');
  const country = checkCountry(input.shippingAddress?.country ?? 'DZ', 'shippingAddress.country');
  const state = input.shippingAddress?.wilayaCode ?? null;
  if (method.shippingPriceId && !state) throw invalid('shippingAddress.wilayaCode', 'is required to price this shipping method');
  const q = await quoteMethod(ctx, method, country, state, type);
  if (q.amount === null) throw invalid('shippingType', `this shipping method does not deliver ${type} to ${country}${state ? `/${state}` : ''}`);
  if (q.currency !== currency) throw invalid('shippingMethodId', `its prices are in ${q.currency}, the order in ${currency}`);
  return q.amount;
}

/** One way a published shipping method delivers to a state: minor units of `currency`. */
export interface ShippingOption {
  methodId: string;
  name: string;
  type: DeliveryType;
  price: number;
  currency: string;
}

/**
 * What the store's published methods charge for delivering `types` to a state, cheapest first
 * (then by name): each method's price table rate for the state, or its flat price for every type.
 * `currency` is the store's. One statement whatever the number of methods.
 */
export async function shippingOptions(ctx: Ctx, storeId: string, currency: string, country: string, state: string, types: readonly DeliveryType[]): Promise<ShippingOption[]> {
  const methods = await ctx.em.execute<PublishedMethod[]>(PUBLISHED_METHODS, [storeId]);
  return optionsOf(methods, currency, country, state, types);
}

/** A row of PUBLISHED_METHODS. */
export interface PublishedMethod {
  id: string;
  name: string;
  price: string | number;
  shipping_price_id: string | null;
  table_currency: string | null;
  prices: PriceTable | null;
}

/**
 * The store's published methods with their price tables (bindings: storeId), by id: what
 * `shippingOptions` reads, for a caller that reads it within a statement it makes anyway.
 */
/** A store's published methods with their tables; the store's id is `storeId`, SQL (a binding by default, or a column of the caller's statement). */
export const publishedMethods = (storeId = '?') => `select m.id, m.name, m.price, m.shipping_price_id, t.currency as table_currency, t.prices
       from shipping_methods m left join shipping_prices t on t.id = m.shipping_price_id and t.store_id = m.store_id
      where m.store_id = ${storeId} and m.status = 'published' order by m.id`;
export const PUBLISHED_METHODS = publishedMethods();

/** `shippingOptions` from the methods PUBLISHED_METHODS read. */
export function optionsOf(methods: readonly PublishedMethod[], currency: string, country: string, state: string, types: readonly DeliveryType[]): ShippingOption[] {
  const options: ShippingOption[] = [];
  for (const m of methods) {
    // A method whose table is gone delivers nowhere; a table in another currency cannot price an order.
    if (m.shipping_price_id && m.table_currency !== currency) continue;
    for (const type of types) {
      const price = m.prices ? lookupRate(m.prices, country, state, type) : Number(m.price);
      if (price !== null) options.push({ methodId: m.id, name: m.name, type, price, currency });
    }
  }
  return options.sort((a, b) => a.price - b.price || a.name.localeCompare(b.name) || a.methodId.localeCompare(b.methodId));
}
