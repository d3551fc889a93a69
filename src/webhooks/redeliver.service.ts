import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Ctx, Deps } from '../core/context.js';
import { AppError, conflict, notFound } from '../core/errors.js';
import { transaction } from '../core/tx.js';
import { enqueueDeliveries } from '../events/queue.js';
import { SlidingWindowLimiter } from '../lib/rate-limit.js';

/** Manual redeliveries a store may ask for per minute: a receiver fixing its endpoint replays a few, not a flood. */
export const REDELIVERIES_PER_MINUTE = 30;

/** Each running service's redelivery limiter, made on first use. */
const limiterOf = new WeakMap<Deps, SlidingWindowLimiter>();

/**
 * Sends a history entry's payload again as a new delivery (a new X-Svc-Delivery), queued like
 * any other and recorded in history with `redeliveryOf`.
 */
export async function redeliver(ctx: Ctx, storeId: string, webhookId: string, deliveryId: string): Promise<{ webhookId: string; deliveryId: string; redeliveryOf: string }> {
  let limiter = limiterOf.get(ctx.deps);
  if (!limiter) limiterOf.set(ctx.deps, (limiter = new SlidingWindowLimiter(REDELIVERIES_PER_MINUTE, 60_000)));
  if (!/^[0-9a-f-]{36}$/i.test(deliveryId)) throw notFound('delivery');
  const [row] = await (ctx.em as EntityManager).execute<Array<{ event: string; test: boolean; payload: { timestamp: string; data: Record<string, unknown> } | null }>>(
    `select d.event, d.test, d.payload from webhook_deliveries d join webhooks w on w.id = d.webhook_id
      where d.id = ? and w.id = ? and w.store_id = ?`,
    [deliveryId, webhookId, storeId],
  );
  if (!row) throw notFound('delivery');
  if (row.test || !row.payload) throw conflict('Test deliveries and entries recorded before payloads were kept cannot be redelivered');
  const wait = limiter.hit(storeId);
  if (wait) throw new AppError('RATE_LIMITED', `At most ${REDELIVERIES_PER_MINUTE} redeliveries a minute per store`, undefined, { 'retry-after': String(wait) });
  const job = { deliveryId: randomUUID(), webhookId, storeId, event: row.event, timestamp: row.payload.timestamp, data: row.payload.data, redeliveryOf: deliveryId };
  await transaction(ctx, (tx) => enqueueDeliveries(tx, [job]));
  return { webhookId, deliveryId: job.deliveryId, redeliveryOf: deliveryId };
}
