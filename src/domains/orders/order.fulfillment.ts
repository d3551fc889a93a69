import { LockMode } from '@mikro-orm/core';
import { AppError } from '../../core/errors.js';
import type { TxCtx } from '../../core/tx.js';
import { Order, OrderStatus, type Fulfillment, type ShippingAddress } from './order.entity.js';
import { changeOrder, setStatus } from './order.service.js';
import { amountDue } from './order.money.js';
import { moveAllowed } from './statuses.js';

/**
 * The order as a carrier ships it, and the one way a carrier changes an order: its fulfilment
 * and, through the store's status map, its status. Lock order (every writer of a parcel and its
 * order): the target status (share), the order, then the parcel.
 */

/** Amounts in minor units of `currency`. */
export interface ShippableOrder {
  id: string;
  customerName: string;
  customerPhone: string | null;
  items: ReadonlyArray<{ name: string; quantity: number }>;
  shippingAddress: ShippingAddress | null;
  shippingType: string | null;
  currency: string;
  /** What the courier collects: the amount still due. */
  due: number;
  /** The kind of the order's status (undefined: no such status any more). */
  statusKind: string | undefined;
}

/** Locks the store's orders with these ids (FOR UPDATE, in id order) before parcels are claimed for them. */
export async function lockOrdersForShipping(tx: TxCtx, storeId: string, ids: string[]): Promise<Map<string, ShippableOrder>> {
  const orders = await tx.em.find(Order, { storeId, id: { $in: ids } }, { orderBy: { id: 'asc' }, lockMode: LockMode.PESSIMISTIC_WRITE });
  const kinds = new Map((await tx.em.find(OrderStatus, { storeId }, { fields: ['id', 'kind'] })).map((s) => [s.id, s.kind]));
  return new Map(
    orders.map((o) => [
      o.id,
      {
        id: o.id,
        customerName: o.customerName,
        customerPhone: o.customerPhone,
        items: o.items.map((i) => ({ name: i.name, quantity: i.quantity })),
        shippingAddress: o.shippingAddress,
        shippingType: o.shippingType,
        currency: o.currency,
        due: amountDue(o),
        statusKind: kinds.get(o.statusId),
      },
    ]),
  );
}

/** An order locked for a carrier's news, with the status the news may move it to. */
export class FulfillmentLock {
  readonly orderId: string;
  readonly #order: Order;
  readonly #target: OrderStatus | null;

  constructor(order: Order, target: OrderStatus | null) {
    this.orderId = order.id;
    this.#order = order;
    this.#target = target;
  }

  static parts(lock: FulfillmentLock): { order: Order; target: OrderStatus | null } {
    return { order: lock.#order, target: lock.#target };
  }
}

/**
 * Locks the status of slug `targetSlug` (share, when given and the store has it), then the order
 * (FOR UPDATE). Null when the order is gone.
 */
export async function lockForFulfillment(tx: TxCtx, storeId: string, orderId: string, targetSlug: string | null | undefined): Promise<FulfillmentLock | null> {
  const target = targetSlug ? await tx.em.findOne(OrderStatus, { storeId, slug: targetSlug }, { lockMode: LockMode.PESSIMISTIC_READ }) : null;
  const order = await tx.em.findOne(Order, { id: orderId, storeId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  return order ? new FulfillmentLock(order, target) : null;
}

/**
 * The parcel's state reaches the order: its `fulfillment`, and, when `moveStatus` (the parcel's
 * status changed) and the locked target allows it, its status, in one orderUpdated. A status move
 * the order refuses (409, e.g. stock) leaves the status as it is; the fulfilment still lands.
 */
export async function applyFulfillment(tx: TxCtx, lock: FulfillmentLock, news: { fulfillment: Fulfillment; moveStatus: boolean }): Promise<void> {
  const { order, target } = FulfillmentLock.parts(lock);
  const fromKind = target ? (await tx.em.findOne(OrderStatus, { id: order.statusId }))?.kind : undefined;
  const moves = !!target && news.moveStatus && target.id !== order.statusId && moveAllowed(fromKind, target);
  try {
    await changeOrder(tx, order, (o) => {
      o.fulfillment = news.fulfillment;
      if (moves) setStatus(o, target!);
    });
  } catch (err) {
    if (!moves || !(err instanceof AppError && err.code === 'CONFLICT')) throw err;
    await changeOrder(tx, order, (o) => {
      o.fulfillment = news.fulfillment;
    });
  }
}
