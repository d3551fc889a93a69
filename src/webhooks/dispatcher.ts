import type { EntityManager } from '@mikro-orm/postgresql';
import type { Deps } from '../core/context.js';
import { runsWork, type Module } from '../core/module.js';
import { DELIVERY_CHANNEL, DELIVERY_EXPIRE_SECONDS, DELIVERY_TIMEOUT_MS, deliveryClaimSql, deliveryCompleteSql, type DeliveryJob, type Queue } from '../events/queue.js';
import { decryptSecret } from './secrets.js';
import { executePrepared, queryPrepared } from '../db/prepared.js';
import { listenChannel, type ListeningConnection } from '../db/listen.js';
import { openHeaders, sealLegacyHeaders } from './headers.js';
import { NO_TIMINGS, sendAttempt, type AttemptResult } from './sender.js';
import { addressCheck } from './ssrf.js';

export const HISTORY_KEPT = 50;

export interface RecordedAttempt extends AttemptResult {
  id: string;
  webhookId: string;
  event: string;
  test: boolean;
  url: string;
  createdAt: Date;
  /**
   * The bytes sent (the payload JSON), kept so they can be sent again (redelivery): the history
   * row takes its timestamp and data from them. Null for tests.
   */
  sent: Buffer | null;
  redeliveryOf: string | null;
}

/** The payload of the seed, serialized once; the bytes signed are the bytes sent. */
export function payloadBytes(event: string, timestamp: string, data: unknown, webhook: { id: string; name: string }): Buffer {
  return Buffer.from(JSON.stringify({ event, timestamp, data, webhook: { id: webhook.id, name: webhook.name } }), 'utf8');
}

/**
 * Records attempts and trims each webhook's history to the last 50, in one statement (one
 * implicit transaction, one round trip). The statement does not see its own inserts, so each
 * webhook keeps 50 minus its new rows of the older ones; rows another recording is already
 * deleting are skipped, not waited for, so concurrent batches do not queue behind each other.
 */
export async function recordAttempts(em: EntityManager, attempts: RecordedAttempt[]): Promise<number> {
  if (!attempts.length) return 0;
  const [row] = await em.execute<Array<{ inserted: number }>>(
    `with ${RECORDING_CTES} select (select count(*) from ins)::int as inserted, (select count(*) from pruned)::int as pruned`,
    [recordingRows(attempts)],
  );
  return row.inserted;
}

/**
 * The CTEs of `recordAttempts`, one text whatever the number of attempts (a prepared statement's
 * key), their one binding the attempts as JSON: `ins` returns the rows inserted, `pruned` those
 * trimmed.
 */
const RECORDING_CTES = `v as (
       select * from jsonb_to_recordset(?::jsonb) as x(id uuid, webhook_id text, event text, test boolean, url text, status text, status_code int,
         response_time_ms int, response_body text, error text, created_at timestamptz, timings jsonb, sent jsonb, redelivery_of uuid)),
     ins as (
       insert into webhook_deliveries (id, webhook_id, event, test, url, status, status_code, response_time_ms, response_body, error, created_at, timings, payload, redelivery_of)
       select v.id, v.webhook_id, v.event, v.test, v.url, v.status, v.status_code, v.response_time_ms, v.response_body, v.error, v.created_at, v.timings,
              case when v.sent is null then null else jsonb_build_object('timestamp', v.sent->'timestamp', 'data', v.sent->'data') end, v.redelivery_of
       from v where exists (select 1 from webhooks w where w.id = v.webhook_id)
       on conflict (id) do nothing returning id, webhook_id),
     added as (select webhook_id, count(*) as n from ins group by webhook_id),
     pruned as (
       delete from webhook_deliveries where id in (
         select id from webhook_deliveries where id in (
           select r.id from (
             select id, webhook_id, row_number() over (partition by webhook_id order by created_at desc, seq desc) as rn
             from webhook_deliveries where webhook_id in (select webhook_id from added)) r
           join added on added.webhook_id = r.webhook_id
           where r.rn > ${HISTORY_KEPT} - added.n)
         for update skip locked)
       returning id)`;

/**
 * The attempts as the JSON array `RECORDING_CTES` binds. The bytes sent are JSON already: they go
 * in as they are, not parsed and serialized again.
 */
