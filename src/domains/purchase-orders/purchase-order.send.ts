import type { EntityManager } from '@mikro-orm/postgresql';
import { formatPoNumber, PurchaseOrder, PurchaseOrderSend } from './purchase-order.entity.js';
import { pdfSources, renderPdf } from './purchase-order.pdf.js';
import { mailSubject, mailText } from './purchase-order.mail.js';
import { publishPurchaseOrder } from './purchase-order.service.js';
import { systemContext, type Deps } from '../../core/context.js';
import { runsWork, type Module } from '../../core/module.js';
import { transaction } from '../../core/tx.js';
import { PO_SEND_QUEUE, type SendJob } from './purchase-order.queue.js';

/**
 * Mailing a purchase order: `/send` writes a queued send and its job in the request's
 * transaction; this worker renders the PDF, mails it as an attachment and records the outcome.
 * A worker that dies mid-send leaves the job to expire and run again (at least once).
 */

/** Renders, mails and records one queued send; a send already settled is left alone. */
export async function processSend(deps: Deps, sendId: string): Promise<void> {
  const em = deps.orm.em.fork() as EntityManager;
  const send = await em.findOne(PurchaseOrderSend, { id: sendId });
  if (!send || send.status !== 'queued') return;
  const po = await em.findOne(PurchaseOrder, { id: send.purchaseOrderId });
  if (!po) return;
  const sources = await pdfSources(em, po.storeId, [po]);
  const { storeName } = sources;
  const number = formatPoNumber(po.number);
  let error: string | null = null;
  try {
    const pdf = await renderPdf(deps.cpu, sources, null);
    await deps.mailer.deliver({
      to: send.recipients.join(', '),
      cc: send.cc,
      subject: mailSubject(storeName, number, send.subject),
      text: mailText(storeName, number, send.message),
      attachments: [{ filename: `${number}.pdf`, content: pdf, contentType: 'application/pdf' }],
    });
  } catch (err) {
    error = (err as Error).message.slice(0, 500);
  }
  await transaction(systemContext(deps, 'worker'), async (tx) => {
    const settled = await (tx.em as EntityManager).execute(
      `update purchase_order_sends set status = ?, error = ?, finished_at = ? where id = ? and status = 'queued' returning id`,
      [error ? 'failed' : 'sent', error, new Date(), sendId],
    );
    if (settled.length) await publishPurchaseOrder(tx, po);
  });
}

export const purchaseOrderSendModule: Module = {
  name: 'purchase-order-send',
  start: async (deps) => {
    const { boss } = deps.queue;
    // Created at start, outside any transaction (embedded mode has one database session).
    await boss.createQueue(PO_SEND_QUEUE, { expireInSeconds: 300, retryLimit: 3, retryDelay: 10, retryBackoff: true, deleteAfterSeconds: 86_400, notify: !deps.embedded } as never);
    if (!runsWork(deps)) return;
    const workerId = await boss.work<SendJob>(PO_SEND_QUEUE, { pollingIntervalSeconds: 2, batchSize: 1 }, async ([job]) => processSend(deps, job.data.sendId));
    deps.queue.addLocalWorker(PO_SEND_QUEUE, workerId);
    return async () => {
      await boss.offWork(PO_SEND_QUEUE, { id: workerId, wait: true });
    };
  },
};
