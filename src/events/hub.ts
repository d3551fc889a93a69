import type { BaseDeps, Deps } from '../core/context.js';
import { listenChannel } from '../db/listen.js';
import type { Module } from '../core/module.js';
import { eventBus, type CommittedEvent } from './bus.js';
import { SharedStreams } from './fanout.js';
import { EVENTS_CHANNEL } from './outbox.js';
import { committedEvent, type StoreEventRow } from './store-events.js';

export type EventListener = (e: CommittedEvent) => void;

/** This process's realtime subscribers, fed with every committed event of their stores. */
export interface RealtimeHub {
  /**
   * Registers a listener at once (events committed from now on reach it, in sequence order).
   * `after` is a sequence number the caller already knows to be committed: on PostgreSQL the
   * hub then also covers events between it and the first notification it sees.
   */
  subscribe(storeId: string, listener: EventListener, after?: number): () => void;
  /**
   * `seq` is committed, learnt after a listener of the store registered: a store whose position
   * the hub does not know yet starts there (so a lost connection catches it up from there).
   */
  known(storeId: string, seq: number): void;
  /** The readers' side: shared groups, one heartbeat timer, access re-checked on changes (fanout.ts). */
  readonly streams: SharedStreams;
  /** This process's open streams and subscriptions (tests wait on it). */
  readonly size: number;
  /** Starts hearing commits (`realtimeModule`); subscriptions come once HTTP listens, after it. */
  start(deps: Deps): Promise<void>;
  close(): Promise<void>;
}

/** Rows read per query when catching a store up. */
const READ_BATCH = 500;
const PUMP_RETRY_MS = 1_000;

interface StoreCursor {
  /** Last sequence number handed to this store's listeners; null until known. */
  last: number | null;
  /** Highest sequence number notified. */
  target: number;
  running: boolean;
}

export function createHub(deps: BaseDeps): RealtimeHub {
  const listeners = new Map<string, Set<EventListener>>();
  const streams = new SharedStreams(deps.log);
  const deliver = (e: CommittedEvent) => {
    const set = listeners.get(e.storeId);
    if (!set) return;
    for (const fn of set) {
      try {
        fn(e);
      } catch (err) {
        deps.log.error({ err }, 'realtime listener failed');
      }
    }
  };

  const add = (storeId: string, listener: EventListener) => {
    let set = listeners.get(storeId);
    if (!set) listeners.set(storeId, (set = new Set()));
    set.add(listener);
    return () => {
      if (!set.delete(listener)) return;
      if (set.size === 0) listeners.delete(storeId);
    };
  };

  // Embedded: one process owns the database, and the outbox's in-process emitter carries every
  // commit. A server: one LISTEN connection per replica (see startListener).
  let source: Awaited<ReturnType<typeof startListener>> | null = null;
  return {
    streams,
    async start(full) {
      if (deps.embedded) eventBus.on('event', deliver);
      else source = await startListener(deps, deliver, (storeId) => listeners.has(storeId));
      streams.start(full);
    },
    subscribe(storeId, listener, after) {
      const remove = add(storeId, listener);
      source?.watch(storeId, after);
      return () => {
        remove();
        if (!listeners.has(storeId)) source?.unwatch(storeId);
      };
    },
    known(storeId, seq) {
      if (listeners.has(storeId)) source?.watch(storeId, seq);
    },
    get size() {
      return streams.size;
    },
    async close() {
      streams.close();
      eventBus.off('event', deliver);
      listeners.clear();
      await source?.close();
      source = null;
    },
  };
}

/**
 * One LISTEN connection per replica. A notification says "store S committed event N"; the
 * rows are read back in sequence order, only for stores with local subscribers. Sequence
 * numbers of a store are committed in order (its sequence row is locked from numbering to
 * commit), so reading "after the last one handed out" never skips one, and after a lost
 * connection the same read catches every watched store up.
 */
