import { ForeignKeyConstraintViolationException, LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Order, OrderStatus, type OrderItem } from './order.entity.js';
import type { OrderCreateInput, OrderItemInput, OrderType, OrderUpdateInput } from './order.types.js';
import type { ApplyManyResult, OrderApplyManyInput } from './status.types.js';
import { Product } from '../products/product.entity.js';
import { AppError, conflict, invalid, notFound } from '../../core/errors.js';
import type { Ctx } from '../../core/context.js';
import { inTransaction, isRetryable, lockStore, transaction, type TxCtx } from '../../core/tx.js';
import { isInbound, recordEvent, recordEvents, writeWithEvent } from '../../events/outbox.js';
import { insertSelect } from '../../db/insert.js';
import { orderWritten } from './order.hooks.js';
import { page, pageLimit } from '../../lib/pagination.js';
import { parseInstant } from '../../lib/dates.js';
import { lineMinor, sumMinor, toMajor, toMinor } from '../../core/money.js';
import { holdsStock, lockProductsOfOrders, stockFollowsOrder, stockFollowsStatusMove } from '../inventory/stock.service.js';
import { redeemPromo } from '../promos/promo.service.js';
import { orderShippingCost } from '../shipping/shipping.service.js';
import { newPaymentToken } from '../payments/payment-token.js';
import { assertLandingPageOfStore } from '../landing-pages/landing-page.service.js';
import { patchedMetadata } from '../../lib/json.js';

/** The order as REST, GraphQL and event payloads show it: amounts in major units of its currency. */
export function orderView(o: Order): OrderType {
  const major = (minor: number) => toMajor(minor, o.currency);
  return {
    id: o.id,
    storeId: o.storeId,
    customerName: o.customerName,
    customerPhone: o.customerPhone,
    items: o.items.map((i) => ({ productId: i.productId, name: i.name, quantity: i.quantity, price: major(i.price) })),
    total: major(o.total),
    currency: o.currency,
    status: o.status,
    statusId: o.statusId,
    rejectReason: o.rejectReason,
    shippingAddress: o.shippingAddress,
    shippingMethodId: o.shippingMethodId,
    shippingType: o.shippingType,
    shippingCost: major(o.shippingCost),
    promoCode: o.promoCode,
    discount: major(o.discount),
    fulfillment: o.fulfillment,
    paymentStatus: o.paymentStatus,
    paymentMethod: o.paymentMethod,
    confirmedAt: o.confirmedAt ? o.confirmedAt.toISOString() : null,
    landingPageId: o.landingPageId,
    metadata: o.metadata,
    createdAt: o.createdAt.toISOString(),
    updatedAt: o.updatedAt.toISOString(),
  };
}

