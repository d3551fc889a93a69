import type { EntityManager } from '@mikro-orm/postgresql';
import { requireActor, type Ctx } from '../core/context.js';
import { invalid } from '../core/errors.js';
import { pageLimit } from '../lib/pagination.js';
import type { CommittedEvent } from './bus.js';
import { EVENT_NAMES, normalizeStreamEvents } from './names.js';
import { lastSeq, readEventsAfter } from './store-events.js';

/** An event as the realtime channel, the feed and the SSE stream show it; `id` is the cursor. */
export interface StoreEventView {
  id: string;
  event: string;
  timestamp: string;
  storeId: string;
  data: Record<string, unknown>;
}

export const eventView = (e: CommittedEvent): StoreEventView => ({
  id: String(e.seq),
  event: e.event,
  timestamp: e.timestamp,
  storeId: e.storeId,
  data: e.data,
});

/** A cursor is a sequence number: "0" (or none) means from the first event kept. */
export function parseCursor(raw: string, path: string): number {
  if (!/^\d{1,15}$/.test(raw)) throw invalid(path, 'must be an event id (a non-negative integer)');
  return Number(raw);
}

/** The events a reader asked for; unnamed, the six webhook events (realtime-only ones must be named). */
export const eventFilter = (events: readonly string[] | null | undefined): string[] =>
  events === null || events === undefined ? [...EVENT_NAMES] : normalizeStreamEvents(events);

export interface FeedArgs {
  after?: string | null;
  /** The REST list convention's name for `after`. */
  cursor?: string | null;
  limit?: number | null;
  events?: string[] | null;
}

/** Events after the cursor, oldest first: a client that keeps the last id it saw misses nothing. */
export async function listStoreEvents(ctx: Ctx, storeId: string, args: FeedArgs): Promise<{ data: StoreEventView[]; nextCursor: string | null }> {
  if (args.after != null && args.cursor != null && args.after !== args.cursor) {
    throw invalid('cursor', 'give after or cursor, not two different values');
  }
  const raw = args.after ?? args.cursor;
  const after = raw == null ? 0 : parseCursor(raw, args.after != null ? 'after' : 'cursor');
  const limit = pageLimit(args.limit);
  const rows = await readEventsAfter(ctx.em, storeId, after, limit + 1, eventFilter(args.events));
  const data = rows.slice(0, limit).map(eventView);
  return { data, nextCursor: rows.length > limit ? data[data.length - 1].id : null };
}

/** Buffered events beyond which a subscriber that does not read is dropped (it can resume from the feed). */
export const MAX_QUEUED = 1_000;

/**
 * A live subscription: access is checked by the field's policy at subscribe time, and again by
 * the transport whenever it may have changed (server/graphql-stream.ts); the listener is
 * registered before this resolves (nothing committed afterwards is missed), and it ends when the
 * consumer returns. One such source may feed many subscribers (the field is multiplexed).
 */
export async function subscribeStoreEvents(ctx: Ctx, storeId: string, events?: string[] | null): Promise<AsyncIterableIterator<StoreEventView>> {
  requireActor(ctx);
  const only = eventFilter(events);
  const hub = ctx.deps.realtime;
  const after = ctx.deps.embedded ? undefined : await lastSeq(ctx.em, storeId);

  const queue: StoreEventView[] = [];
  let wake: ((r: IteratorResult<StoreEventView>) => void) | null = null;
  let done = false;
  let unsubscribe = () => {};
  const finish = (): IteratorResult<StoreEventView> => {
    if (!done) {
      done = true;
      unsubscribe();
      queue.length = 0;
      const w = wake;
      wake = null;
      w?.({ value: undefined, done: true });
    }
    return { value: undefined, done: true };
  };
  unsubscribe = hub.subscribe(
    storeId,
    (e) => {
      if (done || !only.includes(e.event)) return;
      const view = eventView(e);
      if (wake) {
        const w = wake;
        wake = null;
        w({ value: view, done: false });
      } else if (queue.length >= MAX_QUEUED) {
        finish();
      } else {
        queue.push(view);
      }
    },
    after,
  );
  const iterator: AsyncIterableIterator<StoreEventView> = {
    next() {
      if (queue.length) return Promise.resolve({ value: queue.shift()!, done: false });
      if (done) return Promise.resolve({ value: undefined, done: true });
      return new Promise((resolve) => (wake = resolve));
    },
    return: () => Promise.resolve(finish()),
    throw: () => Promise.resolve(finish()),
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}
