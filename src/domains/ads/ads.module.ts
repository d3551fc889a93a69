import type { JobResult } from 'pg-boss';
import { runsWork, type Module } from '../../core/module.js';
import { ADS_KEY, disconnectAds } from './ads.service.js';
import { CAPI_QUEUE, ConversionDirectory, conversionDirectories, DIRECTORY_REFRESH_MS, conversionsQueueOptions, queueConversions, sendConversion } from './ads.conversions.js';

interface ConversionJob {
  storeId: string;
  eventId: string;
}

/** The ads platform's background half: which stores send conversions, and the worker that sends them. */
export const adsModule: Module = {
  name: 'ads',
  start: async (deps) => {
    const directory = new ConversionDirectory(deps);
    await directory.reload();
    conversionDirectories.set(deps, directory);
    const timer = setInterval(() => {
      directory.reload().catch((err) => deps.log.warn({ err: (err as Error).message }, 'conversion settings not reloaded'));
    }, DIRECTORY_REFRESH_MS);
    timer.unref();
    const { boss } = deps.queue;
    // Created at start, outside any transaction (embedded mode has one database session).
    await boss.createQueue(CAPI_QUEUE, conversionsQueueOptions(deps) as never);
    if (!runsWork(deps)) return async () => clearInterval(timer);
    // Up to 10 events at a time, each settled on its own (one failing event retries alone); retries
    // come due without a NOTIFY, so a short poll picks them up on time.
    const options = { pollingIntervalSeconds: 2, notifyPollingIntervalSeconds: 5, batchSize: 10, burstWhenBatchFull: true, perJobResults: true } as const;
    const workerId = await boss.work<ConversionJob, unknown, typeof options>(CAPI_QUEUE, options, (jobs) =>
      Promise.all(
        jobs.map(async (job): Promise<JobResult> => {
          try {
            await sendConversion(deps, job.data.storeId, job.data.eventId);
            return { id: job.id, status: 'completed' };
          } catch (err) {
            return { id: job.id, status: 'failed', output: { message: (err as Error).message } };
          }
        }),
      ),
    );
    deps.queue.addLocalWorker(CAPI_QUEUE, workerId);
    return async () => {
      clearInterval(timer);
      await boss.offWork(CAPI_QUEUE, { id: workerId, wait: true });
    };
  },
  onOrderWritten: queueConversions,
  followsOrders: (deps, storeId) => !!conversionDirectories.get(deps)?.get(storeId),
  onIntegrationDeleted: async (ctx, integration) => {
    if (integration.key === ADS_KEY) await disconnectAds(ctx, integration.storeId);
  },
  onIntegrationChanged: async (ctx, storeId, key) => {
    if (key === ADS_KEY) await conversionDirectories.get(ctx.deps)?.reloadStore(storeId);
  },
};
