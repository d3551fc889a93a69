import type { TxCtx } from '../../core/tx.js';

/** A product's stock set by a product write (create with `stock`, or an edit of it). */
export interface ProductStockSet {
  storeId: string;
  productId: string;
  stock: number;
  previousStock: number;
}

declare module '../../core/module.js' {
  interface Module {
    /**
     * Runs inside the product write's transaction, after the product row is saved and before its
     * event: the inventory module records the difference in the ledger and the default warehouse.
     */
    onProductStockSet?: (tx: TxCtx, set: ProductStockSet) => Promise<void>;
  }
}

export async function productStockSet(tx: TxCtx, set: ProductStockSet): Promise<void> {
  for (const m of tx.deps.modules) if (m.onProductStockSet) await m.onProductStockSet(tx, set);
}
