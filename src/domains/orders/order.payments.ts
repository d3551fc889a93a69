import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Ctx } from '../../core/context.js';
import { conflict, invalid, notFound } from '../../core/errors.js';
import type { TxCtx } from '../../core/tx.js';
import { Order } from './order.entity.js';
import { changeOrder } from './order.service.js';
import { amountDue, paymentStatusOf, type PaymentTally } from './order.money.js';

/**
 * The order as the payment domain sees it, and the one way payments change an order: the
 * payment domain keeps its payments and refunds, tells the order what they add up to, and the
 * order derives its `paymentStatus` (order.money.ts).
 */

/** Amounts in minor units of `currency`. */
export interface PayableOrder {
  id: string;
  storeId: string;
  currency: string;
  total: number;
  /** What is still to be paid (order.money.ts `amountDue`). */
  due: number;
  paymentStatus: string;
  paymentMethod: string | null;
}

const payable = (o: Order): PayableOrder => ({
  id: o.id,
  storeId: o.storeId,
  currency: o.currency,
  total: o.total,
  due: amountDue(o),
  paymentStatus: o.paymentStatus,
  paymentMethod: o.paymentMethod,
});

/** The order as it stands, without a lock; null when there is none. */
export async function findPayableOrder(ctx: Ctx, orderId: string): Promise<PayableOrder | null> {
  const order = await ctx.em.fork().findOne(Order, { id: orderId });
  return order ? payable(order) : null;
}

/** The store an order belongs to (one indexed read, for authorization and provider ingress); null when there is no such order. */
export async function storeOfOrder(ctx: Ctx, orderId: string): Promise<string | null> {
  const [row] = await (ctx.em as EntityManager).execute<Array<{ store_id: string }>>('select store_id from orders where id = ?', [orderId]);
  return row?.store_id ?? null;
}

/**
 * The order locked for a payment write (FOR UPDATE, read afresh): every payment write of an order
 * takes this lock first, then its payment rows, so they serialize per order.
 */
export async function lockPayableOrder(tx: TxCtx, orderId: string): Promise<PayableOrder> {
  const order = await tx.em.findOne(Order, { id: orderId }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
  if (!order) throw notFound('order');
  return payable(order);
}

/** Payments already covering the order (`partially_paid` is not: a checkout may ask for the rest). */
const PAID_STATUSES: ReadonlySet<string> = new Set(['paid', 'partially_refunded', 'refunded']);

/** 409 for an order that is paid, rejected or cancelled; 400 when there is nothing to pay. */
export async function assertPayable(tx: TxCtx, order: PayableOrder): Promise<void> {
  if (PAID_STATUSES.has(order.paymentStatus)) throw conflict('This order is already paid');
  const [status] = await (tx.em as EntityManager).execute<Array<{ kind: string }>>(
    'select s.kind from order_statuses s join orders o on o.status_id = s.id where o.id = ?',
    [order.id],
  );
  if (status && (status.kind === 'rejected' || status.kind === 'cancelled')) throw conflict(`A ${status.kind} order cannot be paid`);
  if (order.total <= 0) throw invalid('total', 'is 0: there is nothing to pay');
}

/** Whether the order's payments already cover it (a cash remittance then records nothing more). */
export const isPaid = (order: PayableOrder): boolean => PAID_STATUSES.has(order.paymentStatus);

/**
 * What the order's payments add up to, recorded on the order (locked by `lockPayableOrder` in
 * this transaction): `amountPaid` takes `paid`, `paymentStatus` follows (order.money.ts), and
 * `method` is the last selected one. A change goes through the order's change path: one
 * orderUpdated with previous_data.
 */
export async function recordPaymentState(tx: TxCtx, order: PayableOrder, tally: PaymentTally & { method?: string | null }): Promise<PayableOrder> {
  const entity = await tx.em.findOneOrFail(Order, { id: order.id });
  await changeOrder(tx, entity, (o) => {
    o.amountPaid = tally.paid;
    o.paymentStatus = paymentStatusOf(o.total, tally);
    if (tally.method) o.paymentMethod = tally.method;
  });
  return payable(entity);
}
