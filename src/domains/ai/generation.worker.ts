import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Job, PgBoss } from 'pg-boss';
import { systemContext, type Deps } from '../../core/context.js';
import { transaction } from '../../core/tx.js';
import { ImageProviderError, type GeneratedImage } from '../../providers/images.js';
import { derivePalette, drawSwatchOffThread } from '../../providers/local-images/draw.js';
import { newId } from '../../lib/ids.js';
import { AiAsset, AiGeneration } from './brand-studio.entity.js';
import { AI_QUEUE, emitGeneration, GENERATION_TIMEOUT_MS, generationView, imageProviders, MAX_ASSET_BYTES, MAX_ATTEMPTS, type GenerationJob } from './generation.service.js';

/** A processing attempt's lease, renewed while its worker lives; past it the attempt is taken for dead. */
export const LEASE_MS = 10_000;
const LEASE_RENEW_MS = 2_000;
/** How often stale leases are looked for (also once at start). */
export const SWEEP_MS = 5_000;
/** Generations run at once per process. */
export const CONCURRENCY = 4;

type Image = GeneratedImage & { colors?: string[] };

/** Takes the generation for this attempt; null when it is gone or already settled. */
async function claim(deps: Deps, id: string, attempt: number): Promise<AiGeneration | null> {
  return transaction(systemContext(deps, 'worker'), async (tx) => {
    const rows = await tx.em.execute(
      `update ai_generations set status = 'processing', progress = 0.1, attempts = ?, error = null,
              lease_until = now() + ? * interval '1 millisecond', updated_at = now()
        where id = ? and status in ('pending','processing') returning id`,
      [attempt, LEASE_MS, id],
    );
    if (!rows.length) return null;
    const g = await tx.em.findOneOrFail(AiGeneration, { id });
    await emitGeneration(tx, g.storeId, generationView(deps, g, []));
    return g;
  });
}

/** Extends the lease; false when this attempt no longer holds the generation. */
async function renewLease(deps: Deps, id: string, attempt: number): Promise<boolean> {
  const rows = await (deps.orm.em.fork() as EntityManager).execute(
    `update ai_generations set lease_until = now() + ? * interval '1 millisecond'
      where id = ? and attempts = ? and status = 'processing' returning id`,
    [LEASE_MS, id, attempt],
  );
  return rows.length > 0;
}

/** Stores the assets and completes the generation, if this attempt still holds it. */
async function complete(deps: Deps, g: AiGeneration, attempt: number, images: Image[]): Promise<void> {
  await transaction(systemContext(deps, 'worker'), async (tx) => {
    const em = tx.em as EntityManager;
    const held = await em.execute(`select id from ai_generations where id = ? and attempts = ? and status = 'processing' for update`, [g.id, attempt]);
    if (!held.length) return;
    const now = new Date();
    const rows = images.map((img, i) => [
      newId('ast'),
      g.storeId,
      g.studioId,
      g.id,
      i,
      g.kind,
      'image/png',
      img.png,
      createHash('sha256').update(img.png).digest('hex'),
      img.width,
      img.height,
      img.colors ? JSON.stringify(img.colors) : null,
      now,
    ]);
    await em.execute(
      `insert into ai_assets (id, store_id, studio_id, generation_id, position, kind, mime, bytes, sha256, width, height, colors, created_at)
       values ${rows.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?)').join(', ')}`,
      rows.flat(),
    );
    const colors = images[0]?.colors ?? null;
    await em.execute(
      `update ai_generations set status = 'completed', progress = 1, colors = ?::jsonb, error = null, lease_until = null, updated_at = now() where id = ?`,
      [colors ? JSON.stringify(colors) : null, g.id],
    );
    const fresh = await em.findOneOrFail(AiGeneration, { id: g.id }, { refresh: true });
    const assets = await em.find(AiAsset, { generationId: g.id });
    await emitGeneration(tx, g.storeId, generationView(deps, fresh, assets));
  });
}

/** Records a failed attempt: back to `pending` when the queue will retry it, else `failed`. */
async function settleFailure(deps: Deps, g: AiGeneration, attempt: number, retry: boolean, message: string): Promise<void> {
  await transaction(systemContext(deps, 'worker'), async (tx) => {
    const rows = await tx.em.execute(
      `update ai_generations set status = ?, progress = 0, error = ?, lease_until = null, updated_at = now()
        where id = ? and attempts = ? and status = 'processing' returning id`,
      [retry ? 'pending' : 'failed', message, g.id, attempt],
    );
    if (!rows.length) return;
    const fresh = await tx.em.findOneOrFail(AiGeneration, { id: g.id }, { refresh: true });
    await emitGeneration(tx, g.storeId, generationView(deps, fresh, []));
  });
}

/**
 * Runs generation jobs from the durable queue. An attempt holds its generation under a lease it
 * renews; a process that dies mid-attempt stops renewing, and the sweeper (every replica runs
 * one) hands the job back to the queue as a failed attempt, so it is retried, not left
 * `processing`. Every write of an attempt is fenced by its attempt number.
 */
export class GenerationWorker {
  private readonly inflight = new Map<string, AbortController>();
  private sweepTimer: NodeJS.Timeout | null = null;
  private sweeping: Promise<void> | null = null;
  private stopping = false;

  constructor(
    private readonly deps: Deps,
    private readonly boss: PgBoss,
  ) {}

