import { systemContext, type Deps } from '../../core/context.js';
import { runsWork, type Module } from '../../core/module.js';
import { transaction } from '../../core/tx.js';
import { Payment, PaymentRefund } from './payment.entity.js';
import { paymentSettings } from './payment.providers.js';
import { applyPaymentReport, paymentsFollowRepricing, refreshPayment, refreshRefund } from './payment.service.js';
import { pruneIdempotency } from './idempotency.js';

export const RECONCILE_QUEUE = 'payments-reconcile';
/** Every 5 minutes: a lost provider webhook is healed within minutes even if nobody asks. */
export const RECONCILE_CRON = '*/5 * * * *';
/** Payments younger than this are left to their webhook. */
const QUIET_MS = 5 * 60_000;
/** An online payment that never reached its provider (every call failed) expires after this. */
const ABANDONED_MS = 24 * 3600_000;
const BATCH = 100;

export interface ReconcileResult {
  checked: number;
  changed: number;
  failed: number;
  expired: number;
}

/**
 * Asks the providers about open online payments and unsettled refunds not heard of for a while,
 * and applies what they say (the same path as a webhook). Payments that never got a provider
 * checkout expire after a day; stored idempotent answers older than 24 h are dropped.
 */
export async function reconcilePayments(deps: Deps, opts: { quietMs?: number } = {}): Promise<ReconcileResult> {
  const ctx = systemContext(deps);
  const quiet = new Date(Date.now() - (opts.quietMs ?? QUIET_MS));
  const result: ReconcileResult = { checked: 0, changed: 0, failed: 0, expired: 0 };
  const em = ctx.em.fork();
  const payments = await em.find(
    Payment,
    { status: 'requires_action', provider: { $ne: 'cod' }, providerRef: { $ne: null }, updatedAt: { $lte: quiet }, $or: [{ checkedAt: null }, { checkedAt: { $lte: quiet } }] },
    { orderBy: { checkedAt: 'asc' }, limit: BATCH },
  );
  for (const p of payments) {
    result.checked++;
    await em.nativeUpdate(Payment, { id: p.id }, { checkedAt: new Date() });
    try {
      if (await refreshPayment(ctx, p, await paymentSettings(ctx, p.storeId))) result.changed++;
    } catch (err) {
      result.failed++;
      console.error(`souk: payment reconcile of ${p.id} failed: ${(err as Error).message}`);
    }
  }
  const refunds = await em.find(PaymentRefund, { status: { $in: ['pending', 'requires_action'] }, providerRef: { $ne: null }, updatedAt: { $lte: quiet } }, { limit: BATCH });
  for (const r of refunds) {
    result.checked++;
    try {
      if (await refreshRefund(ctx, r, await paymentSettings(ctx, r.storeId))) result.changed++;
    } catch (err) {
      result.failed++;
      console.error(`souk: refund reconcile of ${r.id} failed: ${(err as Error).message}`);
    }
  }
  const abandoned = await em.find(Payment, { status: 'requires_action', providerRef: null, createdAt: { $lte: new Date(Date.now() - ABANDONED_MS) } }, { limit: BATCH });
  for (const p of abandoned) {
    if (await transaction(ctx, (tx) => applyPaymentReport(tx, p.id, { state: 'expired' }))) result.expired++;
  }
  await pruneIdempotency(ctx);
  return result;
}

/** The payments' background half (the reconcile schedule) and their part in the order's seams. */
export const paymentsModule: Module = {
  name: 'payments',
  onOrderRepriced: paymentsFollowRepricing,
  start: async (deps) => {
    const { boss } = deps.queue;
    await boss.createQueue(RECONCILE_QUEUE, { expireInSeconds: 600, retryLimit: 0, deleteAfterSeconds: 86_400, notify: !deps.embedded } as never);
    // Stored in the database: one schedule whatever the number of replicas, one worker per tick.
    await boss.schedule(RECONCILE_QUEUE, RECONCILE_CRON);
    if (!runsWork(deps)) return;
    const workerId = await boss.work(RECONCILE_QUEUE, { pollingIntervalSeconds: 30 }, async () => {
      await reconcilePayments(deps);
    });
    return async () => {
      await boss.offWork(RECONCILE_QUEUE, { id: workerId, wait: true });
    };
  },
};
