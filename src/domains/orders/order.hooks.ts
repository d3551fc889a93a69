import type { Deps } from '../../core/context.js';
import type { TxCtx } from '../../core/tx.js';
import type { OrderType } from './order.types.js';

/**
 * The order domain's seams. Other domains never write orders: they call the order API
 * (`order.payments.ts`, `order.fulfillment.ts`, `order.import.ts`) or implement these hooks in a
 * module listed in `src/service.ts`. Every hook runs inside the order write's transaction; the
 * `before…` hooks may refuse the write by throwing (a 409 `conflict` keeps the order as it was).
 */

/** An order line as the hooks see it: minor units of the order's currency. */
export interface OrderLine {
  productId: string | null;
  name: string;
  quantity: number;
  price: number;
}

/** One order write, as modules that follow orders (the ads platform's conversions) see it. */
export interface OrderWrite {
  storeId: string;
  order: OrderType;
  /** Null for a new order. */
  previous: OrderType | null;
  /** The kind of the order's status after the write; always set when the write changed the status. */
  statusKind?: string;
  /** The write itself carries the inbound marker (CONTRACT-2 §14). */
  inbound: boolean;
}

/** A change of what one order is (its status or its items), before it is saved. */
export interface OrderChange {
  storeId: string;
  orderId: string;
  /** Kinds of the order's status before and after (undefined: no such status any more). */
  fromKind: string | undefined;
  toKind: string | undefined;
  itemsBefore: readonly OrderLine[];
  itemsAfter: readonly OrderLine[];
}

/** Many orders about to be moved one by one in one transaction, locked (FOR UPDATE, in id order). */
export interface OrderBatch {
  storeId: string;
  orders: ReadonlyArray<{ id: string; items: readonly OrderLine[] }>;
}

/** Every order of a status changes kind at once (moved to a status of another kind, or the status's kind changed). */
export interface StatusKindMove {
  storeId: string;
  statusId: string;
  fromKind: string | undefined;
  toKind: string;
  /** The status's orders, locked FOR UPDATE in id order; read only when called. */
  orders(): Promise<Array<{ id: string; items: OrderLine[] }>>;
}

/** The amount an order asks for changed (its items, shipping or discount, or its currency). */
export interface OrderRepricing {
  storeId: string;
  orderId: string;
  currency: string;
  /** Minor units. */
  totalBefore: number;
  total: number;
  /** What is still to be paid at the new total, minor units. */
  due: number;
}

declare module '../../core/module.js' {
  interface Module {
    /**
     * Runs inside the transaction of every order creation and change, after its event is recorded:
     * work queued here commits or vanishes with the write. Called on the hot path: a module with
     * nothing to do for the store returns without a query.
     */
    onOrderWritten?: (tx: TxCtx, write: OrderWrite) => Promise<void>;
    /**
     * Whether `onOrderWritten` may have work for the store (no query: the module's own cache).
     * False lets a common order be written in one statement without a transaction around it;
     * a module with the hook and without this is asked in every write.
     */
    followsOrders?: (deps: Deps, storeId: string) => boolean;
    /** Before an order's status or items change (not on creation: a new order is of kind `new`). May refuse with 409. */
    beforeOrderChange?: (tx: TxCtx, change: OrderChange) => Promise<void>;
    /** Before a batch moves orders one by one: take the locks the batch will need, up front and in id order. */
    beforeOrderBatch?: (tx: TxCtx, batch: OrderBatch) => Promise<void>;
    /** Before every order of a status changes kind at once; all or nothing (a refusal fails the whole write). */
    beforeStatusKindMove?: (tx: TxCtx, move: StatusKindMove) => Promise<void>;
    /**
     * The module that collects payments: the order's amount changed while it may have open
     * payments; cancel or re-price them. Returns whether the order still has an open payment.
     */
    onOrderRepriced?: (tx: TxCtx, repricing: OrderRepricing) => Promise<boolean>;
  }
}

export async function orderWritten(tx: TxCtx, write: OrderWrite): Promise<void> {
  for (const m of tx.deps.modules) if (m.onOrderWritten) await m.onOrderWritten(tx, write);
}

export async function beforeOrderChange(tx: TxCtx, change: OrderChange): Promise<void> {
  for (const m of tx.deps.modules) if (m.beforeOrderChange) await m.beforeOrderChange(tx, change);
}

export async function beforeOrderBatch(tx: TxCtx, batch: OrderBatch): Promise<void> {
  for (const m of tx.deps.modules) if (m.beforeOrderBatch) await m.beforeOrderBatch(tx, batch);
}

export async function beforeStatusKindMove(tx: TxCtx, move: StatusKindMove): Promise<void> {
  for (const m of tx.deps.modules) if (m.beforeStatusKindMove) await m.beforeStatusKindMove(tx, move);
}

/** Null when no module collects payments (nothing is open then, as far as the order knows). */
export async function orderRepriced(tx: TxCtx, repricing: OrderRepricing): Promise<boolean | null> {
  let open: boolean | null = null;
  for (const m of tx.deps.modules) if (m.onOrderRepriced) open = (await m.onOrderRepriced(tx, repricing)) || !!open;
  return open;
}
