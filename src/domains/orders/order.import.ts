import { LockMode } from '@mikro-orm/core';
import { AppError, invalid } from '../../core/errors.js';
import { decimalTextToMinor, exponent, isCurrency } from '../../core/money.js';
import type { TxCtx } from '../../core/tx.js';
import { storeCurrency } from '../stores/currency.js';
import { Order, OrderStatus, type OrderItem, type ShippingAddress } from './order.entity.js';
import { changeOrder, insertOrder, setStatus } from './order.service.js';
import { totalOf } from './order.money.js';
import { ORDER_LIMITS, ORDER_PAYMENT_STATUSES } from './order.types.js';
import { initialStatus } from './statuses.js';

/**
 * The one way an order comes in from another system (a connector's import or webhook): the same
 * limits as the API's inputs, applied here. Text is clamped to the API's lengths; a number the
 * API would refuse (a quantity outside 1..100000, more than 500 lines, an amount that is not one
 * or is above 10^12) refuses the whole order with VALIDATION_FAILED, so every stored order reads
 * back through the API.
 */

/** An order as another system describes it; amounts are decimal text in `currency`. */
export interface ImportedOrder {
  customerName: string;
  customerPhone: string | null;
  /** ISO 4217; unknown or null: the store's currency. */
  currency: string | null;
  items: ReadonlyArray<{ name: string; quantity: number; price: string }>;
  shippingCost: string;
  discount: string;
  shippingAddress: { country: string; address: string | null; communeName: string | null; wilayaCode: string | null } | null;
  paymentStatus: string;
  /** Move the order to the store's first status of this kind; null: a new order starts at the first `new` status, an existing one keeps its status. */
  kind: string | null;
  /** Kept under `metadata.connector` (other metadata keys a merchant added stay). */
  marker: Record<string, unknown>;
}

const clamp = (text: string | null | undefined, max: number): string | null => {
  const t = text?.trim();
  return t ? t.slice(0, max) : null;
};

/** Decimal text to minor units, rounded to the currency; negatives are 0, above the API's bound refused. */
function amount(text: string, currency: string, path: string): number {
  const minor = decimalTextToMinor(text, currency);
  if (minor === null) throw invalid(path, 'is not an amount');
  if (minor > ORDER_LIMITS.amount * 10 ** exponent(currency)) throw invalid(path, `must be at most ${ORDER_LIMITS.amount}`);
  return Math.max(0, minor);
}

/** Remote payment states in which the shop holds the order's money. */
const REMOTE_PAID: ReadonlySet<string> = new Set(['paid', 'partially_refunded', 'refunded']);

interface Fields {
  customerName: string;
  customerPhone: string | null;
  currency: string;
  items: OrderItem[];
  shippingCost: number;
  discount: number;
  total: number;
  shippingAddress: ShippingAddress | null;
  paymentStatus: string;
  amountPaid: number;
}

async function fieldsOf(tx: TxCtx, storeId: string, o: ImportedOrder): Promise<Fields> {
  const currency = o.currency && isCurrency(o.currency) ? o.currency : await storeCurrency(tx, storeId);
  if (o.items.length > ORDER_LIMITS.items) throw invalid('items', `must hold at most ${ORDER_LIMITS.items} items`);
  const items = o.items.map((i, n) => {
    if (!Number.isInteger(i.quantity) || i.quantity < 1 || i.quantity > ORDER_LIMITS.quantity) throw invalid(`items.${n}.quantity`, `must be 1 to ${ORDER_LIMITS.quantity}`);
    return { productId: null, name: clamp(i.name, ORDER_LIMITS.nameLength) ?? 'Item', quantity: i.quantity, price: amount(i.price, currency, `items.${n}.price`) };
  });
  const shippingCost = amount(o.shippingCost, currency, 'shippingCost');
  const discount = amount(o.discount, currency, 'discount');
  let total: number;
  try {
    total = totalOf({ items, shippingCost, discount });
  } catch (err) {
    if (err instanceof AppError) throw invalid('total', 'is too large');
    throw err;
  }
  const a = o.shippingAddress;
  const paymentStatus = (ORDER_PAYMENT_STATUSES as readonly string[]).includes(o.paymentStatus) ? o.paymentStatus : 'unpaid';
  return {
    customerName: clamp(o.customerName, ORDER_LIMITS.nameLength) ?? 'Customer',
    customerPhone: clamp(o.customerPhone, ORDER_LIMITS.phoneLength),
    currency,
    items,
    shippingCost,
    discount,
    total,
    shippingAddress: a
      ? {
          country: /^[A-Za-z]{2}$/.test(a.country) ? a.country.toUpperCase() : 'DZ',
          address: clamp(a.address, ORDER_LIMITS.addressLength),
          communeId: null,
          communeName: clamp(a.communeName, ORDER_LIMITS.nameLength),
          wilayaCode: a.wilayaCode && ORDER_LIMITS.stateCode.test(a.wilayaCode) ? a.wilayaCode : null,
        }
      : null,
    paymentStatus,
    // The remote shop collected the money: nothing is due here (cash on delivery collects nothing).
    amountPaid: REMOTE_PAID.has(paymentStatus) ? total : 0,
  };
}

/** The first status of a kind, share-locked (the order of locks of every status move). */
function statusOfKind(tx: TxCtx, storeId: string, kind: string): Promise<OrderStatus | null> {
  return tx.em.findOne(OrderStatus, { storeId, kind }, { orderBy: { position: 'asc', id: 'asc' }, lockMode: LockMode.PESSIMISTIC_READ });
}

/**
 * Creates the order, or updates the one `localId` names (when it still exists), as an inbound
 * write (CONTRACT-2 §14): orderCreated or one orderUpdated, no webhook delivery. Callers hold
 * the store row lock.
 */
export async function upsertImportedOrder(tx: TxCtx, storeId: string, localId: string | null, o: ImportedOrder): Promise<{ id: string; created: boolean }> {
  const fields = await fieldsOf(tx, storeId, o);
  const target = o.kind ? await statusOfKind(tx, storeId, o.kind) : null;
  const existing = localId ? await tx.em.findOne(Order, { id: localId, storeId }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true }) : null;
  if (existing) {
    await changeOrder(
      tx,
      existing,
      (x) => {
        Object.assign(x, fields);
        x.metadata = { ...(x.metadata ?? {}), connector: o.marker };
        if (target && target.id !== x.statusId) setStatus(x, target);
      },
      // The remote shop's payment state is the order's: it is taken as given.
      { inbound: true, paymentStateGiven: true },
    );
    return { id: existing.id, created: false };
  }
  const status = target ?? (await initialStatus(tx, storeId));
  const order = Object.assign(new Order(), { storeId, ...fields, statusId: status.id, status: status.slug, metadata: { connector: o.marker } });
  setStatus(order, status);
  await insertOrder(tx, order, { inbound: true, statusKind: status.kind });
  return { id: order.id, created: true };
}
