import type { EntityManager } from '@mikro-orm/postgresql';
import { runsWork, type Module } from '../core/module.js';
import { pruneEvents } from './store-events.js';
import { pruneIdempotencyKeys } from '../core/idempotency.js';

export const PRUNE_QUEUE = 'store-events-prune';
/** Events stay readable through the feed and the SSE resume for at least this long. */
export const RETENTION_DAYS = 7;
const RETENTION_MS = RETENTION_DAYS * 24 * 3600 * 1000;
/** Hourly: the table never holds much more than a week plus an hour. */
export const PRUNE_CRON = '17 * * * *';

export const retentionModule: Module = {
  name: 'event-retention',
  start: async (deps) => {
  const { boss } = deps.queue;
  await boss.createQueue(PRUNE_QUEUE, { expireInSeconds: 600, retryLimit: 2, deleteAfterSeconds: 86_400, notify: !deps.embedded } as never);
  // Stored in the database: every replica scheduling it at start keeps one schedule, claimed by one worker per tick.
  await boss.schedule(PRUNE_QUEUE, PRUNE_CRON);
  if (!runsWork(deps)) return;
  const workerId = await boss.work(PRUNE_QUEUE, { pollingIntervalSeconds: 30 }, async () => {
    const removed = await pruneEvents(deps.orm.em.fork() as EntityManager, new Date(Date.now() - RETENTION_MS));
    if (removed) deps.log.info({ removed, retentionDays: RETENTION_DAYS }, 'pruned old store events');
    // Idempotency-Key answers live 24 h; the hourly tick keeps the table to about a day of creates.
    const keys = await pruneIdempotencyKeys(deps.orm.em.fork() as EntityManager);
    if (keys) deps.log.info({ removed: keys }, 'pruned expired idempotency keys');
  });
  return async () => {
    await boss.offWork(PRUNE_QUEUE, { id: workerId, wait: true });
  };
  },
};
