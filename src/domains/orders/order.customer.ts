import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Order, OrderStatus, type OrderItem, type OrderRisk, type ShippingAddress } from './order.entity.js';
import type { OrderType } from './order.types.js';
import type { Ctx } from '../../core/context.js';
import { conflict, notFound } from '../../core/errors.js';
import { inTransaction, isRetryable, lockStore, transaction, type TxCtx } from '../../core/tx.js';
import { newId } from '../../lib/ids.js';
import { totalOf } from './order.money.js';
import { NEW_ORDER_DEFAULTS, forgetDefaults, readDefaults, rememberedDefaults, type NewOrderDefaultsRow } from './order.new.js';
import { orderWritten } from './order.hooks.js';
import { orderView } from './order.view.js';
import { writeWithEvent, writeWithEventIn } from '../../events/outbox.js';
import { insertSelect } from '../../db/insert.js';
import { newPaymentToken } from './payment-token.js';
import { changeOrder, lockOrder, orderInserted, setStatus } from './order.service.js';

/**
 * The order as its customer reaches it (the storefront, CONTRACT-3 §17.5-17.6): created priced by
 * the caller (who priced it from the store's records and redeemed its code in this transaction),
 * read by its id, and cancelled while it is new. The order domain stays the one writer of orders.
 */

/** An order's id before it exists: a promo redemption names it in the same transaction. */
export const newOrderId = (): string => newId('ord');

export interface PricedOrder {
  id: string;
  customerName: string;
  /** E.164. */
  customerPhone: string;
  customerEmail: string | null;
  /** Prices in minor units of the store's currency. */
  items: OrderItem[];
  shippingAddress: ShippingAddress;
  shippingMethodId: string | null;
  shippingType: string;
  shippingCost: number;
  promo: { code: string; discount: number } | null;
  note: string | null;
  metadata: Record<string, unknown>;
  source: 'storefront';
  customerIp: string;
  risk: OrderRisk;
}

/**
 * What the storefront writes with a priced order, in the order's insert statement: CTE definitions
 * (`name as (...)`, comma-separated) over `o` (the inserted order: id, status_id, created_at) and
 * `d` (its store's defaults: currency, status_id, slug, name of the first status of kind `new`),
 * with their bindings.
 */
export interface WrittenWithOrder {
  ctes: string;
  params: unknown[];
}

/** The order entity a priced order becomes, and its payment token (shown once, to the customer). */
function pricedOrderEntity(storeId: string, o: PricedOrder): { order: Order; token: ReturnType<typeof newPaymentToken> } {
  const token = newPaymentToken();
  const order = Object.assign(new Order(), {
    id: o.id,
    storeId,
    customerName: o.customerName.trim(),
    customerPhone: o.customerPhone,
    customerEmail: o.customerEmail,
    items: o.items,
    shippingAddress: o.shippingAddress,
    shippingMethodId: o.shippingMethodId,
    shippingType: o.shippingType,
    shippingCost: o.shippingCost,
    promoCode: o.promo?.code ?? null,
    discount: o.promo?.discount ?? 0,
    note: o.note,
    metadata: o.metadata,
    source: o.source,
    customerIp: o.customerIp,
    risk: o.risk,
    paymentTokenHash: token.hash,
  });
  order.total = totalOf(order);
  return { order, token };
}

/** Statement texts by companion CTE (the same text every time: the statement's cache key). */
const pricedInsertTexts = new Map<string, string>();
const guessedInsertCtes = new Map<string, string>();

/**
 * Inserts a priced order in the store's first status of kind `new`, with its event, webhooks and
 * hooks as any new order; returns it and its token (shown once, to the customer). `withOrder` is
 * written by the insert's statement. The store's defaults are the ones its last order read, checked
 * (and locked, as `newOrderDefaults` locks them) by that statement, which then records the event
 * too: one round trip. A guess that no longer holds writes nothing, and the defaults are read (and
 * locked) by the insert's statement, the event recorded by the next.
 */
