import type { TxCtx } from '../../core/tx.js';

declare module '../../core/module.js' {
  interface Module {
    /**
     * Runs inside a new store's creating transaction, after the store and its owner are written
     * (default statuses, ...): what it writes commits or vanishes with the store.
     */
    onStoreCreated?: (tx: TxCtx, storeId: string) => Promise<void>;
  }
}

export async function storeCreated(tx: TxCtx, storeId: string): Promise<void> {
  for (const m of tx.deps.modules) if (m.onStoreCreated) await m.onStoreCreated(tx, storeId);
}