/** Items name products of the store or carry their own name and price; one query for all products. */
async function resolveItems(ctx: Ctx, storeId: string, currency: string, items: OrderItemInput[], path: string): Promise<OrderItem[]> {
  const ids = [...new Set(items.map((i) => i.productId).filter((id): id is string => !!id))];
  // Share-locked: a product is not deleted under an order that names it.
  const products = ids.length ? await ctx.em.find(Product, { storeId, id: { $in: ids } }, { lockMode: LockMode.PESSIMISTIC_READ }) : [];
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

/** Items + shipping − discount, exact in minor units. */
export const itemsTotal = (items: OrderItem[]) => sumMinor(items.map((i) => lineMinor(i.price, i.quantity)));
const totalOf = (order: Pick<Order, 'items' | 'shippingCost' | 'discount'>) => Math.max(0, itemsTotal(order.items) + order.shippingCost - order.discount);

interface NewOrderDefaults {
  currency: string;
  statusId: string;
  status: string;
}

/**
 * The store's currency and the status a new order takes (the first of kind `new` by position),
 * in one select (bindings: storeId). The status row is locked FOR KEY SHARE, the weakest lock that
 * every status write (which takes the list FOR UPDATE) waits for: a rename or delete of it waits for
 * the order to commit and then moves it too. The order's foreign key takes the same lock, so the
 * transaction holds one lock mode on the row, not two (each extra mode is a MultiXact member).
 */
const NEW_ORDER_DEFAULTS = `select s.currency, st.id as status_id, st.slug
   from stores s
   left join lateral (select id, slug from order_statuses where store_id = s.id and kind = 'new' order by position, id limit 1 for key share) st on true
  where s.id = ?`;

/**
 * What the last general create of each store read: a guess the one-statement create checks in
 * its own statement (a wrong guess writes nothing and the general path runs), so it needs no
 * invalidation. Bounded: cleared when it grows past this many stores.
 */
const lastDefaults = new Map<string, NewOrderDefaults>();
const LAST_DEFAULTS_MAX = 10_000;

async function newOrderDefaults(tx: TxCtx, storeId: string): Promise<NewOrderDefaults> {
  const [row] = await (tx.em as EntityManager).execute<Array<{ currency: string; status_id: string | null; slug: string | null }>>(NEW_ORDER_DEFAULTS, [storeId]);
  if (!row) throw notFound('store');
  if (!row.status_id || !row.slug) throw new Error(`store ${storeId} has no status of kind new`);
  tx.storeCurrencies ??= new Map();
  tx.storeCurrencies.set(storeId, row.currency);
  const defaults = { currency: row.currency, statusId: row.status_id, status: row.slug };
  if (lastDefaults.size >= LAST_DEFAULTS_MAX) lastDefaults.clear();
  lastDefaults.set(storeId, defaults);
  return defaults;
}

/**
 * A new order takes no store-wide lock: it reads what it needs (locking the status and share-locking the
 * products it names), inserts, and records its event, whose sequence row is the only lock it
 * queues on, from that statement to commit. A store deleted meanwhile ends in a 404.
 */
export async function createOrder(ctx: Ctx, storeId: string, input: OrderCreateInput): Promise<OrderType> {
  try {
    return (await createOrderInOneStatement(ctx, storeId, input)) ?? (await createOrderOnce(ctx, storeId, input));
  } catch (err) {
    if (!(err instanceof ForeignKeyConstraintViolationException)) throw err;
    const [store] = await ctx.em.execute('select 1 from stores where id = ?', [storeId]);
    if (!store) throw notFound('store');
    // A landing page or shipping method named by the order was deleted while it was written.
    throw conflict('A record this order names was deleted meanwhile; try again');
  }
}

/** The order as the input describes it, with what the store decides (its currency and first status). */
async function newOrder(ctx: Ctx, storeId: string, d: NewOrderDefaults, input: OrderCreateInput) {
  const { currency, statusId, status } = d;
  const items = await resolveItems(ctx, storeId, currency, input.items ?? [], 'items');
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

async function createOrderOnce(ctx: Ctx, storeId: string, input: OrderCreateInput): Promise<OrderType> {
  return transaction(ctx, async (tx) => {
    const { order, token } = await newOrder(tx, storeId, await newOrderDefaults(tx, storeId), input);
    if (input.promoCode) await applyPromo(tx, order, input.promoCode);
    // One INSERT, without the unit of work's change-set pass (nothing else changed here).
    await tx.em.insert(order);
    const view = orderView(order);
    const inbound = isInbound(input);
    await recordEvent(tx, { storeId, event: 'orderCreated', record: view, inbound });
    await orderWritten(tx, { storeId, order: view, previous: null, statusKind: 'new', inbound });
    // The token is shown once, to the creator; payloads and later reads never carry it.
    return { ...view, paymentToken: token.token };
  });
}

let oneStatementCtes: string | undefined;

/**
 * The common order (items with their own name and price, no promo code, landing page or shipping
 * method, in a store no module follows orders of) as one statement: the store's defaults are the
 * ones its last order read, checked in the statement, which inserts the order and records its
 * event only if they still hold (status locked as in the general path). Null when it did
 * not apply or wrote nothing.
 */
async function createOrderInOneStatement(ctx: Ctx, storeId: string, input: OrderCreateInput): Promise<OrderType | null> {
  const d = lastDefaults.get(storeId);
  if (!d || inTransaction(ctx)) return null;
  if (input.promoCode || input.landingPageId != null || input.shippingMethodId || input.items?.some((i) => i.productId)) return null;
  if (ctx.deps.modules.some((m) => m.onOrderWritten && (m.followsOrders?.(ctx.deps, storeId) ?? true))) return null;
  const { order, token } = await newOrder(ctx, storeId, d, input);
  const insert = insertSelect(ctx.em as EntityManager, Order, order);
  // The same text every time (the statement's cache key): built once.
  oneStatementCtes ??= `d as (${NEW_ORDER_DEFAULTS}),
               ok as (select 1 from d where currency = ? and status_id = ? and slug = ?),
               o as (insert into orders (${insert.columns}) select ${insert.values} from ok returning id)`;
  const view = orderView(order);
  let committed;
  try {
    committed = await writeWithEvent(
      ctx,
      {
        ctes: oneStatementCtes,
        params: [storeId, d.currency, d.statusId, d.status, ...insert.params],
        written: 'o',
      },
      { storeId, event: 'orderCreated', record: view, inbound: isInbound(input) },
    );
  } catch (err) {
    // A deadlock or serialization loss: the general path retries it in a transaction.
    if (isRetryable(err)) return null;
    throw err;
  }
  if (!committed) {
    lastDefaults.delete(storeId);
    return null;
  }
  return { ...view, paymentToken: token.token };
}

/** Redeems the code in the order's transaction; a free-shipping code takes the shipping cost off. */
async function applyPromo(tx: TxCtx, order: Order, code: string): Promise<void> {
  const redemption = await redeemPromo(tx, order.storeId, order, code);
  order.promoCode = redemption.code;
  order.discount = redemption.freeShipping ? order.shippingCost : redemption.discount;
  order.total = totalOf(order);
}

export interface OrderFilter {
  limit?: number | null;
  cursor?: string | null;
  status?: string | null;
  q?: string | null;
  createdAfter?: string | null;
  createdBefore?: string | null;
}

export async function listOrders(ctx: Ctx, storeId: string, f: OrderFilter) {
  const limit = pageLimit(f.limit);
  const where: Record<string, unknown> = { storeId };
  if (f.cursor) where.id = { $lt: f.cursor };
  if (f.status) where.status = f.status;
  if (f.q) {
    const like = `%${f.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    where.$or = [{ customerName: { $ilike: like } }, { customerPhone: { $ilike: like } }];
  }
  const created: Record<string, Date> = {};
  if (f.createdAfter) created.$gte = parseInstant(f.createdAfter, 'createdAfter');
  if (f.createdBefore) created.$lt = parseInstant(f.createdBefore, 'createdBefore');
  if (Object.keys(created).length) where.createdAt = created;
  const rows = await ctx.em.find(Order, where, { orderBy: { id: 'desc' }, limit: limit + 1 });
  const p = page(rows, limit);
  return { data: p.data.map(orderView), nextCursor: p.nextCursor };
}

export async function findOrder(ctx: Ctx, storeId: string, id: string): Promise<Order> {
  const order = await ctx.em.findOne(Order, { id, storeId });
  if (!order) throw notFound('order');
  return order;
}

/**
 * An order about to be written, locked after the store row and read afresh: its previous state
 * and status checks see what the last writer committed, and an order deleted meanwhile is a 404.
 * Callers lock a target status (if any) before it, as the status-list writes do.
 */
export async function lockOrder(tx: TxCtx, storeId: string, id: string): Promise<Order> {
  const order = await tx.em.findOne(Order, { id, storeId }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
  if (!order) throw notFound('order');
  return order;
}

export async function getOrder(ctx: Ctx, storeId: string, id: string): Promise<OrderType> {
  return orderView(await findOrder(ctx, storeId, id));
}

/**
 * Applies a change to an order and emits orderUpdated with the previous state,
 * in the caller's transaction; unchanged orders emit nothing. `inbound`: the write itself
 * carries the inbound marker; `statusKind`: the kind of the status it sets, when known.
 */
export async function changeOrder(
  tx: TxCtx,
  order: Order,
  apply: (o: Order) => void | Promise<void>,
  opts: { inbound?: boolean; statusKind?: string } = {},
): Promise<{ view: OrderType; changed: boolean }> {
  const before = orderView(order);
  const saved = { ...order };
  await apply(order);
  const after = orderView(order);
  if (JSON.stringify({ ...after, updatedAt: null }) === JSON.stringify({ ...before, updatedAt: null })) return { view: before, changed: false };
  try {
    await stockFollowsOrder(tx, order, saved);
  } catch (err) {
    // Refused (409, not enough stock): the order stays as it was, so a batch can go on.
    Object.assign(order, saved);
    throw err;
  }
  order.updatedAt = new Date();
  await tx.em.flush();
  const view = orderView(order);
  const inbound = opts.inbound ?? false;
  await recordEvent(tx, { storeId: order.storeId, event: 'orderUpdated', record: view, previous: before, inbound });
  await orderWritten(tx, { storeId: order.storeId, order: view, previous: before, statusKind: opts.statusKind, inbound });
  return { view, changed: true };
}

/** A rejection reason describes the current rejection: it goes when the order leaves kind `rejected`. */
export function setStatus(order: Order, status: OrderStatus): void {
  order.statusId = status.id;
  order.status = status.slug;
  if (status.kind !== 'rejected') order.rejectReason = null;
  if (!order.confirmedAt && CONFIRMED_KINDS.has(status.kind)) order.confirmedAt = new Date();
}

/** Kinds whose first reach sets `confirmedAt`. */
export const CONFIRMED_KINDS = new Set(['confirmed', 'fulfilled']);

/** Kinds an order cannot be confirmed from, whichever route tries. */
const FINAL_KINDS = new Set(['rejected', 'cancelled']);

export function moveAllowed(fromKind: string | undefined, to: { kind: string }): boolean {
  return !(to.kind === 'confirmed' && fromKind !== undefined && FINAL_KINDS.has(fromKind));
}

function assertMoveAllowed(fromKind: string | undefined, to: { kind: string }): void {
  if (!moveAllowed(fromKind, to)) throw conflict(`A ${fromKind} order cannot be confirmed`);
}

/**
 * The target status, share-locked so a concurrent rename or delete of it waits for this
 * transaction (and this one sees its outcome) instead of leaving orders on a stale slug.
 */
function lockTarget(tx: TxCtx, storeId: string, where: { id: string } | { kind: string }): Promise<OrderStatus | null> {
  return tx.em.findOne(OrderStatus, { storeId, ...where }, { orderBy: { position: 'asc', id: 'asc' }, lockMode: LockMode.PESSIMISTIC_READ });
}

/** Locks the store, the target status, then the order: the order of the status-list writes, so no deadlock. */
async function moveOrder(ctx: Ctx, storeId: string, id: string, target: (tx: TxCtx) => Promise<OrderStatus>, apply?: (o: Order) => void): Promise<OrderType> {
  return transaction(ctx, async (tx) => {
    await lockStore(tx, storeId);
    const status = await target(tx);
    const order = await lockOrder(tx, storeId, id);
    const current = await tx.em.findOne(OrderStatus, { id: order.statusId });
    assertMoveAllowed(current?.kind, status);
    const { view } = await changeOrder(
      tx,
      order,
      (o) => {
        setStatus(o, status);
        apply?.(o);
      },
      { statusKind: status.kind },
    );
    return view;
  });
}

async function statusById(tx: TxCtx, storeId: string, statusId: string): Promise<OrderStatus> {
  const status = await lockTarget(tx, storeId, { id: statusId });
  if (!status) throw invalid('statusId', 'is not a status of this store');
  return status;
}

async function firstOfKind(tx: TxCtx, storeId: string, kind: string): Promise<OrderStatus> {
  const status = await lockTarget(tx, storeId, { kind });
  if (!status) throw conflict(`This store has no status of kind ${kind}`);
  return status;
}

export function applyOrderStatus(ctx: Ctx, storeId: string, id: string, statusId: string): Promise<OrderType> {
  return moveOrder(ctx, storeId, id, (tx) => statusById(tx, storeId, statusId));
}

/** To the first status of kind `confirmed`; a rejected or cancelled order stays as it is (409). */
export function confirmOrder(ctx: Ctx, storeId: string, id: string): Promise<OrderType> {
  return moveOrder(ctx, storeId, id, (tx) => firstOfKind(tx, storeId, 'confirmed'));
}

/** To the first status of kind `rejected`, keeping the reason given (none clears an older one). */
export function rejectOrder(ctx: Ctx, storeId: string, id: string, reason: string | null | undefined): Promise<OrderType> {
  return moveOrder(ctx, storeId, id, (tx) => firstOfKind(tx, storeId, 'rejected'), (o) => {
    o.rejectReason = reason?.trim() || null;
  });
}

/**
 * One status for many orders in one transaction: one orderUpdated per changed order; ids that
 * are missing or may not move are reported in `failed` instead of failing the whole call.
 */
export async function applyOrderStatusMany(ctx: Ctx, storeId: string, input: OrderApplyManyInput): Promise<ApplyManyResult> {
  const ids = [...new Set(input.orderIds)];
  return transaction(ctx, async (tx) => {
    await lockStore(tx, storeId);
    const status = await statusById(tx, storeId, input.statusId);
    const orders = await tx.em.find(Order, { storeId, id: { $in: ids } }, { orderBy: { id: 'asc' }, lockMode: LockMode.PESSIMISTIC_WRITE });
    const kinds = new Map((await tx.em.find(OrderStatus, { storeId }, { fields: ['id', 'kind'] })).map((s) => [s.id, s.kind]));
    const byId = new Map(orders.map((o) => [o.id, o]));
    // Every product the batch may move, locked up front in id order (no deadlock between batches).
    await lockProductsOfOrders(tx, storeId, orders);
    const result: ApplyManyResult = { data: [], failed: [] };
    // Moves that take or give back no stock are decided here and written together: one UPDATE
    // (the unit of work batches them) and one statement for all their events. Moves that move
    // stock go one by one, so a product short of stock fails only its own order.
    const plain: Array<{ record: OrderType; previous: OrderType }> = [];
    const now = new Date();
    for (const id of ids) {
      const order = byId.get(id);
      if (!order) {
        result.failed.push({ id, code: 'NOT_FOUND' });
      } else if (!moveAllowed(kinds.get(order.statusId), status)) {
        result.failed.push({ id, code: 'CONFLICT' });
      } else if (movesStock(order, kinds.get(order.statusId), status.kind)) {
        try {
          await changeOrder(tx, order, (o) => setStatus(o, status), { statusKind: status.kind });
          result.data.push({ id, status: order.status });
        } catch (err) {
          if (!(err instanceof AppError && err.code === 'CONFLICT')) throw err;
          result.failed.push({ id, code: 'CONFLICT' });
        }
      } else {
        const previous = orderView(order);
        setStatus(order, status);
        const record = orderView(order);
        if (JSON.stringify({ ...record, updatedAt: null }) !== JSON.stringify({ ...previous, updatedAt: null })) {
          order.updatedAt = now;
          plain.push({ record: orderView(order), previous });
        }
        result.data.push({ id, status: order.status });
      }
    }
    await tx.em.flush();
    await recordEvents(tx, storeId, 'orderUpdated', plain);
    for (const e of plain) await orderWritten(tx, { storeId, order: e.record, previous: e.previous, statusKind: status.kind, inbound: false });
    return result;
  });
}

/** Whether moving the order to a status of `toKind` takes or gives back stock. */
function movesStock(order: Order, fromKind: string | undefined, toKind: string): boolean {
  return holdsStock(fromKind) !== holdsStock(toKind) && order.items.some((i) => i.productId);
}

/**
 * Moves every order of a status to another (or to the same status under a new slug) with one
 * UPDATE, and records one orderUpdated per moved order with its previous state.
 */
export async function moveStatusOrders(tx: TxCtx, storeId: string, fromId: string, to: OrderStatus): Promise<number> {
  const em = tx.em as EntityManager;
  await stockFollowsStatusMove(tx, storeId, fromId, to.kind);
  const rows: Array<Record<string, any>> = await em.execute(
    `with old as (select id, status_id, status, reject_reason, confirmed_at, updated_at from orders where store_id = ? and status_id = ? for update)
     update orders o set status_id = ?, status = ?, reject_reason = case when ? then o.reject_reason end,
       confirmed_at = coalesce(o.confirmed_at, case when ? then ?::timestamptz end), updated_at = ?
     from old where o.id = old.id
     returning o.*, old.status_id as prev_status_id, old.status as prev_status, old.reject_reason as prev_reject_reason,
       old.confirmed_at as prev_confirmed_at, old.updated_at as prev_updated_at`,
    [storeId, fromId, to.id, to.slug, to.kind === 'rejected', CONFIRMED_KINDS.has(to.kind), new Date(), new Date()],
  );
  rows.sort((a, b) => (a.id < b.id ? -1 : 1));
  const events = rows.map(({ prev_status_id, prev_status, prev_reject_reason, prev_confirmed_at, prev_updated_at, ...row }) => {
    const view = orderView(em.map(Order, row));
    const previous: OrderType = {
      ...view,
      statusId: prev_status_id,
      status: prev_status,
      rejectReason: prev_reject_reason,
      confirmedAt: prev_confirmed_at ? new Date(prev_confirmed_at).toISOString() : null,
      updatedAt: new Date(prev_updated_at).toISOString(),
    };
    return { record: view, previous };
  });
  await recordEvents(tx, storeId, 'orderUpdated', events);
  for (const e of events) await orderWritten(tx, { storeId, order: e.record, previous: e.previous, statusKind: to.kind, inbound: false });
  return rows.length;
}

export async function updateOrder(ctx: Ctx, storeId: string, id: string, input: OrderUpdateInput): Promise<OrderType> {
  return transaction(ctx, async (tx) => {
    await lockStore(tx, storeId);
    let status: OrderStatus | null = null;
    if (input.status != null) {
      status = await tx.em.findOne(OrderStatus, { storeId, slug: input.status }, { lockMode: LockMode.PESSIMISTIC_READ });
      if (!status) throw invalid('status', 'is not a status of this store');
    }
    const order = await lockOrder(tx, storeId, id);
    // Checked on the locked order: a move refused here is refused whichever request came first.
    if (status && status.id !== order.statusId) assertMoveAllowed((await tx.em.findOne(OrderStatus, { id: order.statusId }))?.kind, status);
    const items = input.items ? await resolveItems(tx, storeId, order.currency, input.items, 'items') : null;
    const landingPageId = input.landingPageId != null ? await assertLandingPageOfStore(tx, storeId, input.landingPageId, 'landingPageId') : null;
    const { view } = await changeOrder(
      tx,
      order,
      (o) => {
        if (input.customerName != null) o.customerName = input.customerName.trim();
        if (input.customerPhone !== undefined) o.customerPhone = input.customerPhone || null;
        if (items) {
          o.items = items;
          o.total = totalOf(o);
        }
        if (status) setStatus(o, status);
        if (input.landingPageId !== undefined) o.landingPageId = landingPageId;
        if (input.metadata != null) o.metadata = input.metadata;
        if (input.metadataPatch != null) o.metadata = patchedMetadata(o.metadata, input.metadataPatch);
      },
      { inbound: isInbound(input), statusKind: status?.kind },
    );
    return view;
  });
}

/** `inbound`: the delete comes from an inbound connector (no webhook echoes it). */
export async function deleteOrder(ctx: Ctx, storeId: string, id: string, opts: { inbound?: boolean } = {}): Promise<void> {
  await transaction(ctx, async (tx) => {
    await lockStore(tx, storeId);
    const order = await lockOrder(tx, storeId, id);
    const view = orderView(order);
    tx.em.remove(order);
    await tx.em.flush();
    await recordEvent(tx, { storeId, event: 'orderDeleted', record: view, inbound: opts.inbound });
  });
}
