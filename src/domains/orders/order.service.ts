import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Order, OrderStatus, type OrderItem } from './order.entity.js';
import type { OrderCreateInput, OrderType, OrderUpdateInput } from './order.types.js';
import type { ApplyManyResult, OrderApplyManyInput } from './status.types.js';
import { AppError, conflict, invalid, notFound } from '../../core/errors.js';
import type { Ctx } from '../../core/context.js';
import { lockStore, transaction, type TxCtx } from '../../core/tx.js';
import { isInbound, recordEvent, recordEvents } from '../../events/outbox.js';
import { beforeOrderBatch, beforeOrderChange, beforeStatusKindMove, orderRepriced, orderWritten } from './order.hooks.js';
import { CONFIRMED_KINDS, holdsStock, moveAllowed } from './statuses.js';
import { page, pageLimit } from '../../lib/pagination.js';
import { parseInstant } from '../../lib/dates.js';
import { amountDue, repricedStatus, totalOf } from './order.money.js';
import { redeemPromo } from '../promos/promo.service.js';
import { assertLandingPageOfStore } from '../landing-pages/landing-page.service.js';
import { patchedMetadata } from '../../lib/json.js';
import { newOrder, newOrderDefaults, resolveItems } from './order.new.js';
import { createOrderInOneStatement } from './order.one-statement.js';
import { orderView } from './order.view.js';

/**
 * A new order takes no store-wide lock: it reads what it needs (locking the status and share-locking the
 * products it names), inserts, and records its event, whose sequence row is the only lock it
 * queues on, from that statement to commit. A store deleted meanwhile ends in a 404.
 */
export async function createOrder(ctx: Ctx, storeId: string, input: OrderCreateInput): Promise<OrderType> {
  // A landing page or shipping method deleted meanwhile fails a foreign key: 409 (core/errors.ts).
  return (await createOrderInOneStatement(ctx, storeId, input)) ?? (await createOrderOnce(ctx, storeId, input));
}

async function createOrderOnce(ctx: Ctx, storeId: string, input: OrderCreateInput): Promise<OrderType> {
  return transaction(ctx, async (tx) => {
    const { order, token } = await newOrder(tx, storeId, await newOrderDefaults(tx, storeId), input);
    if (input.promoCode) await applyPromo(tx, order, input.promoCode);
    const view = await insertOrder(tx, order, { inbound: isInbound(input), statusKind: 'new' });
    // The token is shown once, to the creator; payloads and later reads never carry it.
    return { ...view, paymentToken: token.token };
  });
}

/** Inserts a new order and records its orderCreated, in the caller's transaction. */
export async function insertOrder(tx: TxCtx, order: Order, opts: { inbound: boolean; statusKind: string }): Promise<OrderType> {
  // One INSERT, without the unit of work's change-set pass (nothing else changed here).
  await tx.em.insert(order);
  return orderInserted(tx, order, opts);
}