export async function insertPricedOrder(tx: TxCtx, storeId: string, o: PricedOrder, withOrder?: WrittenWithOrder): Promise<{ order: OrderType; entity: Order; statusName: string; token: string }> {
  const { order, token } = pricedOrderEntity(storeId, o);
  const em = tx.em as EntityManager;
  const key = withOrder?.ctes ?? '';
  const companion = withOrder ? `,\n          ${withOrder.ctes}` : '';
  const guess = rememberedDefaults(storeId);
  if (guess) {
    Object.assign(order, { currency: guess.currency, statusId: guess.statusId, status: guess.status });
    const view = orderView(order);
    const insert = insertSelect(em, Order, order);
    let ctes = guessedInsertCtes.get(key);
    if (!ctes) {
      // The defaults first (materialized: the store row, then the status, locked before the insert).
      ctes = `d as materialized (${NEW_ORDER_DEFAULTS}),
          ok as (select 1 from d where currency = ? and status_id = ? and slug = ? and coalesce(name, slug) = ?),
          o as (insert into orders (${insert.columns}) select ${insert.values} from ok returning id, status_id, created_at)${companion}`;
      guessedInsertCtes.set(key, ctes);
    }
    const recorded = await writeWithEventIn(
      tx,
      { ctes, params: [storeId, guess.currency, guess.statusId, guess.status, guess.statusName, ...insert.params, ...(withOrder?.params ?? [])], written: 'o' },
      { storeId, event: 'orderCreated', record: view, inbound: false },
    );
    if (recorded) {
      tx.storeCurrencies ??= new Map();
      tx.storeCurrencies.set(storeId, guess.currency);
      await orderWritten(tx, { storeId, order: view, previous: null, statusKind: 'new', inbound: false });
      return { order: view, entity: order, statusName: guess.statusName, token: token.token };
    }
    forgetDefaults(storeId);
  }
  const insert = insertSelect(em, Order, order, { currency: 'd.currency', statusId: 'd.status_id', status: 'd.slug' });
  let text = pricedInsertTexts.get(key);
  if (!text) {
    text = `with d as materialized (${NEW_ORDER_DEFAULTS}),
          o as (insert into orders (${insert.columns}) select ${insert.values} from d where d.status_id is not null and d.slug is not null
                returning id, status_id, created_at)${companion}
     select d.currency, d.status_id, d.slug, d.name from d`;
    pricedInsertTexts.set(key, text);
  }
  const [row] = await em.execute<Array<NewOrderDefaultsRow>>(text, [storeId, ...insert.params, ...(withOrder?.params ?? [])]);
  const d = readDefaults(tx, storeId, row);
  Object.assign(order, { currency: d.currency, statusId: d.statusId, status: d.status });
  const view = await orderInserted(tx, order, { inbound: false, statusKind: 'new' });
  return { order: view, entity: order, statusName: d.statusName, token: token.token };
}

/**
 * What must hold for a priced order written alone (`insertPricedOrderAlone`): CTE definitions the
 * caller's domain writes or reads first (named other than d, ok, o, s, e, h, j and its companion's),
 * with their bindings; `holds`, a condition over them (bindings `holdsParams`); `why`, a jsonb
 * expression over them that the caller reads when the statement was undone. The texts are the
 * caller's constants (one per shape): the statement's text is built once for them.
 */
export interface OrderGuard {
  ctes: string;
  params: unknown[];
  holds: string;
  holdsParams: unknown[];
  why: string;
}

export type PlacedOrder = { order: OrderType; entity: Order; statusName: string; token: string };

/**
 * A priced order as one statement outside any transaction, as the members' one-statement create
 * writes theirs (order.one-statement.ts): only in a store whose defaults its last order read, and
 * that no module follows orders of. The guard's CTEs run first; the order is inserted only if the
 * guard holds and the defaults still do, and a statement that inserted nothing is undone whole
 * (`souk_undo_unless`), the guard's own writes with it: then `undone` is the guard's `why`. Null
 * when it does not apply or lost a race to a deadlock: the caller's transaction writes the order.
 */
