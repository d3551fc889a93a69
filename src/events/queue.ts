import { PgBoss, fromKnex, type JobInsert } from 'pg-boss';
import { completeJobsDistributed, fetchNextJob, insertJobs } from 'pg-boss/dist/plans.js';
import type { BaseDeps, Deps } from '../core/context.js';
import { runsWork, type Module } from '../core/module.js';
import type { TxCtx } from '../core/tx.js';
import { QUEUE_POOL_MAX, type DatabaseTarget } from '../db/orm.js';

export const DELIVERY_QUEUE = 'webhook-delivery';
const SCHEMA = 'pgboss';
/** Where pg-boss's insert reads its rows: one json parameter, replaced by an expression in `deliveryInsertSql`. */
const ROWS_PARAM = '$1::text::json';

/**
 * The channel a commit that queued deliveries NOTIFYs on a PostgreSQL server: every process that
 * sends deliveries LISTENs and claims at once, whichever process wrote (a worker would otherwise
 * find them at its next poll).
 */
export const DELIVERY_CHANNEL = 'souk_deliveries';

/** A select-list column that NOTIFYs DELIVERY_CHANNEL once when `relation` has a row (PostgreSQL folds repeats in a transaction). */
export const deliveryNotifyColumn = (relation: string) => `(select count(pg_notify('${DELIVERY_CHANNEL}', '')) from (select 1 from ${relation} limit 1) n)`;

/** How often a server replica looks for expired claims (and refreshes the queue's counters). */
export const SUPERVISE_SECONDS = 5;

/** The longest a webhook delivery attempt may take, the receiver's whole answer included. */
export const DELIVERY_TIMEOUT_MS = 30_000;

/**
 * A claimed delivery expires this long after its claim: just above the 30 s delivery timeout, so a
 * live attempt always settles first, while a replica that died mid-attempt has its jobs handed out
 * again (same X-Svc-Delivery) at the next supervise pass, within about 45 s of the claim.
 */
export const DELIVERY_EXPIRE_SECONDS = Math.ceil(DELIVERY_TIMEOUT_MS / 1000) + 5;

/** One delivery attempt to make: everything needed to build the payload at send time. */
export interface DeliveryJob {
  deliveryId: string;
  webhookId: string;
  storeId: string;
  event: string;
  timestamp: string;
  /** The payload's data, for deliveries of no stored event (manual sends, redeliveries). */
  data?: Record<string, unknown>;
  /** The store event whose data this delivers: read from its row at send time, not copied here. */
  seq?: number;
  /** The history entry this delivery sends again, for a manual redelivery. */
  redeliveryOf?: string;
}

/**
 * pg-boss over a knex connection or transaction. knex refuses `undefined` bindings where the
 * pg driver sends NULL, and pg-boss leaves optional values undefined (a schedule's data).
 */
function knexDb(knexLike: unknown) {
  const db = fromKnex(knexLike as never);
  return { executeSql: (text: string, values?: unknown[]) => db.executeSql(text, values?.map((v) => (v === undefined ? null : v))) };
}

export interface Queue {
  boss: PgBoss;
  /** Wakes this process's delivery workers at once instead of at their next poll. */
  wake(): void;
  onWake(fn: () => void): void;
  /** Registers a worker of this process: a commit that queued jobs on its queue wakes it at once (`enqueueInTransaction`). */
  addLocalWorker(queue: string, workerId: string): void;
  /** Wakes this process's registered workers of a queue instead of leaving them to their next poll. */
  wakeLocal(queue: string): void;
  /** pg-boss's own insert of delivery jobs (its queue's table and settings), known once the queue exists. */
  deliveryInsert?: string;
  /** pg-boss's own claim and completion of delivery jobs, known once the queue exists (see `deliveryClaimSql`). */
  deliveryClaim?: string;
  deliveryComplete?: string;
}

declare module '../core/context.js' {
  interface Deps {
    /** The job engine every module schedules on (built in service.ts, started by `queueModule`). */
    queue: Queue;
  }
}

