import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Module } from '../core/module.js';
import { createContext, type Actor, type Deps } from '../core/context.js';
import { AppError, problem } from '../core/errors.js';
import { sendProblem } from '../edge/http-problem.js';
import { describePolicy, PERMISSIONS, policies, requireStorePermission } from '../core/policy.js';
import type { CommittedEvent } from './bus.js';
import { eventFilter, eventView, parseCursor, watchAccess } from './events.service.js';
import { lastSeq, readEventsAfter } from './store-events.js';

export const STREAM_PATH = '/v1/stores/:storeId/events/stream';
const QUERY_PARAMS = ['after', 'events'];
const BACKLOG_BATCH = 500;
/** Live events held while the backlog is read; a store busier than this makes the client resume. */
const MAX_PENDING = 10_000;
/** Unsent bytes beyond which a reader that does not keep up with live events is cut off (it resumes with Last-Event-ID); the backlog waits for the reader instead. */
const MAX_UNSENT_BYTES = 1024 * 1024;
/** Tells EventSource how long to wait before reconnecting. */
const RETRY_MS = 2_000;

/** Every stream of a store gets the same event object: it is serialized once, not once per subscriber. */
const formatted = new WeakMap<CommittedEvent, string>();
export function formatEvent(e: CommittedEvent): string {
  let text = formatted.get(e);
  if (text === undefined) {
    text = `id: ${e.seq}\nevent: ${e.event}\ndata: ${JSON.stringify(eventView(e))}\n\n`;
    formatted.set(e, text);
  }
  return text;
}

interface StreamRequest {
  storeId: string;
  actor: Actor;
  after: number | null;
  only: string[];
}

/** Everything that can be refused is checked before the stream starts, as problem+json. */
async function openRequest(deps: Deps, req: FastifyRequest): Promise<StreamRequest & { em: Awaited<ReturnType<typeof createContext>>['em'] }> {
  const { storeId } = req.params as { storeId: string };
  const query = (req.query ?? {}) as Record<string, unknown>;
  const unknown = Object.keys(query).filter((k) => !QUERY_PARAMS.includes(k));
  if (unknown.length) {
    throw new AppError('BAD_REQUEST', `Unknown query parameter: ${unknown.join(', ')}`, unknown.map((path) => ({ path, message: 'is not a known query parameter' })));
  }
  for (const k of QUERY_PARAMS) {
    if (Array.isArray(query[k])) throw new AppError('BAD_REQUEST', `Query parameter ${k} is given more than once`, [{ path: k, message: 'is given more than once' }]);
  }
  const ctx = await createContext(deps, req.headers.authorization, req.ip);
  // Not a GraphQL field: the same checker, called directly.
  const { actor } = await requireStorePermission(ctx, storeId, 'store.read');
  // A reconnecting EventSource sends Last-Event-ID with its original URL: the header is the newer position.
  const header = req.headers['last-event-id'];
  const raw = typeof header === 'string' && header !== '' ? header : typeof query.after === 'string' ? query.after : null;
  const after = raw === null ? null : parseCursor(raw, typeof header === 'string' && header !== '' ? 'Last-Event-ID' : 'after');
  const only = eventFilter(typeof query.events === 'string' ? query.events.split(',').filter((s) => s !== '') : undefined);
  return { storeId, actor, after, only, em: ctx.em };
}

/**
 * GET /v1/stores/{storeId}/events/stream: live events as server-sent events. With a cursor
 * (Last-Event-ID or ?after=) the missed events come first. The listener is registered before
 * the backlog is read and its events are held until the backlog is out, then sent skipping
 * any already sent: no gap, no duplicate.
 */
