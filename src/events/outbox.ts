import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { inTransaction, type TxCtx } from '../core/tx.js';
import { executePrepared, executePreparedIn } from '../db/prepared.js';
import type { Ctx, Deps } from '../core/context.js';
import { entityOf, isUpdated, type EventName, type RealtimeOnlyEvent } from './names.js';
import { deliveryInsertSql, deliveryNotifyColumn, enqueueDeliveries, type DeliveryJob } from './queue.js';
import { eventBus, type CommittedEvent } from './bus.js';

export interface DomainEvent {
  storeId: string;
  event: EventName;
  /** The record as the payload shows it (after the write; the deleted record for deletes). */
  record: object & { metadata?: unknown };
  /** The record before the write, for the Updated events. */
  previous?: object | null;
  /**
   * The write itself carries `metadata.connector.integrationSource = "inbound"` (CONTRACT-2 §14):
   * judged per write, not from the stored record, so a merchant's later edit fires webhooks.
   */
  inbound?: boolean;
}

/** Whether a write's input (or any metadata-bearing value) carries the inbound marker. */
export function isInbound(value: { metadata?: unknown } | null | undefined): boolean {
  const meta = value?.metadata as { connector?: { integrationSource?: unknown } } | null | undefined;
  return meta?.connector?.integrationSource === 'inbound';
}

export function payloadData(storeId: string, event: EventName, record: object, previous?: object | null): Record<string, unknown> {
  return {
    store_id: storeId,
    [entityOf(event)]: record,
    ...(isUpdated(event) ? { previous_data: previous ?? null } : {}),
  };
}

/** The one definition of "subscribed": active webhooks of the store listing the event (bindings: storeId, event). */
export const SUBSCRIBED_WEBHOOKS = 'select id from webhooks where store_id = ? and active and ? = any(events)';

/** Subscribed active webhooks of a store for an event, optionally only some of them. */
export async function subscribedWebhooks(em: EntityManager, storeId: string, event: string, only?: string[]): Promise<Array<{ id: string }>> {
  if (only && only.length === 0) return [];
  // knex expands an array binding into a list: `in (?)` takes it as is.
  return em.execute(
    `${SUBSCRIBED_WEBHOOKS}${only ? ' and id in (?)' : ''} order by id`,
    only ? [storeId, event, only] : [storeId, event],
  );
}

/** The PostgreSQL channel that tells every replica "store S has committed event N". */
export const EVENTS_CHANNEL = 'souk_events';

/**
 * An event's time: read once its store's sequence row is locked, the transaction's last lock, so
 * that waiting for the lock does not count and sequence order is time order. Milliseconds, as
 * the payloads show it.
 */
const EVENT_TIME = "date_trunc('milliseconds', clock_timestamp())";

/** A NOTIFY per row of the `e` CTE (bindings: EVENTS_CHANNEL, storeId), or only their count in embedded mode. */
const notifiedColumn = (notify: boolean) => (notify ? "(select count(pg_notify(?, ?::text || ':' || e.seq::text)) from e)" : '(select count(*) from e)');

/**
 * Records a domain event in the transaction of the write that caused it: the event row
 * (next per-store sequence number), one delivery job per subscribed active webhook, and,
 * after commit only, the realtime publication and the worker wake-up.
 */
export async function recordEvent(ctx: Ctx, e: DomainEvent): Promise<CommittedEvent> {
  const [committed] = await insertEvents(ctx, e.storeId, e.event, [payloadData(e.storeId, e.event, e.record, e.previous)], !e.inbound);
  return committed;
}

/**
 * Many events of one kind and store, as one write (a batch status change) records them: one
 * statement for all the event rows and one insert for all their delivery jobs. Inbound records
 * (CONTRACT §5) are published but queue no delivery, judged per record.
 */
export async function recordEvents(ctx: Ctx, storeId: string, event: EventName, records: Array<Omit<DomainEvent, 'storeId' | 'event'>>): Promise<CommittedEvent[]> {
  const delivered = records.filter((r) => !r.inbound);
  const inbound = records.filter((r) => r.inbound);
  const data = (rs: typeof records) => rs.map((r) => payloadData(storeId, event, r.record, r.previous));
  return [...(await insertEvents(ctx, storeId, event, data(delivered), true)), ...(await insertEvents(ctx, storeId, event, data(inbound), false))];
}

/** A realtime-only event (CONTRACT-2 §9): the event row and its publication, never a webhook delivery. */
export async function recordRealtimeEvent(ctx: Ctx, e: { storeId: string; event: RealtimeOnlyEvent; data: Record<string, unknown> }): Promise<CommittedEvent> {
  const [committed] = await insertEvents(ctx, e.storeId, e.event, [e.data], false);
  return committed;
}