export async function insertPricedOrderAlone(ctx: Ctx, storeId: string, o: PricedOrder, guard: OrderGuard, withOrder: WrittenWithOrder): Promise<{ placed: PlacedOrder } | { undone: unknown } | null> {
  const guess = rememberedDefaults(storeId);
  if (!guess || inTransaction(ctx)) return null;
  if (ctx.deps.modules.some((m) => m.onOrderWritten && (m.followsOrders?.(ctx.deps, storeId) ?? true))) return null;
  const { order, token } = pricedOrderEntity(storeId, o);
  Object.assign(order, { currency: guess.currency, statusId: guess.statusId, status: guess.status });
  const view = orderView(order);
  const insert = insertSelect(ctx.em as EntityManager, Order, order);
  // Texts by the guard's and the companion's own strings (constants of the caller's): built once.
  let byCompanion = aloneInsertTexts.get(guard.ctes);
  if (!byCompanion) aloneInsertTexts.set(guard.ctes, (byCompanion = new Map()));
  let text = byCompanion.get(withOrder.ctes);
  if (!text) {
    text = {
      ctes: `${guard.ctes},
          d as materialized (${NEW_ORDER_DEFAULTS}),
          ok as (select 1 from d where currency = ? and status_id = ? and slug = ? and coalesce(name, slug) = ? and ${guard.holds}),
          o as (insert into orders (${insert.columns}) select ${insert.values} from ok returning id, status_id, created_at),
          ${withOrder.ctes}`,
      check: `souk_undo_unless(exists(select 1 from o), ${guard.why})`,
    };
    byCompanion.set(withOrder.ctes, text);
  }
  const { ctes, check } = text;
  try {
    const recorded = await writeWithEvent(
      ctx,
      {
        ctes,
        params: [...guard.params, storeId, guess.currency, guess.statusId, guess.status, guess.statusName, ...guard.holdsParams, ...insert.params, ...withOrder.params],
        written: 'o',
        check,
      },
      { storeId, event: 'orderCreated', record: view, inbound: false },
    );
    if (!recorded) return null;
  } catch (err) {
    const undone = undoneWhy(err);
    if (undone !== undefined) return { undone };
    if (isRetryable(err)) return null;
    throw err;
  }
  return { placed: { order: view, entity: order, statusName: guess.statusName, token: token.token } };
}

const aloneInsertTexts = new Map<string, Map<string, { ctes: string; check: string }>>();

/** The `why` of a statement `souk_undo_unless` undid (SQLSTATE SK001), or undefined for any other error. */
function undoneWhy(err: unknown): unknown {
  const e = err as { code?: unknown; detail?: unknown } | null;
  if (e?.code !== 'SK001' || typeof e.detail !== 'string') return undefined;
  return JSON.parse(e.detail);
}

/** A cart's products and quantities as the duplicate check compares them (whatever the order of its lines), hashed: a key for a row. */
export function cartItemsKey(items: ReadonlyArray<{ productId: string | null; quantity: number }>): string {
  return createHash('sha256').update(itemsKey(items)).digest('base64url');
}

export type { OrderRisk };

/** What a customer may be shown of an order: the entity stays inside this domain. */
export type CustomerOrderFields = Readonly<Pick<Order, 'id' | 'currency' | 'paymentStatus' | 'items' | 'discount' | 'shippingCost' | 'total' | 'createdAt' | 'updatedAt'>>;

/** What the customer's view of an order reads: the order and its status's name and kind. */
export interface CustomerOrder {
  order: CustomerOrderFields;
  statusName: string;
  statusKind: string;
}

export async function customerOrder(ctx: Ctx, storeId: string, orderId: string): Promise<CustomerOrder> {
  const order = await ctx.em.findOne(Order, { id: orderId, storeId });
  if (!order) throw notFound('order');
  const status = await ctx.em.findOne(OrderStatus, { id: order.statusId });
  return { order, statusName: status?.name ?? order.status, statusKind: status?.kind ?? 'other' };
}

/**
 * The customer cancels: while the order's status is of kind `new`, to the store's first status of
 * kind `cancelled` (orderUpdated as for any change); any other kind is a 409. Locks as every status
 * move does: the store, the target status, then the order.
 */
export async function cancelWhileNew(ctx: Ctx, storeId: string, orderId: string): Promise<OrderType> {
  return transaction(ctx, async (tx) => {
    await lockStore(tx, storeId);
    const target = await tx.em.findOne(OrderStatus, { storeId, kind: 'cancelled' }, { orderBy: { position: 'asc', id: 'asc' } });
    const order = await lockOrder(tx, storeId, orderId);
    const current = await tx.em.findOne(OrderStatus, { id: order.statusId });
    if (current?.kind !== 'new') throw conflict('Only an order that is still new can be cancelled by its customer');
    if (!target) throw conflict('This store has no status of kind cancelled');
    const { view } = await changeOrder(tx, order, (o) => setStatus(o, target));
    return view;
  });
}