const recordingRows = (attempts: RecordedAttempt[]) =>
  `[${attempts
    .map((a) => {
      const row = JSON.stringify({
        id: a.id, webhook_id: a.webhookId, event: a.event, test: a.test, url: a.url, status: a.status, status_code: a.statusCode,
        response_time_ms: a.responseTimeMs, response_body: a.responseBody, error: a.error, created_at: a.createdAt, timings: a.timings,
        redelivery_of: a.redeliveryOf,
      });
      return a.sent ? `${row.slice(0, -1)},"sent":${a.sent.toString('utf8')}}` : row;
    })
    .join(',')}]`;

export const recordAttempt = async (em: EntityManager, a: RecordedAttempt) => (await recordAttempts(em, [a])) > 0;

interface WebhookRow {
  id: string;
  name: string;
  url: string;
  headers: Record<string, string>;
  headers_enc: string | null;
  active: boolean;
  secret_enc: string;
}

/** What a job needs at send time: its webhook (null: nothing to send) and its payload's data. */
interface Loaded {
  webhook: WebhookRow | null;
  data: Record<string, unknown> | null;
}

/** What a batch of jobs needs, as one statement reads it: their webhooks, the deliveries already recorded, the events' data. */
interface BatchRow {
  hooks: WebhookRow[];
  done: string[];
  events: Array<{ store_id: string; seq: string | number; data: Record<string, unknown> }>;
}

/** The select list of `BatchRow` over a relation `jobs (data)` of delivery jobs. */
const BATCH_COLUMNS = `(select coalesce(json_agg(json_build_object('id', id, 'name', name, 'url', url, 'headers', headers, 'headers_enc', headers_enc, 'active', active, 'secret_enc', secret_enc)), '[]')
          from webhooks where id in (select data->>'webhookId' from jobs)) as hooks,
       (select coalesce(json_agg(id), '[]') from webhook_deliveries
          where id = any(array(select (data->>'deliveryId')::uuid from jobs where data->>'deliveryId' ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'))) as done,
       (select coalesce(json_agg(json_build_object('store_id', e.store_id, 'seq', e.seq, 'data', e.data)), '[]')
          from store_events e where (e.store_id, e.seq) in (select data->>'storeId', (data->>'seq')::bigint from jobs where data->'data' is null and data->>'seq' is not null)) as events`;

/**
 * The webhooks of a batch of jobs, which deliveries were already recorded and the data of the
 * events they deliver: one statement (one round trip) for the whole batch.
 */
async function loadBatch(em: EntityManager, jobs: DeliveryJob[]): Promise<Loaded[]> {
  const [row] = await em.execute<BatchRow[]>(`with jobs (data) as (select value from jsonb_array_elements(?::jsonb)) select ${BATCH_COLUMNS}`, [JSON.stringify(jobs)]);
  return loadedOf(jobs, row);
}

function loadedOf(jobs: DeliveryJob[], { hooks, done, events }: BatchRow): Loaded[] {
  const byId = new Map(hooks.map((h) => [h.id, h]));
  const recorded = new Set(done);
  const dataOf = new Map(events.map((e) => [`${e.store_id}:${Number(e.seq)}`, e.data]));
  // Deleted or deactivated since the event, or already attempted: nothing to send.
  return jobs.map((j) => {
    const w = byId.get(j.webhookId);
    return { webhook: w && w.active && !recorded.has(j.deliveryId) ? w : null, data: j.data ?? dataOf.get(`${j.storeId}:${j.seq}`) ?? null };
  });
}

/**
 * How the pump reaches the database. On a server: a connection of its own, which also LISTENs on
 * DELIVERY_CHANNEL, so claims and recordings never queue behind the writes for a pool connection,
 * and a commit in any process wakes the pump at once; the ORM's pool while that connection is
 * down. Embedded: the ORM's one connection (PGlite is one session).
 */
class PumpDb {
  private conn: ListeningConnection | null = null;

  constructor(private readonly deps: Deps) {}

  async open(onWake: () => void): Promise<void> {
    if (this.deps.embedded) return;
    try {
      // A reconnect (null) may have missed notifications: look for work as if woken.
      this.conn = await listenChannel(this.deps, DELIVERY_CHANNEL, 'webhook-delivery', () => onWake());
    } catch (err) {
      this.deps.log.warn({ err: (err as Error).message }, 'delivery connection failed: claiming through the pool, at each poll');
    }
  }