export function createQueue(deps: BaseDeps): Queue {
  const target: DatabaseTarget = deps.db;
  const boss = new PgBoss({
    // Embedded mode shares the ORM's single connection (see EMBEDDED_POOL_MAX); a server gets its own pool.
    ...(deps.embedded ? { db: knexDb(deps.orm.em.getKnex()) } : { ...target.connection, max: QUEUE_POOL_MAX }),
    schema: SCHEMA,
    application_name: 'souk-queue',
    // LISTEN/NOTIFY wakes workers of every replica on a real PostgreSQL; embedded mode is one process.
    useListenNotify: !deps.embedded,
    // Cron schedules (the event retention job) run on whichever replica claims them first, and
    // maintenance (expired claims, retention) likewise: on the replicas that run background work.
    schedule: runsWork(deps),
    supervise: runsWork(deps),
    // On a server, jobs a dead replica had claimed are handed out again soon after they expire
    // (see DELIVERY_EXPIRE_SECONDS); embedded mode is one process, whose claims come back on restart.
    ...(deps.embedded ? { monitorIntervalSeconds: 60 } : { superviseIntervalSeconds: SUPERVISE_SECONDS, monitorIntervalSeconds: SUPERVISE_SECONDS }),
  });
  boss.on('error', (err) => deps.log.error({ err: err.message }, 'queue error'));
  const wakers: Array<() => void> = [];
  const local = new Map<string, string[]>();
  return {
    boss,
    wake: () => {
      for (const w of wakers) w();
    },
    onWake: (fn) => {
      wakers.push(fn);
    },
    addLocalWorker: (queue, workerId) => {
      local.set(queue, [...(local.get(queue) ?? []), workerId]);
    },
    wakeLocal: (queue) => {
      for (const id of local.get(queue) ?? []) boss.notifyWorker(id);
    },
  };
}

/** A limit no batch has, replaced by a parameter in the claim's text. */
const LIMIT_SENTINEL = 987_654_321;

/**
 * Prepares `deliveryInsertSql`, `deliveryClaimSql` and `deliveryCompleteSql` once the delivery
 * queue exists (its table is pg-boss's choice): pg-boss's own statements, so its states, retries
 * and expiry stay its own.
 */
export async function prepareDeliveryInsert(queue: Queue): Promise<void> {
  const q = await queue.boss.getQueue(DELIVERY_QUEUE);
  if (!q) throw new Error(`queue ${DELIVERY_QUEUE} does not exist`);
  const sql = insertJobs(SCHEMA, { table: q.table, name: DELIVERY_QUEUE, returnId: false, notify: false });
  if (!sql.includes(ROWS_PARAM)) throw new Error('pg-boss insert statement changed shape: its rows parameter is gone');
  queue.deliveryInsert = sql;
  // What `boss.fetch(DELIVERY_QUEUE, { batchSize })` runs on a queue of the standard policy.
  if (q.policy && q.policy !== 'standard') throw new Error(`queue ${DELIVERY_QUEUE} has policy ${q.policy}; the claim is written for the standard one`);
  const claim = fetchNextJob({ schema: SCHEMA, table: q.table, name: DELIVERY_QUEUE, policy: 'standard', limit: LIMIT_SENTINEL, ignoreSingletons: [] } as never, false) as { text: string; values: unknown[] };
  if (claim.values.length || !claim.text.includes(`LIMIT ${LIMIT_SENTINEL}`) || !/RETURNING j\.id, name, data, retry_count as "retryCount"/.test(claim.text)) {
    throw new Error('pg-boss fetch statement changed shape');
  }
  if (claim.text.includes('?')) throw new Error('pg-boss fetch statement changed shape: it has a ? of its own');
  queue.deliveryClaim = claim.text.replace(`LIMIT ${LIMIT_SENTINEL}`, 'LIMIT ?::int');
  // What `boss.complete(DELIVERY_QUEUE, ids)` runs, as one statement whose only binding is the ids.
  const complete = completeJobsDistributed(SCHEMA, q.table, undefined, false);
  const once = (token: string) => complete.split(token).length === 2;
  if (complete.includes('?') || !/^\s*UPDATE\b[\s\S]*RETURNING id\s*$/i.test(complete) || !once('$1') || !once('$2::uuid[]') || !once('$3::jsonb') || /\$[4-9]/.test(complete)) {
    throw new Error('pg-boss complete statement changed shape');
  }
  queue.deliveryComplete = complete.replace('$1', `'${DELIVERY_QUEUE}'`).replace('$2::uuid[]', '?::uuid[]').replace('$3::jsonb', 'null::jsonb');
}

