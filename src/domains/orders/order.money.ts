import { lineMinor, sumMinor } from '../../core/money.js';
import type { Order, OrderItem } from './order.entity.js';

/**
 * The order's amounts, in one place: what it asks for (items + shipping − discount), what is
 * still due, and the payment status its payments add up to. Minor units of the order's currency.
 */

export const itemsTotal = (items: readonly OrderItem[]): number => sumMinor(items.map((i) => lineMinor(i.price, i.quantity)));

export const totalOf = (order: Pick<Order, 'items' | 'shippingCost' | 'discount'>): number => Math.max(0, itemsTotal(order.items) + order.shippingCost - order.discount);

/** What the payment domain reports of an order's payments and refunds. */
export interface PaymentTally {
  /** Paid payments, summed. */
  paid: number;
  /** Succeeded refunds, summed. */
  refunded: number;
  /** Some payment is still waiting for its outcome. */
  open: boolean;
}

export function paymentStatusOf(t: PaymentTally): string {
  if (t.paid > 0) return t.refunded >= t.paid ? 'refunded' : t.refunded > 0 ? 'partially_refunded' : 'paid';
  return t.open ? 'pending' : 'unpaid';
}

/** What is still to be paid: what cash on delivery collects and a new checkout asks for. */
export function amountDue(order: Pick<Order, 'total' | 'paymentStatus'>): number {
  return order.paymentStatus === 'paid' ? 0 : order.total;
}