async function startListener(deps: BaseDeps, deliver: EventListener, watched: (storeId: string) => boolean) {
  const cursors = new Map<string, StoreCursor>();
  const timers = new Set<NodeJS.Timeout>();
  let closed = false;

  const retryLater = (storeId: string, cursor: StoreCursor) => {
    const t = setTimeout(() => {
      timers.delete(t);
      void pump(storeId, cursor);
    }, PUMP_RETRY_MS);
    timers.add(t);
  };

  /**
   * Reads go through the LISTEN connection itself: the ORM pool can be exhausted by writers
   * queued on a busy store's row lock, and realtime must not wait behind them.
   */
  async function readAfter(storeId: string, after: number) {
    const { rows } = await listener.query<StoreEventRow>(
      'select seq, event, data, created_at from store_events where store_id = $1 and seq > $2 order by seq limit $3',
      [storeId, after, READ_BATCH],
    );
    return rows.map((r) => committedEvent(storeId, r));
  }

  async function pump(storeId: string, cursor: StoreCursor): Promise<void> {
    if (cursor.running || closed) return;
    cursor.running = true;
    let failed = false;
    try {
      // Each pass either hands out rows (advancing `last`) or stops.
      while (!closed && cursors.get(storeId) === cursor && cursor.last !== null) {
        // Notified before this read started, hence visible to it.
        const notified = cursor.target;
        const rows = await readAfter(storeId, cursor.last);
        for (const e of rows) {
          if (cursors.get(storeId) !== cursor) return;
          cursor.last = e.seq;
          deliver(e);
        }
        if (rows.length < READ_BATCH) {
          // Rows notified but gone (store deleted, pruned) must not be waited for.
          if (cursor.last < notified) cursor.last = notified;
          break;
        }
      }
    } catch (err) {
      failed = true;
      // Without a connection the reconnect catches every store up; otherwise try again soon.
      if (!closed && listener.connected()) {
        deps.log.error({ err: (err as Error).message }, 'realtime: reading committed events failed');
        retryLater(storeId, cursor);
      }
    } finally {
      cursor.running = false;
    }
    // A notification that arrived during the last read.
    if (!failed && !closed && cursors.get(storeId) === cursor && cursor.last !== null && cursor.last < cursor.target) void pump(storeId, cursor);
  }

  const onPayload = (payload: string | null) => {
    if (payload === null) {
      // Reconnected: whatever was committed while no connection listened.
      for (const [storeId, cursor] of cursors) void pump(storeId, cursor);
      return;
    }
    const at = payload.lastIndexOf(':');
    const storeId = payload.slice(0, at);
    const seq = Number(payload.slice(at + 1));
    if (!watched(storeId) || !Number.isSafeInteger(seq)) return;
    let cursor = cursors.get(storeId);
    if (!cursor) cursors.set(storeId, (cursor = { last: null, target: 0, running: false }));
    if (cursor.last === null) cursor.last = seq - 1;
    cursor.target = Math.max(cursor.target, seq);
    void pump(storeId, cursor);
  };

  const listener = await listenChannel(deps, EVENTS_CHANNEL, 'realtime', onPayload);

  return {
    watch(storeId: string, after?: number) {
      let cursor = cursors.get(storeId);
      if (!cursor) cursors.set(storeId, (cursor = { last: null, target: 0, running: false }));
      if (after !== undefined && cursor.last === null) {
        cursor.last = after;
        // Covers commits between `after` and this registration whose notification came first.
        void pump(storeId, cursor);
      }
    },
    unwatch(storeId: string) {
      cursors.delete(storeId);
    },
    async close() {
      closed = true;
      for (const t of timers) clearTimeout(t);
      timers.clear();
      cursors.clear();
      await listener.close();
    },
  };
}

declare module '../core/context.js' {
  interface Deps {
    /** This process's realtime subscribers (built in service.ts, started by `realtimeModule`). */
    realtime: RealtimeHub;
  }
}

export const realtimeModule: Module = {
  name: 'realtime',
  start: async (deps) => {
    await deps.realtime.start(deps);
    return () => deps.realtime.close();
  },
};