/**
 * pg-boss's claim of up to `?` delivery jobs (as `boss.fetch` makes it), to be a CTE of a
 * statement that reads what the claimed jobs need in the same round trip. Returns
 * `id, name, data, "retryCount", …` per claimed job.
 */
export function deliveryClaimSql(deps: Deps): string {
  const sql = deps.queue.deliveryClaim;
  if (!sql) throw new Error('the delivery queue is not prepared');
  return sql;
}

/**
 * pg-boss's completion of delivery jobs (as `boss.complete` makes it, no output; binding `?` the
 * ids as uuid[]), to be a CTE of the statement that records their attempts, so recording and
 * completing commit together.
 */
export function deliveryCompleteSql(deps: Deps): string {
  const sql = deps.queue.deliveryComplete;
  if (!sql) throw new Error('the delivery queue is not prepared');
  return sql;
}

/**
 * pg-boss's insert of delivery jobs, for a statement that enqueues in SQL (a write and its event
 * in one statement): `rows` is an SQL expression yielding a json array of `{ id, data }`, `data`
 * being the DeliveryJob with `id` as its deliveryId. Policies, retries and expiry are the queue's.
 */
export function deliveryInsertSql(deps: Deps, rows: string): string {
  const sql = deps.queue.deliveryInsert;
  if (!sql) throw new Error('the delivery queue is not prepared');
  return sql.replace(ROWS_PARAM, () => rows);
}

/** Enqueue through the transaction's own connection: the jobs commit or vanish with the write. */
export async function enqueueDeliveries(tx: TxCtx, jobs: DeliveryJob[]): Promise<void> {
  if (!jobs.length) return;
  const queue = tx.deps.queue;
  const trx = tx.em.getTransactionContext();
  if (!trx) throw new Error('enqueueDeliveries needs a transaction');
  // pg-boss's insert as prepared at start: \`boss.insert\` would look the queue up first when its
  // cache is cold, on its own connection, which in embedded mode is the one this transaction holds.
  const insert = deliveryInsertSql(tx.deps, ROWS_PARAM);
  await knexDb(trx).executeSql(tx.deps.embedded ? insert : `with j as (${insert}) select pg_notify('${DELIVERY_CHANNEL}', '')`, [
    JSON.stringify(jobs.map((j) => ({ id: j.deliveryId, data: j }))),
  ]);
  tx.afterCommit.push(() => queue.wake());
}

/**
 * Enqueue jobs of any queue through the transaction's own connection (same guarantee as
 * deliveries); this process's workers of that queue wake once it committed.
 */
export async function enqueueInTransaction(tx: TxCtx, queue: string, jobs: JobInsert[]): Promise<void> {
  if (!jobs.length) return;
  const trx = tx.em.getTransactionContext();
  if (!trx) throw new Error('enqueueInTransaction needs a transaction');
  const engine = tx.deps.queue;
  await engine.boss.insert(queue, jobs, { db: knexDb(trx) });
  tx.afterCommit.push(() => engine.wakeLocal(queue));
}

/**
 * The job engine, started before every other module and stopped after them (service.ts): the
 * delivery queue exists, its insert prepared, before anything can write an event.
 */
export const queueModule: Module = {
  name: 'queue',
  start: async (deps) => {
    const { queue } = deps;
    await queue.boss.start();
    const stop = () => queue.boss.stop({ graceful: true, timeout: 10_000, close: true });
    try {
      // Created at start, outside any transaction (embedded mode has one database session); an
      // existing queue takes the current settings too.
      const settings = {
        expireInSeconds: DELIVERY_EXPIRE_SECONDS,
        retryLimit: 5,
        retryDelay: 2,
        deleteAfterSeconds: 3600,
        notify: !deps.embedded,
      };
      await queue.boss.createQueue(DELIVERY_QUEUE, settings as never);
      await queue.boss.updateQueue(DELIVERY_QUEUE, settings as never);
      await prepareDeliveryInsert(queue);
    } catch (err) {
      // A start that failed halfway leaves no pool or timer behind to keep the process alive.
      await stop().catch(() => {});
      throw err;
    }
    return stop;
  },
};
