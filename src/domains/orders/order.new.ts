import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Order, type OrderItem } from './order.entity.js';
import type { OrderCreateInput, OrderItemInput } from './order.types.js';
import { Product } from '../products/product.entity.js';
import { invalid, notFound } from '../../core/errors.js';
import type { Ctx } from '../../core/context.js';
import type { TxCtx } from '../../core/tx.js';
import { toMinor } from '../../core/money.js';
import { totalOf } from './order.money.js';
import { orderShippingCost } from '../shipping/shipping.service.js';
import { newPaymentToken } from './payment-token.js';
import { assertLandingPageOfStore } from '../landing-pages/landing-page.service.js';

// A new order as its input describes it, with what its store decides: shared by the general create
// (order.service.ts) and the one-statement create (order.one-statement.ts).

/** What an order item takes from the product it names. */
export interface NamedProduct {
  id: string;
  name: string;
  /** Minor units of the store's currency. */
  price: number;
}

/** How many stores' defaults, and how many products, are remembered at most (then all are forgotten). */
const LAST_DEFAULTS_MAX = 10_000;

/** The distinct products the items name. */
export const namedProductIds = (items: readonly OrderItemInput[]): string[] => [...new Set(items.map((i) => i.productId).filter((id): id is string => !!id))];

/**
 * The name and price each product had when an order last read it, by store: a guess the
 * one-statement create checks (and share-locks) in its own statement, as it does the defaults.
 * Bounded like them.
 */
const lastProducts = new Map<string, NamedProduct & { storeId: string }>();

/** The remembered products of the store, all of them, or undefined. */
export function rememberedProducts(storeId: string, ids: readonly string[]): NamedProduct[] | undefined {
  const known: NamedProduct[] = [];
  for (const id of ids) {
    const p = lastProducts.get(id);
    if (!p || p.storeId !== storeId) return undefined;
    known.push({ id: p.id, name: p.name, price: p.price });
  }
  return known;
}

/** Guesses that may no longer hold: the next order naming them reads afresh. */
export const forgetProducts = (ids: readonly string[]): void => ids.forEach((id) => lastProducts.delete(id));

/**
 * Items name products of the store or carry their own name and price; one query for all products,
 * unless `known` gives them (the one-statement create, which checks them in its statement).
 */
export async function resolveItems(ctx: Ctx, storeId: string, currency: string, items: OrderItemInput[], path: string, known?: readonly NamedProduct[]): Promise<OrderItem[]> {
  const ids = namedProductIds(items);
  // Share-locked: a product is not deleted under an order that names it.
  const products: readonly NamedProduct[] = known ?? (ids.length ? await ctx.em.find(Product, { storeId, id: { $in: ids } }, { lockMode: LockMode.PESSIMISTIC_READ }) : []);
  if (!known) {
    if (lastProducts.size + products.length > LAST_DEFAULTS_MAX) lastProducts.clear();
    for (const p of products) lastProducts.set(p.id, { id: p.id, name: p.name, price: p.price, storeId });
  }
  const byId = new Map(products.map((p) => [p.id, p]));
  return items.map((item, i) => {
    const product = item.productId ? byId.get(item.productId) : undefined;
    if (item.productId && !product) throw invalid(`${path}.${i}.productId`, 'no such product in this store');
    const name = item.name ?? product?.name;
    if (!name) throw invalid(`${path}.${i}.name`, 'is required without a productId');
    if ((item.price === undefined || item.price === null) && !product) throw invalid(`${path}.${i}.price`, 'is required without a productId');
    const price = item.price !== undefined && item.price !== null ? toMinor(item.price, currency, `${path}.${i}.price`) : product!.price;
    return { productId: item.productId ?? null, name, quantity: item.quantity ?? 1, price };
  });
}


export interface NewOrderDefaults {
  currency: string;
  statusId: string;
  status: string;
  /** The status's display name (what a customer's view of the order shows). */
  statusName: string;
}

