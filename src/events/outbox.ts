import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { inTransaction, type TxCtx } from '../core/tx.js';
import type { Ctx } from '../core/context.js';
import { entityOf, isUpdated, type EventName, type RealtimeOnlyEvent } from './names.js';
import { enqueueDeliveries, type DeliveryJob } from './queue.js';
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
 * Records a domain event in the transaction of the write that caused it: the event row
 * (next per-store sequence number), one delivery job per subscribed active webhook, and,
 * after commit only, the realtime publication and the worker wake-up.
 */
export async function recordEvent(ctx: Ctx, e: DomainEvent): Promise<CommittedEvent> {
  // An inbound write must not echo back out through webhooks; the realtime channel still has it.
  return insertEvent(ctx, e.storeId, e.event, payloadData(e.storeId, e.event, e.record, e.previous), !e.inbound);
}

/** A realtime-only event (CONTRACT-2 §9): the event row and its publication, never a webhook delivery. */
export async function recordRealtimeEvent(ctx: Ctx, e: { storeId: string; event: RealtimeOnlyEvent; data: Record<string, unknown> }): Promise<CommittedEvent> {
  return insertEvent(ctx, e.storeId, e.event, e.data, false);
}

async function insertEvent(ctx: Ctx, storeId: string, event: string, data: Record<string, unknown>, deliver: boolean): Promise<CommittedEvent> {
  if (!inTransaction(ctx)) throw new Error('recordEvent must run inside the write transaction');
  const tx = ctx as TxCtx;
  const em = tx.em as EntityManager;
  const now = new Date();
  const timestamp = now.toISOString();
  // One statement while the store row is locked: the row lock on the store orders concurrent
  // writers (sequence order is commit order), so every round trip here caps a store's write rate.
  // On a server the NOTIFY reaches every replica's LISTEN connection at commit, never for a
  // rollback; each replica (this one included) publishes from there only, so nothing is doubled.
  const notify = !tx.deps.embedded;
  const [row] = await em.execute<Array<{ seq: string | number; hooks: string[] }>>(
    `with s as (update stores set event_seq = event_seq + 1 where id = ? returning event_seq),
          e as (insert into store_events (store_id, seq, event, data, created_at)
                select ?, s.event_seq, ?, ?::jsonb, ? from s returning seq)
     select e.seq,
            ${notify ? "pg_notify(?, ?::text || ':' || e.seq::text)" : 'null'} as notified,
            ${deliver ? `coalesce((select array_agg(id order by id) from (${SUBSCRIBED_WEBHOOKS}) h), '{}')` : "'{}'::text[]"} as hooks
     from e`,
    [storeId, storeId, event, JSON.stringify(data), now, ...(notify ? [EVENTS_CHANNEL, storeId] : []), ...(deliver ? [storeId, event] : [])],
  );
  if (!row) throw new Error(`store ${storeId} does not exist`);
  const seq = Number(row.seq);
  const jobs: DeliveryJob[] = row.hooks.map((id) => ({ deliveryId: randomUUID(), webhookId: id, storeId, event, timestamp, data }));
  await enqueueDeliveries(tx, jobs);
  const committed: CommittedEvent = { storeId, seq, event, timestamp, data };
  // One process: the in-process emitter is the whole fan-out.
  if (tx.deps.embedded) tx.afterCommit.push(() => eventBus.emit('event', committed));
  return committed;
}