/** What follows an order's insert in its transaction: its orderCreated and the modules' hooks. */
export async function orderInserted(tx: TxCtx, order: Order, opts: { inbound: boolean; statusKind: string }): Promise<OrderType> {
  const view = orderView(order);
  await recordEvent(tx, { storeId: order.storeId, event: 'orderCreated', record: view, inbound: opts.inbound });
  await orderWritten(tx, { storeId: order.storeId, order: view, previous: null, statusKind: opts.statusKind, inbound: opts.inbound });
  return view;
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
  const rows = await ctx.deps.db.reads.em(ctx).find(Order, where, { orderBy: { id: 'desc' }, limit: limit + 1 });
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

/** The kinds of these statuses (a status deleted meanwhile is absent). */
async function statusKinds(tx: TxCtx, ids: string[]): Promise<Map<string, string>> {
  const rows = await (tx.em as EntityManager).execute<Array<{ id: string; kind: string }>>('select id, kind from order_statuses where id in (?)', [[...new Set(ids)]]);
  return new Map(rows.map((r) => [r.id, r.kind]));
}

const sameView = (a: OrderType, b: OrderType) => JSON.stringify({ ...a, updatedAt: null }) === JSON.stringify({ ...b, updatedAt: null });

/**
 * Applies a change to an order and emits orderUpdated with the previous state, in the caller's
 * transaction; unchanged orders emit nothing. A change of the order's status or items first goes
 * through the `beforeOrderChange` hooks (stock), which may refuse it: the order then stays as it
 * was, so a batch can go on. `inbound`: the write itself carries the inbound marker.
 */
export async function changeOrder(
  tx: TxCtx,
  order: Order,
  apply: (o: Order) => void | Promise<void>,
  opts: { inbound?: boolean; paymentStateGiven?: boolean } = {},
): Promise<{ view: OrderType; changed: boolean }> {
  const before = orderView(order);
  const saved = { ...order };
  await apply(order);
  if (sameView(orderView(order), before)) return { view: before, changed: false };
  let statusKind: string | undefined;
  try {
    if (saved.statusId !== order.statusId || saved.items !== order.items) {
      const kinds = await statusKinds(tx, [saved.statusId, order.statusId]);
      if (saved.statusId !== order.statusId) statusKind = kinds.get(order.statusId);
      await beforeOrderChange(tx, {
        storeId: order.storeId,
        orderId: order.id,
        fromKind: kinds.get(saved.statusId),
        toKind: kinds.get(order.statusId),
        itemsBefore: saved.items,
        itemsAfter: order.items,
      });
    }
    if ((saved.total !== order.total || saved.currency !== order.currency) && !opts.paymentStateGiven) await reprice(tx, order, saved.total);
  } catch (err) {
    Object.assign(order, saved);
    throw err;
  }
  order.updatedAt = new Date();
  await tx.em.flush();
  const view = orderView(order);
  const inbound = opts.inbound ?? false;
  await recordEvent(tx, { storeId: order.storeId, event: 'orderUpdated', record: view, previous: before, inbound });
  await orderWritten(tx, { storeId: order.storeId, order: view, previous: before, statusKind, inbound });
  return { view, changed: true };
}

/** Payment statuses under which the order may have an open payment (every payment write records it on the order). */
const MAY_HAVE_OPEN_PAYMENTS: ReadonlySet<string> = new Set(['pending', 'partially_paid']);

/**
 * The order's amount changed: an open payment no longer asks for what is due, so the module that
 * collects payments cancels or re-prices it, and the payment status is weighed against the new
 * total (a paid order whose items grew is `partially_paid`).
 */
async function reprice(tx: TxCtx, order: Order, totalBefore: number): Promise<void> {
  const open = MAY_HAVE_OPEN_PAYMENTS.has(order.paymentStatus)
    ? await orderRepriced(tx, { storeId: order.storeId, orderId: order.id, currency: order.currency, totalBefore, total: order.total, due: amountDue(order) })
    : false;
  order.paymentStatus = repricedStatus(order, open);
}

/** A rejection reason describes the current rejection: it goes when the order leaves kind `rejected`. */
export function setStatus(order: Order, status: OrderStatus): void {
  order.statusId = status.id;
  order.status = status.slug;
  if (status.kind !== 'rejected') order.rejectReason = null;
  if (!order.confirmedAt && CONFIRMED_KINDS.has(status.kind)) order.confirmedAt = new Date();
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
    // The locks the moves will need (the products they may move), taken up front in id order.
    await beforeOrderBatch(tx, { storeId, orders });
    const result: ApplyManyResult = { data: [], failed: [] };
    // Moves that change what an order holds are written one by one (a hook may refuse one, which
    // fails only that order). The others are decided here and written together: one UPDATE (the
    // unit of work batches them) and one statement for all their events.
    const plain: Array<{ record: OrderType; previous: OrderType }> = [];
    const now = new Date();
    for (const id of ids) {
      const order = byId.get(id);
      if (!order) {
        result.failed.push({ id, code: 'NOT_FOUND' });
      } else if (!moveAllowed(kinds.get(order.statusId), status)) {
        result.failed.push({ id, code: 'CONFLICT' });
      } else if (changesHolding(order, kinds.get(order.statusId), status.kind)) {
        try {
          await changeOrder(tx, order, (o) => setStatus(o, status));
          result.data.push({ id, status: order.status });
        } catch (err) {
          if (!(err instanceof AppError && err.code === 'CONFLICT')) throw err;
          result.failed.push({ id, code: 'CONFLICT' });
        }
      } else {
        const previous = orderView(order);
        const saved = { ...order };
        setStatus(order, status);
        const record = orderView(order);
        if (!sameView(record, previous)) {
          try {
            if (saved.statusId !== order.statusId) {
              const change = { storeId, orderId: id, fromKind: kinds.get(saved.statusId), toKind: status.kind, itemsBefore: order.items, itemsAfter: order.items };
              await beforeOrderChange(tx, change);
            }
          } catch (err) {
            Object.assign(order, saved);
            if (!(err instanceof AppError && err.code === 'CONFLICT')) throw err;
            result.failed.push({ id, code: 'CONFLICT' });
            continue;
          }
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

/** Whether moving the order to a status of `toKind` changes what it holds (its items with a product). */
function changesHolding(order: Order, fromKind: string | undefined, toKind: string): boolean {
  return holdsStock(fromKind) !== holdsStock(toKind) && order.items.some((i) => i.productId);
}

/** The orders of a status, locked in id order, as the status-kind hooks read them. */
async function lockOrdersOfStatus(tx: TxCtx, storeId: string, statusId: string): Promise<Array<{ id: string; items: OrderItem[] }>> {
  return (tx.em as EntityManager).execute('select id, items from orders where store_id = ? and status_id = ? order by id for update', [storeId, statusId]);
}

/** Every order of a status changes kind at once: the `beforeStatusKindMove` hooks run first (all or nothing). */
export async function statusKindMoves(tx: TxCtx, storeId: string, statusId: string, fromKind: string | undefined, toKind: string): Promise<void> {
  if (fromKind === toKind) return;
  await beforeStatusKindMove(tx, { storeId, statusId, fromKind, toKind, orders: () => lockOrdersOfStatus(tx, storeId, statusId) });
}

/**
 * Moves every order of a status to another (or to the same status under a new slug) with one
 * UPDATE, and records one orderUpdated per moved order with its previous state.
 */
export async function moveStatusOrders(tx: TxCtx, storeId: string, from: { id: string; kind: string }, to: OrderStatus): Promise<number> {
  const em = tx.em as EntityManager;
  const fromId = from.id;
  await statusKindMoves(tx, storeId, fromId, from.kind, to.kind);
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
      { inbound: isInbound(input) },
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
