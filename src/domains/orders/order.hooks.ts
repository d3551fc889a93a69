import type { Deps } from '../../core/context.js';
import type { TxCtx } from '../../core/tx.js';
import type { OrderType } from './order.types.js';

/** One order write, as modules that follow orders (the ads platform's conversions) see it. */
export interface OrderWrite {
  storeId: string;
  order: OrderType;
  /** Null for a new order. */
  previous: OrderType | null;
  /** The kind of the order's status after the write, when the writer knows it. */
  statusKind?: string;
  /** The write itself carries the inbound marker (CONTRACT-2 §14). */
  inbound: boolean;
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
  }
}

export async function orderWritten(tx: TxCtx, write: OrderWrite): Promise<void> {
  for (const m of tx.deps.modules) if (m.onOrderWritten) await m.onOrderWritten(tx, write);
}