  run<T>(sql: string, params: unknown[]): Promise<T[]> {
    if (this.conn?.connected()) return queryPrepared<T>(this.conn, sql, params);
    return executePrepared<T>(this.deps.orm.em.fork() as EntityManager, sql, params);
  }

  async close(): Promise<void> {
    await this.conn?.close();
    this.conn = null;
  }
}

interface Claimed {
  id: string;
  data: DeliveryJob;
  loaded: Loaded;
  /** When the claim was sent: the job's expiry counts from a moment after it. */
  claimedAt: number;
}

/**
 * Claims up to `limit` delivery jobs (pg-boss's own claim) and reads what they need, in one
 * prepared statement: the claim and the load are one round trip, and commit together.
 */
async function claimBatch(db: PumpDb, deps: Deps, limit: number): Promise<Claimed[]> {
  const claimedAt = Date.now();
  const [row] = await db.run<BatchRow & { claimed: Array<{ id: string; data: DeliveryJob }> }>(
    `with jobs as (${deliveryClaimSql(deps)})
     select (select coalesce(json_agg(json_build_object('id', id, 'data', data)), '[]') from jobs) as claimed, ${BATCH_COLUMNS}`,
    [limit],
  );
  const loaded = loadedOf(row.claimed.map((j) => j.data), row);
  return row.claimed.map((j, i) => ({ ...j, loaded: loaded[i], claimedAt }));
}

/**
 * Records attempts and completes their jobs (pg-boss's own completion, also of jobs that had
 * nothing to send) in one prepared statement: a job is completed only with its attempt recorded.
 */
async function settleBatch(db: PumpDb, deps: Deps, jobIds: string[], attempts: RecordedAttempt[]): Promise<void> {
  await db.run(
    `with completed as (${deliveryCompleteSql(deps)}), ${RECORDING_CTES} select (select count(*) from completed)::int as completed, (select count(*) from ins)::int as inserted`,
    [jobIds, recordingRows(attempts)],
  );
}

/** Decrypted secrets and header values of this service by ciphertext: a webhook's deliveries decrypt them once. */
const openedByDeps = new WeakMap<Deps, Map<string, unknown>>();
/** Webhooks are at most 10 a store; this bounds the memory, not the hit rate of a busy process. */
const OPENED_MAX = 4096;

function openedOnce<T>(deps: Deps, ciphertext: string, open: () => T): T {
  let opened = openedByDeps.get(deps);
  if (!opened) openedByDeps.set(deps, (opened = new Map()));
  if (opened.has(ciphertext)) return opened.get(ciphertext) as T;
  const value = open();
  // The oldest entry goes first: a rotated secret's old ciphertext is never asked for again.
  if (opened.size >= OPENED_MAX) opened.delete(opened.keys().next().value!);
  opened.set(ciphertext, value);
  return value;
}

/** Sends one delivery; never throws: every outcome is an attempt to record. */
async function attempt(deps: Deps, job: DeliveryJob, { webhook, data }: { webhook: WebhookRow; data: Record<string, unknown> | null }): Promise<RecordedAttempt> {
  const createdAt = new Date();
  const base = { id: job.deliveryId, webhookId: webhook.id, event: job.event, test: false, url: webhook.url, createdAt, redeliveryOf: job.redeliveryOf ?? null };
  if (!data) {
    // Events are kept for days (retention) and jobs settle within minutes: only a job left
    // unclaimed past the retention window gets here.
    return { ...base, sent: null, status: 'failed', statusCode: null, responseTimeMs: 0, responseBody: null, error: 'the event is no longer stored (older than the retention period)', timings: NO_TIMINGS };
  }
  // Serialized once: these bytes are signed, sent and kept in the history row.
  const body = payloadBytes(job.event, job.timestamp, data, webhook);
  let secret: string;
  let customHeaders: Record<string, string>;
  try {
    secret = openedOnce(deps, webhook.secret_enc, () => decryptSecret(deps.config.secretKey, webhook.secret_enc));
    customHeaders = webhook.headers_enc ? openedOnce(deps, webhook.headers_enc, () => openHeaders(deps.config.secretKey, { headersEnc: webhook.headers_enc, headers: webhook.headers })) : webhook.headers;
  } catch {
    return { ...base, sent: body, status: 'failed', statusCode: null, responseTimeMs: 0, responseBody: null, error: 'the webhook secret cannot be read with the current SOUK_SECRET_KEY', timings: NO_TIMINGS };
  }
  const result = await sendAttempt({
    url: webhook.url,
    event: job.event,
    deliveryId: job.deliveryId,
    webhookId: webhook.id,
    secret,
    customHeaders,
    body,
    test: false,
    timeoutMs: DELIVERY_TIMEOUT_MS,
    allowed: addressCheck(deps.config),
  });
  deps.metrics?.delivery(result.status, result.responseTimeMs / 1000);
  if (result.status === 'failed') {
    deps.log.warn({ webhookId: webhook.id, event: job.event, deliveryId: job.deliveryId, statusCode: result.statusCode, error: result.error }, 'webhook delivery failed');
  }
  return { ...result, ...base, sent: body };
}