/**
 * A write and its event in one statement: `ctes` (bindings `params`) write the record, `written`
 * names the CTE whose rows say it happened, `data` is an SQL payload instead of the record's, and
 * `check` a select-list expression (no bindings) evaluated last, over every CTE: one that raises
 * undoes the whole statement.
 */
export interface EventWrite {
  ctes: string;
  params: unknown[];
  written: string;
  data?: string;
  check?: string;
}

/**
 * A write and its event as one statement, outside any transaction (it commits alone): the
 * caller's CTEs (`write.ctes`, bindings `write.params`), of which `write.written` returns one row
 * when the write was made; then, only in that case, the sequence row, the event row, a delivery
 * job per subscribed webhook (pg-boss's insert) and the NOTIFY. One round trip where a transaction
 * takes five or six. The sequence row is still the statement's last lock, held to its commit.
 * The payload is the event's record (and previous record) given, or, with `write.data`, an SQL
 * expression over the CTEs that builds it (for a write whose previous record only the statement
 * reads); the committed event carries the payload as stored.
 * Returns null when nothing was written: the caller then takes its general path.
 */
export async function writeWithEvent(
  ctx: Ctx,
  write: EventWrite,
  e: Omit<DomainEvent, 'record'> & { record?: DomainEvent['record'] },
): Promise<CommittedEvent | null> {
  if (inTransaction(ctx)) throw new Error('writeWithEvent commits on its own: it cannot join a transaction');
  return runWriteWithEvent(ctx, write, e, (sql, params) => executePrepared(ctx.em as EntityManager, sql, params), (run) => run());
}

/**
 * `writeWithEvent` as one statement of the caller's transaction: the same statement (the sequence
 * row its last lock, held to the commit), the publication and the worker's wake-up after the commit.
 */
export async function writeWithEventIn(
  tx: TxCtx,
  write: EventWrite,
  e: Omit<DomainEvent, 'record'> & { record?: DomainEvent['record'] },
): Promise<CommittedEvent | null> {
  return runWriteWithEvent(tx, write, e, (sql, params) => executePreparedIn(tx.em as EntityManager, sql, params), (run) => tx.afterCommit.push(run));
}

async function runWriteWithEvent(
  ctx: Ctx,
  write: EventWrite,
  e: Omit<DomainEvent, 'record'> & { record?: DomainEvent['record'] },
  execute: (sql: string, params: unknown[]) => Promise<Array<{ seq: string | number | null; at: Date | string | null; hooks: string | number; data?: Record<string, unknown> }>>,
  committed: (run: () => void) => void,
): Promise<CommittedEvent | null> {
  const { storeId, event } = e;
  if (!write.data && !e.record) throw new Error('writeWithEvent needs the record or an SQL expression of the payload');
  const data = write.data ? null : payloadData(storeId, event, e.record!, e.previous);
  const deliver = !e.inbound;
  const notify = !ctx.deps.embedded;
  const [row] = await execute(writeWithEventSql(ctx.deps, write, deliver, notify), [
    ...write.params,
    storeId,
    storeId, event, ...(data ? [JSON.stringify(data)] : []),
    ...(deliver ? [storeId, event, storeId, event] : []),
    ...(notify ? [EVENTS_CHANNEL, storeId] : []),
  ]);
  if (row?.seq === null || row?.seq === undefined) return null;
  const done: CommittedEvent = { storeId, seq: Number(row.seq), event, timestamp: new Date(row.at!).toISOString(), data: data ?? row.data! };
  if (Number(row.hooks) > 0) committed(() => ctx.deps.queue.wake());
  // One process: the in-process emitter is the whole fan-out.
  if (ctx.deps.embedded) committed(() => eventBus.emit('event', done));
  return done;
}

/** The text of a `writeWithEvent` statement: the same for every call with the same CTEs and flags, so built once. */
const writeWithEventTexts = new WeakMap<Deps, Map<string, Map<string, string[]>>>();