  async start(): Promise<void> {
    for (let i = 0; i < CONCURRENCY; i++) {
      // NOTIFY wakes workers for new jobs only; a retry becomes due silently, so polling stays brisk.
      const options = { batchSize: 1, pollingIntervalSeconds: 2, notifyPollingIntervalSeconds: 2 };
      this.deps.queue.addLocalWorker(AI_QUEUE, await this.boss.work<GenerationJob>(AI_QUEUE, options, ([job]) => this.handle(job)));
    }
    this.sweepTimer = setInterval(() => this.sweepSoon(), SWEEP_MS);
    this.sweepSoon();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    // Attempts in flight end now and go back to the queue as failed attempts, to be retried.
    for (const ac of this.inflight.values()) ac.abort(new Error('the service is stopping'));
    await this.boss.offWork(AI_QUEUE, { wait: true });
    await this.sweeping;
  }

  private sweepSoon(): void {
    if (this.sweeping || this.stopping) return;
    this.sweeping = this.sweep()
      .then(() => undefined)
      .catch((err) => this.deps.log.error({ err: (err as Error).message }, 'ai: sweeping stale generations failed'))
      .finally(() => (this.sweeping = null));
  }

  /** Generations whose worker stopped renewing its lease: retried (or failed after the last attempt). */
  async sweep(): Promise<number> {
    const stale = await transaction(systemContext(this.deps, 'worker'), async (tx) => {
      const rows = await tx.em.execute<Array<{ id: string; store_id: string; job_id: string | null; attempts: number }>>(
        `select id, store_id, job_id, attempts from ai_generations
          where status = 'processing' and lease_until < now() order by lease_until limit 50 for update skip locked`,
      );
      for (const r of rows) {
        const last = r.attempts >= MAX_ATTEMPTS;
        const message = `the worker stopped during attempt ${r.attempts}${last ? '' : '; retrying'}`;
        await tx.em.execute(`update ai_generations set status = ?, progress = 0, error = ?, lease_until = null, updated_at = now() where id = ?`, [
          last ? 'failed' : 'pending',
          message,
          r.id,
        ]);
        const g = await tx.em.findOneOrFail(AiGeneration, { id: r.id }, { refresh: true });
        await emitGeneration(tx, r.store_id, generationView(this.deps, g, []));
      }
      return rows;
    });
    // After commit, outside the transaction: the queue counts the dead attempt and retries it.
    for (const r of stale) {
      if (r.job_id) await this.boss.fail(AI_QUEUE, { id: r.job_id, retryCount: r.attempts - 1 }, { message: 'the worker stopped during the attempt' });
    }
    if (stale.length) this.deps.queue.wakeLocal(AI_QUEUE);
    return stale.length;
  }

  private async handle(job: Job<GenerationJob>): Promise<void> {
    const attempt = job.retryCount + 1;
    const g = await claim(this.deps, job.data.generationId, attempt);
    if (!g) return;
    const ac = new AbortController();
    this.inflight.set(g.id, ac);
    const timeout = AbortSignal.timeout(GENERATION_TIMEOUT_MS);
    const signal = AbortSignal.any([ac.signal, timeout, job.signal]);
    const renew = setInterval(() => {
      renewLease(this.deps, g.id, attempt)
        .then((held) => {
          if (!held) ac.abort(new Error('the attempt lost its lease'));
        })
        // A failed renewal says nothing about the lease: the next one decides.
        .catch(() => {});
    }, LEASE_RENEW_MS);
    try {
      const images = await this.render(g, job.data, signal);
      for (const img of images) {
        if (img.png.length > MAX_ASSET_BYTES) throw new ImageProviderError('an image is larger than 8 MiB', false);
      }
      signal.throwIfAborted();
      await complete(this.deps, g, attempt, images);
    } catch (err) {
      const { message, retryable } = this.describe(err, timeout);
      const retry = retryable && attempt < MAX_ATTEMPTS;
      await settleFailure(this.deps, g, attempt, retry, message);
      // Thrown, the queue records the failed attempt and retries it; a final failure completes the job.
      if (retry) throw new Error(message);
    } finally {
      clearInterval(renew);
      this.inflight.delete(g.id);
    }
  }

  private async render(g: AiGeneration, data: GenerationJob, signal: AbortSignal): Promise<Image[]> {
    if (g.kind === 'palette') {
      return Promise.all(
        Array.from({ length: g.n }, async (_, i) => {
          const colors = derivePalette(g.prompt, g.seed + i, data.baseColors ?? []);
          return { png: await drawSwatchOffThread(this.deps.cpu, colors, g.width, g.height), width: g.width, height: g.height, colors };
        }),
      );
    }
    const provider = imageProviders.get(this.deps);
    if (!provider || provider.name !== g.provider) throw new ImageProviderError(`the ${g.provider} image provider is not configured on this server`, false);
    return provider.generate({ prompt: g.prompt, width: g.width, height: g.height, n: g.n, seed: g.seed }, signal);
  }

  private describe(err: unknown, timeout: AbortSignal): { message: string; retryable: boolean } {
    if (this.stopping) return { message: 'the service stopped during the attempt; retrying', retryable: true };
    if (timeout.aborted) return { message: `the attempt timed out after ${GENERATION_TIMEOUT_MS / 1000} s`, retryable: true };
    if (err instanceof ImageProviderError) return { message: err.message, retryable: err.retryable };
    this.deps.log.error({ err }, 'ai: generation attempt failed');
    return { message: 'the generation failed unexpectedly', retryable: true };
  }
}
