import type { EntityManager } from '@mikro-orm/postgresql';
import type { Deps } from '../server/context.js';
import { registerWorker } from '../workers.js';
import { createQueue, DELIVERY_QUEUE, type DeliveryJob } from '../events/queue.js';
import { Webhook } from './webhook.entity.js';
import { decryptSecret } from './secrets.js';
import { DELIVERY_TIMEOUT_MS, sendAttempt, type AttemptResult } from './sender.js';

export const HISTORY_KEPT = 50;

export interface RecordedAttempt extends AttemptResult {
  id: string;
  webhookId: string;
  event: string;
  test: boolean;
  url: string;
  createdAt: Date;
}

/** The payload of the seed, serialized once; the bytes signed are the bytes sent. */
export function payloadBytes(event: string, timestamp: string, data: unknown, webhook: { id: string; name: string }): Buffer {
  return Buffer.from(JSON.stringify({ event, timestamp, data, webhook: { id: webhook.id, name: webhook.name } }), 'utf8');
}

/** Records an attempt and trims the webhook's history to the last 50, in one transaction. */
export async function recordAttempt(em: EntityManager, a: RecordedAttempt): Promise<boolean> {
  return em.transactional(async (tx) => {
    const inserted = await (tx as EntityManager).execute(
      `insert into webhook_deliveries (id, webhook_id, event, test, url, status, status_code, response_time_ms, response_body, error, created_at)
       select ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? where exists (select 1 from webhooks where id = ?)
       on conflict (id) do nothing returning id`,
      [a.id, a.webhookId, a.event, a.test, a.url, a.status, a.statusCode, a.responseTimeMs, a.responseBody, a.error, a.createdAt, a.webhookId],
    );
    // Rows another recording transaction is already deleting are skipped, not waited for:
    // concurrent deliveries to one webhook would otherwise queue behind each other's prune.
    await (tx as EntityManager).execute(
      `delete from webhook_deliveries where id in (
         select id from webhook_deliveries where webhook_id = ?
         order by created_at desc, seq desc offset ? for update skip locked)`,
      [a.webhookId, HISTORY_KEPT],
    );
    return inserted.length > 0;
  });
}

/** One job: skip what was already recorded, send once, record the attempt. */
export async function processDelivery(deps: Deps, job: DeliveryJob): Promise<void> {
  const em = deps.orm.em.fork() as EntityManager;
  const [done] = await em.execute('select 1 from webhook_deliveries where id = ?', [job.deliveryId]);
  if (done) return;
  const webhook = await em.findOne(Webhook, { id: job.webhookId });
  // Deleted or deactivated since the event: nothing to send.
  if (!webhook || !webhook.active) return;
  const createdAt = new Date();
  const result = await sendAttempt({
    url: webhook.url,
    event: job.event,
    deliveryId: job.deliveryId,
    webhookId: webhook.id,
    secret: decryptSecret(deps.config.secretKey, webhook.secretEnc),
    customHeaders: webhook.headers,
    body: payloadBytes(job.event, job.timestamp, job.data, webhook),
    test: false,
    timeoutMs: DELIVERY_TIMEOUT_MS,
    allowPrivate: deps.config.webhookAllowPrivate,
  });
  await recordAttempt(em, { ...result, id: job.deliveryId, webhookId: webhook.id, event: job.event, test: false, url: webhook.url, createdAt });
}

registerWorker(async (deps) => {
  const queue = createQueue(deps);
  await queue.boss.start();
  // Created at start, outside any transaction (embedded mode has one database session).
  await queue.boss.createQueue(DELIVERY_QUEUE, {
    // A worker that died mid-attempt leaves an active job: it is claimed again after this.
    expireInSeconds: Math.ceil(DELIVERY_TIMEOUT_MS / 1000) + 30,
    retryLimit: 5,
    retryDelay: 2,
    deleteAfterSeconds: 3600,
    notify: !deps.embedded,
  } as never);
  deps.extras.set('queue', queue);
  const concurrency = deps.config.deliveryConcurrency;
  const workerId = await queue.boss.work<DeliveryJob>(
    DELIVERY_QUEUE,
    // A full batch means a backlog: fetch again at once instead of waiting for the next poll;
    // commits in this process wake the worker (queue.wake), other replicas through LISTEN/NOTIFY.
    { batchSize: 8, localConcurrency: Math.max(1, Math.ceil(concurrency / 8)), pollingIntervalSeconds: 0.5, burstWhenBatchFull: true },
    async (jobs) => {
      await Promise.all(jobs.map((j) => processDelivery(deps, j.data)));
    },
  );
  queue.setWorker(workerId);
  return async () => {
    await queue.boss.stop({ graceful: true, timeout: 10_000, close: true });
  };
});
