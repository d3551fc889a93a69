import type { EntityManager } from '@mikro-orm/postgresql';
import { systemContext, type Ctx, type PaymentGrant } from '../../core/context.js';
import { AppError } from '../../core/errors.js';
import { lineMinor, toMajor } from '../../core/money.js';
import type { TxCtx } from '../../core/tx.js';
import type { CommittedEvent } from '../../events/bus.js';
import { itemsTotal } from '../orders/order.money.js';
import { cancelWhileNew, customerOrder, type CustomerOrderFields, type WrittenWithOrder } from '../orders/order.customer.js';
import type { OrderWrite } from '../orders/order.hooks.js';
import type { OrderType } from '../orders/order.types.js';
import { parcelsOfOrder, type ParcelTracking } from '../carrier/parcel.tracking.js';
import { allowOrigin, findOpenStore } from './storefront.access.js';
import type { PublicOrderType } from './storefront.types.js';

/**
 * The customer's own order (CONTRACT-3 §17.6), reached with its token alone: the public view,
 * live updates of it, and cancelling while it is new. Never its notes, metadata, address, risk or
 * the store's members.
 */

/** The order the request's token opens; no token of an order is a 401 (the field's policy said so first). */
function grantOf(ctx: Ctx): PaymentGrant {
  if (!ctx.paymentGrant) throw new AppError('UNAUTHENTICATED', "This needs an order's token as the bearer token");
  return ctx.paymentGrant;
}

export async function publicOrder(ctx: Ctx, storeId: string, orderId: string): Promise<PublicOrderType> {
  const [{ order, statusName, statusKind }, history, parcels] = await Promise.all([
    customerOrder(ctx, storeId, orderId),
    (ctx.em as EntityManager).execute<Array<{ at: Date | string; name: string; kind: string }>>('select at, name, kind from order_status_history where order_id = ? order by id', [orderId]),
    parcelsOfOrder(ctx.em as EntityManager, orderId),
  ]);
  return publicOrderView(order, { name: statusName, kind: statusKind }, history, parcels);
}

/** The customer's view of an order from what was read (or just written) of it. */
export function publicOrderView(
  order: CustomerOrderFields,
  status: { name: string; kind: string },
  history: ReadonlyArray<{ at: Date | string; name: string; kind: string }>,
  parcels: readonly ParcelTracking[],
): PublicOrderType {
  const major = (minor: number) => toMajor(minor, order.currency);
  return {
    id: order.id,
    status,
    paymentStatus: order.paymentStatus,
    items: order.items.map((i) => ({ productId: i.productId, name: i.name, unitPrice: major(i.price), quantity: i.quantity, lineTotal: major(lineMinor(i.price, i.quantity)) })),
    subtotal: major(itemsTotal(order.items)),
    discount: major(order.discount),
    shippingPrice: major(order.shippingCost),
    total: major(order.total),
    currency: order.currency,
    createdAt: order.createdAt.toISOString(),
    updatedAt: order.updatedAt.toISOString(),
    history: history.map((h) => ({ at: new Date(h.at).toISOString(), status: h.name, kind: h.kind })),
    parcels: parcels.map((p) => ({ trackingNumber: p.tracking, status: p.status, updatedAt: p.updatedAt.toISOString() })),
  };
}

/** The order's store must still serve its storefront: a closed or deleted store closes its orders' pages too. */
async function openStoreOfOrder(ctx: Ctx, grant: PaymentGrant) {
  const store = await findOpenStore(ctx, grant.storeId);
  // Its CORS is the store's, as on every storefront route.
  allowOrigin(ctx, store.settings);
  return store;
}

export async function myOrder(ctx: Ctx): Promise<PublicOrderType> {
  const grant = grantOf(ctx);
  await openStoreOfOrder(ctx, grant);
  return publicOrder(ctx, grant.storeId, grant.orderId);
}

export async function cancelMyOrder(ctx: Ctx): Promise<PublicOrderType> {
  const grant = grantOf(ctx);
  await openStoreOfOrder(ctx, grant);
  await cancelWhileNew(ctx, grant.storeId, grant.orderId);
  return publicOrder(ctx, grant.storeId, grant.orderId);
}