/**
 * The store's currency and the status a new order takes (the first of kind `new` by position),
 * in one select (bindings: storeId). The status row is locked FOR KEY SHARE, the weakest lock that
 * every status write (which takes the list FOR UPDATE) waits for: a rename or delete of it waits for
 * the order to commit and then moves it too. The order's foreign key takes the same lock, so the
 * transaction holds one lock mode on the row, not two (each extra mode is a MultiXact member).
 * The store row is locked the same way, first (the materialized CTE runs before the join): a
 * store delete waits for the order, or the order finds the store gone (404), never its statuses
 * half-deleted; and the lock order is the delete's (the store, then its records).
 */
export const NEW_ORDER_DEFAULTS = `with s as materialized (select id, currency from stores where id = ? for key share)
  select s.currency, st.id as status_id, st.slug, st.name
   from s
   left join lateral (select id, slug, name from order_statuses where store_id = s.id and kind = 'new' order by position, id limit 1 for key share) st on true`;

/**
 * What the last general create of each store read: a guess the one-statement create checks in
 * its own statement (a wrong guess writes nothing and the general path runs), so it needs no
 * invalidation. Bounded: cleared when it grows past LAST_DEFAULTS_MAX stores.
 */
const lastDefaults = new Map<string, NewOrderDefaults>();

/** The defaults the store's last general create read, if any. */
export const rememberedDefaults = (storeId: string): NewOrderDefaults | undefined => lastDefaults.get(storeId);

/** A guess that no longer held: the next create of the store reads afresh. */
export const forgetDefaults = (storeId: string): void => void lastDefaults.delete(storeId);

export async function newOrderDefaults(tx: TxCtx, storeId: string): Promise<NewOrderDefaults> {
  const [row] = await (tx.em as EntityManager).execute<Array<NewOrderDefaultsRow>>(NEW_ORDER_DEFAULTS, [storeId]);
  return readDefaults(tx, storeId, row);
}

/** A row of NEW_ORDER_DEFAULTS. */
export interface NewOrderDefaultsRow {
  currency: string;
  status_id: string | null;
  slug: string | null;
  name: string | null;
}

/** The defaults a NEW_ORDER_DEFAULTS row gives (none: the store is gone, a 404), remembered as `newOrderDefaults` does. */
export function readDefaults(tx: TxCtx, storeId: string, row: NewOrderDefaultsRow | undefined): NewOrderDefaults {
  if (!row) throw notFound('store');
  // A store keeps a status of kind new (status.service): none means the store is being deleted.
  if (!row.status_id || !row.slug) throw notFound('store');
  tx.storeCurrencies ??= new Map();
  tx.storeCurrencies.set(storeId, row.currency);
  const defaults = { currency: row.currency, statusId: row.status_id, status: row.slug, statusName: row.name ?? row.slug };
  if (lastDefaults.size >= LAST_DEFAULTS_MAX) lastDefaults.clear();
  lastDefaults.set(storeId, defaults);
  return defaults;
}

/** The order as the input describes it, with what the store decides (its currency and first status). */
export async function newOrder(ctx: Ctx, storeId: string, d: NewOrderDefaults, input: OrderCreateInput, known?: readonly NamedProduct[]) {
  const { currency, statusId, status } = d;
  const items = await resolveItems(ctx, storeId, currency, input.items ?? [], 'items', known);
  const landingPageId = input.landingPageId != null ? await assertLandingPageOfStore(ctx, storeId, input.landingPageId, 'landingPageId') : null;
  const shippingCost = await orderShippingCost(ctx, storeId, currency, input);
  const address = input.shippingAddress;
  const token = newPaymentToken();
  // A plain instance (class defaults, no unit-of-work bookkeeping): both paths insert it themselves.
  const order = Object.assign(new Order(), {
    storeId,
    currency,
    customerName: input.customerName.trim(),
    customerPhone: input.customerPhone ?? null,
    items,
    shippingAddress: address
      ? {
          country: (address.country ?? 'DZ').toUpperCase(),
          address: address.address ?? null,
          communeId: address.communeId ?? null,
          communeName: address.communeName ?? null,
          wilayaCode: address.wilayaCode ?? null,
        }
      : null,
    shippingMethodId: input.shippingMethodId ?? null,
    shippingType: input.shippingType ?? null,
    shippingCost,
    total: totalOf({ items, shippingCost, discount: 0 }),
    statusId,
    status,
    metadata: input.metadata ?? {},
    paymentTokenHash: token.hash,
    landingPageId,
  });
  return { order, token };
}