/** Processes jobs directly (tests and tools): load, send in parallel, record. */
export async function processDeliveries(deps: Deps, jobs: DeliveryJob[]): Promise<void> {
  if (!jobs.length) return;
  const em = deps.orm.em.fork() as EntityManager;
  const loaded = await loadBatch(em, jobs);
  const attempts = await Promise.all(
    jobs.map((j, i) => {
      const { webhook, data } = loaded[i];
      return webhook ? attempt(deps, j, { webhook, data }) : null;
    }),
  );
  await recordAttempts(em, attempts.filter((a): a is RecordedAttempt => a !== null));
}

export const processDelivery = (deps: Deps, job: DeliveryJob) => processDeliveries(deps, [job]);

const POLL_MS = 500;
const STOP_WAIT_MS = 10_000;
/**
 * A job claimed ahead must begin its attempt this soon after its claim: the attempt (at most the
 * delivery timeout) then ends before the claim expires, with a second to record it. A job that
 * could not begin in time is left to expire and is handed out again, with the same X-Svc-Delivery.
 */
export const START_WITHIN_MS = DELIVERY_EXPIRE_SECONDS * 1000 - DELIVERY_TIMEOUT_MS - 1000;
/** How long the jobs claimed ahead may take to reach a slot, going by recent attempts: well inside START_WITHIN_MS. */
const AHEAD_DRAIN_MS = 1000;

/**
 * Claims jobs as delivery slots free up and settles each on its own, so a receiver that takes the
 * whole 30 s holds one slot, not a batch. It claims ahead of its free slots (up to half as many
 * again, fewer when recent attempts were slow) so that a slot that frees begins its next attempt
 * at once, without a claim round trip, and claims in batches while slots are busy. A claim reads
 * the claimed jobs' webhooks, recorded deliveries and events in the same statement; attempts that
 * finish close together are recorded and their jobs completed in one statement (group commit).
 * A job is completed only with its attempt recorded; a process that dies before leaves it to
 * expire and be claimed again with the same X-Svc-Delivery, and an attempt already recorded is
 * never sent again.
 */
export class DeliveryPump {
  private readonly db: PumpDb;
  /** Claimed and loaded, waiting for a slot, oldest first. */
  private ahead: Claimed[] = [];
  /** Attempts being made: what the capacity bounds (the receivers' share). */
  private sending = 0;
  /** Attempts made and not yet recorded: bounded too, so a slow database slows claiming. */
  private unsettled = 0;
  /** Recent attempt durations (ms, moving average): how fast slots free up. */
  private attemptMs = 0;
  private stopping = false;
  private wakeUp: (() => void) | null = null;
  private poked = false;
  private loopDone: Promise<void> = Promise.resolve();
  private settling: Array<{ jobId: string; attempt: RecordedAttempt | null }> = [];
  private flushing: Promise<void> | null = null;

  constructor(
    private readonly deps: Deps,
    private readonly queue: Queue,
    private readonly capacity: number,
  ) {
    this.db = new PumpDb(deps);
  }

