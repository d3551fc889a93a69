import type { QueryResult } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { CommittedEvent } from './bus.js';

export interface StoreEventRow {
  seq: string | number;
  event: string;
  data: Record<string, unknown>;
  created_at: Date | string;
}

export const committedEvent = (storeId: string, r: StoreEventRow): CommittedEvent => ({
  storeId,
  seq: Number(r.seq),
  event: r.event,
  timestamp: new Date(r.created_at).toISOString(),
  data: r.data,
});

/** Committed events of a store after a sequence number, oldest first. */
export async function readEventsAfter(em: EntityManager, storeId: string, after: number, limit: number, events?: readonly string[]): Promise<CommittedEvent[]> {
  const filter = events ? ' and event in (?)' : '';
  if (events && events.length === 0) return [];
  const rows: StoreEventRow[] = await em.execute(
    `select seq, event, data, created_at from store_events where store_id = ? and seq > ?${filter} order by seq limit ?`,
    events ? [storeId, after, events, limit] : [storeId, after, limit],
  );
  return rows.map((r) => committedEvent(storeId, r));
}

/** The store's last sequence number handed out: every event up to it is committed. */
export async function lastSeq(em: EntityManager, storeId: string): Promise<number> {
  const [row] = await em.execute('select seq from store_event_seqs where store_id = ?', [storeId]);
  return row ? Number(row.seq) : 0;
}

/** Deletes events older than `before`, in bounded batches; returns how many went. */
export async function pruneEvents(em: EntityManager, before: Date, batch = 5_000, maxBatches = 200): Promise<number> {
  let total = 0;
  for (let i = 0; i < maxBatches; i++) {
    const { affectedRows } = await em.execute<QueryResult>(
      `delete from store_events e using (select store_id, seq from store_events where created_at < ? limit ?) old
       where e.store_id = old.store_id and e.seq = old.seq`,
      [before, batch],
      'run',
    );
    total += affectedRows;
    if (affectedRows < batch) break;
  }
  return total;
}