/**
 * A phone's and an address's record in one store, in one statement: for the storefront's risk
 * score, orders by the kind of their status now and the address's orders in the last hour; for
 * its duplicate check, the phone's orders since `recentSince`. Read after `customerLock`, by
 * `customerRecordRead` within a statement the caller makes anyway.
 */
export interface CustomerRecord {
  byKind: Record<string, number>;
  addressLastHour: number;
  /** Phones the address ordered with and addresses the phone ordered from, other than these. */
  otherPhones: string[];
  otherAddresses: string[];
  /** The items of the phone's recent orders. */
  recent: OrderItem[][];
}

/**
 * The record as a select-list expression (one jsonb value) and its bindings, for a statement the
 * caller makes anyway; `customerRecordOf` reads the value.
 */
export function customerRecordRead(storeId: string | { sql: string }, phone: string, address: string, recentSince: Date): { sql: string; params: unknown[] } {
  // The store by a binding, or (`{ sql }`) by a column of the caller's statement.
  const store = typeof storeId === 'string' ? '?' : storeId.sql;
  const bound = typeof storeId === 'string' ? [storeId] : [];
  return {
    sql: `(select to_jsonb(r) from (select
       (select jsonb_object_agg(kind, n) from (select st.kind, count(*)::int as n from orders o join order_statuses st on st.id = o.status_id
          where o.store_id = ${store} and o.customer_phone = ? group by st.kind) k) as by_kind,
       (select count(*)::int from orders where store_id = ${store} and customer_ip = ? and created_at > now() - interval '1 hour') as last_hour,
       (select array_agg(distinct customer_phone) from (select customer_phone from orders where store_id = ${store} and customer_ip = ? and customer_phone <> ?
          order by created_at desc limit 20) a) as phones,
       (select array_agg(distinct customer_ip) from (select customer_ip from orders where store_id = ${store} and customer_phone = ? and customer_ip <> ?
          order by created_at desc limit 20) b) as addresses,
       (select jsonb_agg(items) from (select items from orders where store_id = ${store} and customer_phone = ? and created_at > ?
          order by created_at desc limit 50) r) as recent) r)`,
    params: [...bound, phone, ...bound, address, ...bound, address, phone, ...bound, phone, address, ...bound, phone, recentSince],
  };
}

/** The record `customerRecordRead` read. */
export function customerRecordOf(value: unknown): CustomerRecord {
  const row = value as { by_kind: Record<string, number> | null; last_hour: number; phones: string[] | null; addresses: string[] | null; recent: OrderItem[][] | null } | null;
  return {
    byKind: row?.by_kind ?? {},
    addressLastHour: row?.last_hour ?? 0,
    otherPhones: row?.phones ?? [],
    otherAddresses: row?.addresses ?? [],
    recent: row?.recent ?? [],
  };
}

/** Whether one of the customer's recent orders holds these products in these quantities (a duplicate checkout). */
export function orderedRecently(record: CustomerRecord, items: ReadonlyArray<{ productId: string | null; quantity: number }>): boolean {
  const key = itemsKey(items);
  return record.recent.some((r) => itemsKey(r) === key);
}

/** Products and quantities, whatever the order of the lines. */
function itemsKey(items: ReadonlyArray<{ productId: string | null; quantity: number }>): string {
  const sum = new Map<string, number>();
  for (const i of items) sum.set(i.productId ?? '', (sum.get(i.productId ?? '') ?? 0) + i.quantity);
  return JSON.stringify([...sum].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * Serializes one customer's orders in a store until the transaction ends (duplicate checks see
 * each other): a select-list expression and its bindings, for a statement the caller makes anyway.
 */
export const customerLock = (storeId: string, phone: string): { sql: string; params: unknown[] } => ({
  sql: 'pg_advisory_xact_lock(hashtextextended(?, 0))',
  params: [`order-customer:${storeId}:${phone}`],
});
