import type { TxCtx } from '../../core/tx.js';
import { enqueueInTransaction } from '../../events/queue.js';

/** The durable queue of PO mailings: the service enqueues in the write's transaction, the worker drains it. */
export const PO_SEND_QUEUE = 'purchase-order-send';

export interface SendJob {
  sendId: string;
}

export async function enqueueSend(tx: TxCtx, sendId: string): Promise<void> {
  await enqueueInTransaction(tx, PO_SEND_QUEUE, [{ data: { sendId } satisfies SendJob }]);
}