/** What the customer follows of an order: its status, its payment status, its parcels (the fulfilment they report). */
const FOLLOWED: ReadonlyArray<keyof OrderType> = ['statusId', 'status', 'paymentStatus', 'fulfillment'];

/** Whether a committed event changed what the customer follows of the order (or removed it: null). */
export function concernsOrder(e: CommittedEvent, orderId: string): 'changed' | 'gone' | null {
  const data = e.data as { order?: OrderType; previous_data?: OrderType | null };
  if (data.order?.id !== orderId) return null;
  if (e.event === 'orderDeleted') return 'gone';
  if (e.event !== 'orderUpdated') return null;
  const before = data.previous_data;
  return !before || FOLLOWED.some((k) => JSON.stringify(before[k]) !== JSON.stringify(data.order![k])) ? 'changed' : null;
}

/** Buffered views beyond which a customer who does not read is dropped (a query of `myOrder` catches up). */
const MAX_QUEUED = 100;

/**
 * `Subscription.myOrder`: the view again each time what the customer follows changes, registered
 * on the store's realtime channel before it resolves (nothing committed afterwards is missed);
 * it ends when the order is deleted or the consumer returns.
 */
export async function subscribeMyOrder(ctx: Ctx): Promise<AsyncIterableIterator<PublicOrderType>> {
  const grant = grantOf(ctx);
  await openStoreOfOrder(ctx, grant);
  // Nothing of the request is kept: each view is read with a context of its own.
  const deps = ctx.deps;
  const queue: PublicOrderType[] = [];
  let wake: ((r: IteratorResult<PublicOrderType>) => void) | null = null;
  let done = false;
  // Views are read one after another, in event order: a later change is never overtaken by an earlier one.
  let reading = Promise.resolve();
  const finish = (): IteratorResult<PublicOrderType> => {
    if (!done) {
      done = true;
      unsubscribe();
      queue.length = 0;
      const w = wake;
      wake = null;
      w?.({ value: undefined, done: true });
    }
    return { value: undefined, done: true };
  };
  const push = (view: PublicOrderType) => {
    if (done) return;
    if (wake) {
      const w = wake;
      wake = null;
      w({ value: view, done: false });
    } else if (queue.length >= MAX_QUEUED) finish();
    else queue.push(view);
  };
  const unsubscribe = deps.realtime.subscribe(grant.storeId, (e) => {
    const news = done ? null : concernsOrder(e, grant.orderId);
    if (news === 'gone') {
      const end = () => void finish();
      reading = reading.then(end, end);
      return;
    }
    if (!news) return;
    reading = reading
      .then(() => publicOrder(systemContext(deps), grant.storeId, grant.orderId))
      .then(push, () => void finish());
  });
  const iterator: AsyncIterableIterator<PublicOrderType> = {
    next() {
      if (queue.length) return Promise.resolve({ value: queue.shift()!, done: false });
      if (done) return Promise.resolve({ value: undefined, done: true });
      return new Promise((resolve) => (wake = resolve));
    },
    return: () => Promise.resolve(finish()),
    throw: () => Promise.resolve(finish()),
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}

/**
 * The status history a customer sees, kept for storefront orders as they change status (a hook of
 * the order domain, run in the write's transaction): when, the status's name then, and its kind.
 * A new order's first row is written by its insert statement (`FIRST_STATUS_ROW`; the checkout is
 * the one writer of storefront orders).
 */
export async function noteStatusChange(tx: TxCtx, write: OrderWrite): Promise<void> {
  const o = write.order;
  if (o.source !== 'storefront' || !write.previous || write.previous.statusId === o.statusId) return;
  await (tx.em as EntityManager).execute(
    `insert into order_status_history (order_id, at, status_id, name, kind)
     select ?, ?, id, name, kind from order_statuses where id = ?`,
    [o.id, new Date(o.updatedAt), o.statusId],
  );
}

/** A new storefront order's first history row, written with the order (its status is the first of kind `new`). */
export const FIRST_STATUS_ROW: WrittenWithOrder = {
  ctes: `w as (insert into order_status_history (order_id, at, status_id, name, kind) select o.id, o.created_at, d.status_id, d.name, 'new' from o, d returning id)`,
  params: [],
};