function writeWithEventSql(deps: Deps, write: EventWrite, deliver: boolean, notify: boolean): string {
  let byCtes = writeWithEventTexts.get(deps);
  if (!byCtes) writeWithEventTexts.set(deps, (byCtes = new Map()));
  // By the CTEs' own string, then the rest: no key built (and hashed) from their long text per call.
  let byRest = byCtes.get(write.ctes);
  if (!byRest) byCtes.set(write.ctes, (byRest = new Map()));
  const rest = write.data || write.check ? `${write.data ?? ''}\u0000${write.check ?? ''}` : '';
  let texts = byRest.get(rest);
  if (!texts) byRest.set(rest, (texts = []));
  const slot = (deliver ? 2 : 0) + (notify ? 1 : 0);
  if (texts[slot]) return texts[slot];
  // Each delivery's id is its job's id, drawn once per webhook (a CTE with a volatile function is evaluated once).
  const jobs = deliver
    ? `, h as (select gen_random_uuid() as id, w.id as webhook_id from (${SUBSCRIBED_WEBHOOKS}) w),
         j as (${deliveryInsertSql(
           deps,
           `(select coalesce(json_agg(json_build_object('id', h.id, 'data', json_build_object('deliveryId', h.id, 'webhookId', h.webhook_id, 'storeId', ?::text, 'event', ?::text, 'timestamp', to_char(s.at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'seq', e.seq))), '[]'::json) from h, e, s)`,
         )})`
    : '';
  texts[slot] = `with ${write.ctes},
          s as (insert into store_event_seqs as q (store_id, seq) select ?, 1 from ${write.written}
                on conflict (store_id) do update set seq = q.seq + excluded.seq returning seq, ${EVENT_TIME} as at),
          e as (insert into store_events (store_id, seq, event, data, created_at) select ?, s.seq, ?, ${write.data ?? '?::jsonb'}, s.at from s returning seq${write.data ? ', data' : ''})
          ${jobs}
     select (select seq from e) as seq,
            (select at from s) as at,
            ${notifiedColumn(notify)} as notified,
            ${deliver ? '(select count(*) from h)' : '0'} as hooks${deliver && notify ? `,\n            ${deliveryNotifyColumn('h')} as woke` : ''}${write.data ? ',\n            (select data from e) as data' : ''}${write.check ? `,\n            ${write.check} as checked` : ''}`;
  return texts[slot];
}

async function insertEvents(ctx: Ctx, storeId: string, event: string, datas: Array<Record<string, unknown>>, deliver: boolean): Promise<CommittedEvent[]> {
  if (!datas.length) return [];
  if (!inTransaction(ctx)) throw new Error('recordEvent must run inside the write transaction');
  const tx = ctx as TxCtx;
  const em = tx.em as EntityManager;
  const n = datas.length;
  // One statement. The upsert locks the store's sequence row until commit, so sequence order is
  // commit order; every round trip after it caps a store's write rate, and no other lock may be
  // taken after it (it is the last lock of every transaction).
  // On a server the NOTIFY reaches every replica's LISTEN connection at commit, never for a
  // rollback; each replica (this one included) publishes from there only, so nothing is doubled.
  const notify = !tx.deps.embedded;
  const [row] = await em.execute<Array<{ last: string | number; at: Date | string; hooks: string[] }>>(
    `with s as (insert into store_event_seqs as q (store_id, seq) values (?, ?)
                on conflict (store_id) do update set seq = q.seq + excluded.seq returning seq, ${EVENT_TIME} as at),
          e as (insert into store_events (store_id, seq, event, data, created_at)
                select ?, s.seq - ? + v.ord, ?, v.data, s.at from s, jsonb_array_elements(?::jsonb) with ordinality as v(data, ord)
                returning seq)
     select (select seq from s) as last,
            (select at from s) as at,
            ${notifiedColumn(notify)} as notified,
            ${deliver ? `coalesce((select array_agg(id order by id) from (${SUBSCRIBED_WEBHOOKS}) h), '{}')` : "'{}'::text[]"} as hooks`,
    [storeId, n, storeId, n, event, JSON.stringify(datas), ...(notify ? [EVENTS_CHANNEL, storeId] : []), ...(deliver ? [storeId, event] : [])],
  );
  if (!row) throw new Error(`store ${storeId} does not exist`);
  const first = Number(row.last) - n + 1;
  const timestamp = new Date(row.at).toISOString();
  const committed: CommittedEvent[] = datas.map((data, i) => ({ storeId, seq: first + i, event, timestamp, data }));
  // The payload stays in the event row: jobs name it by (store, seq) and the dispatcher reads it.
  const jobs: DeliveryJob[] = committed.flatMap((c) => row.hooks.map((id) => ({ deliveryId: randomUUID(), webhookId: id, storeId, event, timestamp, seq: c.seq })));
  await enqueueDeliveries(tx, jobs);
  // One process: the in-process emitter is the whole fan-out.
  if (tx.deps.embedded) tx.afterCommit.push(() => committed.forEach((c) => eventBus.emit('event', c)));
  return committed;
}
