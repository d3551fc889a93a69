import { lineMinor, sumMinor } from '../../core/money.js';
import type { Order, OrderItem } from './order.entity.js';

/**
 * The order's amounts, in one place (as Saleor's `updates_amounts_for_order`): what it asks for
 * (items + shipping − discount), what its payments collected (`amountPaid`, reported by the
 * payment domain), what is still due, and the payment status these add up to. Minor units of
 * the order's currency.
 */

export const itemsTotal = (items: readonly OrderItem[]): number => sumMinor(items.map((i) => lineMinor(i.price, i.quantity)));

export const totalOf = (order: Pick<Order, 'items' | 'shippingCost' | 'discount'>): number => Math.max(0, itemsTotal(order.items) + order.shippingCost - order.discount);

/** What the payment domain reports of an order's payments and refunds. */
export interface PaymentTally {
  /** What paid payments collected in the order's currency, summed. */
  paid: number;
  /** Succeeded refunds, summed. */
  refunded: number;
  /** Some payment is still waiting for its outcome. */
  open: boolean;
}

/** Statuses a refund decides; a change of the total leaves them as they are. */
const REFUND_STATUSES: ReadonlySet<string> = new Set(['partially_refunded', 'refunded']);

/**
 * Refunds first (`refunded` once they reach what was paid, else `partially_refunded`), then what
 * was paid against the total (`paid`, or `partially_paid` below it), then `pending` while a
 * payment is open, else `unpaid`.
 */
export function paymentStatusOf(total: number, t: PaymentTally): string {
  if (t.paid > 0) {
    if (t.refunded > 0) return t.refunded >= t.paid ? 'refunded' : 'partially_refunded';
    return t.paid >= total ? 'paid' : 'partially_paid';
  }
  return t.open ? 'pending' : 'unpaid';
}

/**
 * The payment status after the total changed: what was paid is weighed against the new total;
 * `open` is whether a payment is still open (null: as far as the order knows, unchanged).
 */
export function repricedStatus(order: Pick<Order, 'total' | 'amountPaid' | 'paymentStatus'>, open: boolean | null): string {
  if (REFUND_STATUSES.has(order.paymentStatus)) return order.paymentStatus;
  return paymentStatusOf(order.total, { paid: order.amountPaid, refunded: 0, open: open ?? order.paymentStatus === 'pending' });
}

/** What is still to be paid: what cash on delivery collects and a new checkout asks for. */
export function amountDue(order: Pick<Order, 'total' | 'amountPaid'>): number {
  return Math.max(0, order.total - order.amountPaid);
}