  start(): void {
    this.queue.onWake(() => this.poke());
    this.loopDone = this.db.open(() => this.poke()).then(() => this.loop());
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.poke();
    await this.loopDone;
    // Jobs claimed ahead are sent as slots free, as in flight ones finish: a stop hands none back to wait for expiry.
    this.dispatch();
    const deadline = Date.now() + STOP_WAIT_MS;
    while ((this.sending > 0 || this.ahead.length > 0 || this.unsettled > 0) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await this.db.close();
  }

  private poke(): void {
    const wake = this.wakeUp;
    this.wakeUp = null;
    // A wake-up while a claim is in flight must not be lost: the next sleep is skipped.
    if (wake) wake();
    else this.poked = true;
  }

  private sleep(ms: number): Promise<void> {
    if (this.poked) {
      this.poked = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wakeUp = null;
        resolve();
      }, ms);
      this.wakeUp = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  /** How many jobs may wait claimed for a slot: those the slots would take within AHEAD_DRAIN_MS at the recent pace, at most half the slots. */
  private aheadLimit(): number {
    const perSlot = this.attemptMs > 0 ? AHEAD_DRAIN_MS / this.attemptMs : 1;
    return Math.min(Math.floor(this.capacity / 2), Math.floor(this.capacity * perSlot));
  }

  private async loop(): Promise<void> {
    while (!this.stopping) {
      this.dispatch();
      const room = this.unsettled >= this.capacity * 4 ? 0 : this.capacity + this.aheadLimit() - this.sending - this.ahead.length;
      // While the claimed jobs keep the slots busy, claim in batches of a quarter of the room or
      // more: each claim reads its webhooks and payloads once, whatever its size.
      if (room <= 0 || (this.ahead.length > 0 && room < (this.capacity + this.aheadLimit()) / 4)) {
        await this.sleep(POLL_MS);
        continue;
      }
      let claimed: Claimed[] = [];
      try {
        claimed = await claimBatch(this.db, this.deps, room);
      } catch (err) {
        // Nothing was claimed: the claim and the load are one statement.
        this.deps.log.error({ err: (err as Error).message }, 'delivery fetch failed');
      }
      if (!claimed.length) {
        await this.sleep(POLL_MS);
        continue;
      }
      this.ahead.push(...claimed);
    }
  }

  /** Moves claimed jobs into free slots; one that can no longer finish before its claim expires is left to expire. */
  private dispatch(): void {
    while (this.sending < this.capacity && this.ahead.length) {
      const job = this.ahead.shift()!;
      if (Date.now() - job.claimedAt > START_WITHIN_MS) {
        this.deps.log.warn({ deliveryId: job.data.deliveryId }, 'delivery not begun within its claim: left to expire and be sent again');
        continue;
      }
      this.sending++;
      void this.run(job);
    }
  }

  private async run(job: Claimed): Promise<void> {
    const { webhook, data } = job.loaded;
    const started = Date.now();
    const made = webhook ? await attempt(this.deps, job.data, { webhook, data }) : null;
    this.attemptMs = this.attemptMs ? this.attemptMs * 0.9 + (Date.now() - started) * 0.1 : Date.now() - started;
    this.sending--;
    this.settle(job.id, made);
    // A slot freed: the next claimed job begins now, not at the loop's next turn.
    this.dispatch();
    this.poke();
  }

  private settle(jobId: string, recorded: RecordedAttempt | null): void {
    this.settling.push({ jobId, attempt: recorded });
    this.unsettled++;
    if (!this.flushing) this.flushing = this.flush();
  }

  private async flush(): Promise<void> {
    // Let the attempts finishing in this turn of the event loop join the group.
    await new Promise((r) => setImmediate(r));
    while (this.settling.length) {
      const group = this.settling.splice(0);
      try {
        await settleBatch(this.db, this.deps, group.map((g) => g.jobId), group.flatMap((g) => (g.attempt ? [g.attempt] : [])));
      } catch (err) {
        this.deps.log.error({ err: (err as Error).message }, 'recording deliveries failed');
      }
      this.unsettled -= group.length;
      this.poke();
    }
    this.flushing = null;
  }
}

const pumps = new WeakMap<Deps, DeliveryPump>();

/** The running service's delivery pump, once the delivery module started (tests stop it to play a dead replica). */
export const deliveryPumpOf = (deps: Deps): DeliveryPump | undefined => pumps.get(deps);

/** The delivery pump: claims and sends the delivery queue's jobs (the queue module made the queue). */
export const deliveryModule: Module = {
  name: 'webhook-delivery',
  start: async (deps) => {
    await sealLegacyHeaders(deps);
    if (!runsWork(deps)) return;
    const pump = new DeliveryPump(deps, deps.queue, deps.config.deliveryConcurrency);
    pumps.set(deps, pump);
    pump.start();
    return () => pump.stop();
  },
};