async function stream(deps: Deps, req: FastifyRequest, reply: FastifyReply): Promise<void> {
  let r: Awaited<ReturnType<typeof openRequest>>;
  try {
    r = await openRequest(deps, req);
  } catch (err) {
    if (err instanceof AppError) {
      sendProblem(reply, problem(err.code, err.message, err.errors), err.headers);
      return;
    }
    throw err;
  }
  const { storeId, only, em } = r;
  // The replica's realtime cursor starts at the store's current position, never at an old
  // Last-Event-ID: the backlog is this stream's to read (below); registering the cursor far back
  // made the replica's one LISTEN connection read it all again, holding up every live event.
  const current = await lastSeq(em, storeId);
  let last = r.after ?? current;
  const res = reply.raw;
  let closed = false;
  let backlog = true;
  const pending: CommittedEvent[] = [];

  const send = (e: CommittedEvent) => {
    if (closed || e.seq <= last) return;
    last = e.seq;
    if (!only.includes(e.event)) return;
    res.write(formatEvent(e));
    // Live events do not wait: a reader that falls behind them is cut off (it resumes). The
    // backlog instead waits for the reader (below).
    if (!backlog && res.writableLength > MAX_UNSENT_BYTES) res.destroy();
  };
  const unsubscribe = deps.realtime.subscribe(
    storeId,
    (e) => {
      if (!backlog) return send(e);
      pending.push(e);
      if (pending.length > MAX_PENDING) res.destroy();
    },
    current,
  );
  const heartbeat = setInterval(() => res.write(': ping\n\n'), deps.config.sseHeartbeatMs);
  const stop = () => {
    if (closed) return;
    closed = true;
    clearInterval(heartbeat);
    unwatch();
    unsubscribe();
  };
  // A removed member or a revoked token is cut off; reconnecting then gets 401 or 404.
  const unwatch = watchAccess(deps, r.actor, storeId, deps.config.sseHeartbeatMs, () => {
    stop();
    res.end();
  });
  res.on('close', stop);
  // The client may have gone while access was checked: its close event is already past.
  if (req.raw.socket.destroyed) return stop();

  reply.hijack();
  // Headers set through fastify (CORS, X-Request-Id) are not on the raw response yet.
  for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) res.setHeader(name, value);
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    // nginx and similar proxies would otherwise buffer the stream.
    'x-accel-buffering': 'no',
  });
  res.write(`retry: ${RETRY_MS}\n\n`);
  try {
    // Each pass sends what it read; a short page means the backlog is out. The backlog goes at the
    // reader's pace (the next page once the unsent bytes are below the limit): a backlog of any
    // length is never cut off for its size, and the live events held meanwhile are bounded.
    let out = false;
    while (!closed && !out) {
      const rows = await readEventsAfter(em, storeId, last, BACKLOG_BATCH);
      for (const e of rows) send(e);
      out = rows.length < BACKLOG_BATCH;
      await paced(res, deps.config.sseHeartbeatMs);
    }
  } catch (err) {
    req.log.error({ err }, 'event stream backlog failed');
    res.destroy();
    return;
  }
  // Then the events held meanwhile, as paced; new ones are still held until none is left, so a
  // reader that has taken the backlog starts live under the limit and in sequence order.
  while (!closed && pending.length) {
    for (const e of pending.splice(0)) send(e);
    await paced(res, deps.config.sseHeartbeatMs);
  }
  backlog = false;
}

/**
 * Waits, while more than the limit is unsent, for the response to drain or the connection to go.
 * A reader that takes nothing for `stallMs` has stopped rather than fallen behind: it is cut off
 * (it resumes), so a stream nobody reads does not hold its buffers open for ever.
 */
function paced(res: FastifyReply['raw'], stallMs: number): Promise<void> {
  if (res.destroyed || res.writableLength <= MAX_UNSENT_BYTES) return Promise.resolve();
  return new Promise((resolve) => {
    const stalled = setTimeout(() => res.destroy(), stallMs);
    const done = () => {
      clearTimeout(stalled);
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

const problemResponse = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
});

export const eventStreamModule: Module = {
  name: 'event-stream',
  http: {
  register: (app, deps) => {
    app.get(STREAM_PATH, (req, reply) => stream(deps, req, reply));
  },
  paths: {
    '/v1/stores/{storeId}/events/stream': {
      get: {
        operationId: 'streamStoreEvents',
        summary: "A store's events as server-sent events; resumes after Last-Event-ID (or ?after=) with no gap and no duplicate",
        tags: ['events'],
        // What the stream checks before it opens (store.read), shown as the table's routes show their field's policy.
        security: PERMISSIONS['store.read'].scopes.map((scope) => ({ bearer: [scope] })),
        'x-souk-policy': describePolicy(policies.store('store.read')),
        parameters: [
          { name: 'storeId', in: 'path', required: true, schema: { type: 'string' } },
          { name: 'after', in: 'query', required: false, schema: { type: 'string' }, description: 'Send the kept events after this id first.' },
          { name: 'events', in: 'query', required: false, schema: { type: 'string' }, description: 'Comma-separated event names (legacy spellings accepted).' },
          { name: 'Last-Event-ID', in: 'header', required: false, schema: { type: 'string' }, description: 'Wins over ?after= (EventSource sends it on reconnect).' },
        ],
        responses: {
          '200': {
            description: 'text/event-stream: `id:` the event id, `event:` its name, `data:` {id, event, timestamp, storeId, data}; `: ping` comments while idle',
            content: { 'text/event-stream': { schema: { type: 'string' } } },
          },
          '400': problemResponse('Bad query string or cursor'),
          '401': problemResponse('No, unknown, expired or revoked bearer token'),
          '403': problemResponse('The token lacks the store.read scope'),
          '404': problemResponse('No such store, or not a member'),
        },
      },
    },
  },
},
};
