import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Module } from '../core/module.js';
import { createContext, type Actor, type Deps } from '../core/context.js';
import { AppError, problem } from '../core/errors.js';
import { sendProblem } from '../edge/http-problem.js';
import { PERMISSIONS, describePolicy, policies, requireStorePermission } from '../core/policy.js';
import type { CommittedEvent } from './bus.js';
import { eventFilter, eventView, parseCursor } from './events.service.js';
import { stillAllowed } from './access.js';
import { EVENT_STREAM, MAX_UNSENT_BYTES, Sink, startEventStream, type Frame, type GroupSource, type Group } from './fanout.js';
import { lastSeq, readEventsAfter } from './store-events.js';

export const STREAM_PATH = '/v1/stores/:storeId/events/stream';
const QUERY_PARAMS = ['after', 'events'];
const BACKLOG_BATCH = 500;
/** Tells EventSource how long to wait before reconnecting. */
const RETRY_MS = 2_000;
/** What the stream requires, re-checked when the reader's access may have changed. */
const STREAM_POLICY = policies.store('store.read');

/** Every stream of a store gets the same event object: it is serialized once, not once per subscriber. */
const frames = new WeakMap<CommittedEvent, Frame>();
export function eventFrame(e: CommittedEvent): Frame {
  let frame = frames.get(e);
  if (frame === undefined) {
    frame = { seq: e.seq, bytes: Buffer.from(`id: ${e.seq}\nevent: ${e.event}\ndata: ${JSON.stringify(eventView(e))}\n\n`) };
    frames.set(e, frame);
  }
  return frame;
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

/** The streams of one store and filter share one hub listener and one frame per event. */
function storeGroup(deps: Deps, storeId: string, only: string[]): Group {
  return deps.realtime.streams.group(`events:${storeId}:${[...only].sort().join(',')}`, (group): GroupSource => {
    const unsubscribe = deps.realtime.subscribe(storeId, (e) => {
      if (only.includes(e.event)) group.publish(eventFrame(e));
    });
    return {
      allows: (authorization) => stillAllowed(deps, authorization, STREAM_POLICY, { storeId }, 'GET /v1/stores/{storeId}/events/stream'),
      stop: unsubscribe,
    };
  });
}

const gone = (res: FastifyReply['raw']) => res.destroyed || res.writableEnded;

/**
 * GET /v1/stores/{storeId}/events/stream: live events as server-sent events. With a cursor
 * (Last-Event-ID or ?after=) the missed events come first. The reader joins its group (and holds
 * what it sends) before learning the store's position, reads the backlog from its cursor, then
 * sends the held events skipping any already sent: no gap, no duplicate. Without a cursor it
 * starts at that position, and the one query it costs is that position's.
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
  const res = reply.raw;
  reply.hijack();
  // Headers set through fastify (CORS, X-Request-Id) are not on the raw response yet.
  for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) res.setHeader(name, value);
  startEventStream(res, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    // nginx and similar proxies would otherwise buffer the stream.
    'x-accel-buffering': 'no',
  });
  res.write(`retry: ${RETRY_MS}\n\n`);

  const sink = new Sink(res, EVENT_STREAM, req.headers.authorization, r.actor.userId, r.actor.expiresAt ?? null);
  sink.held = [];
  try {
    if (!(await storeGroup(deps, storeId, only).join(sink))) throw new Error('the store stream did not start');
    // Registered: every event committed from here on reaches the sink. Whatever the store's
    // position says is committed is before the present.
    const current = await lastSeq(em, storeId);
    deps.realtime.known(storeId, current);
    let cursor = r.after ?? current;
    // The backlog goes at the reader's pace (the next page once the unsent bytes are below the
    // limit): a backlog of any length is never cut off for its size, and the live events held
    // meanwhile are bounded.
    while (cursor < current && !gone(res)) {
      const rows = await readEventsAfter(em, storeId, cursor, BACKLOG_BATCH);
      for (const e of rows) {
        cursor = e.seq;
        if (only.includes(e.event)) sink.write(eventFrame(e).bytes);
      }
      if (rows.length < BACKLOG_BATCH) break;
      await paced(res, deps.config.sseHeartbeatMs);
    }
    sink.last = cursor;
  } catch (err) {
    req.log.error({ err }, 'event stream backlog failed');
    res.destroy();
    return;
  }
  // Then the events held meanwhile, as paced; new ones are still held until none is left, so a
  // reader that has taken the backlog goes live under the limit and in sequence order.
  while (sink.held.length && !gone(res)) {
    const held = sink.held.splice(0);
    for (const f of held) {
      if (f.seq <= sink.last) continue;
      sink.last = f.seq;
      sink.write(f.bytes);
    }
    await paced(res, deps.config.sseHeartbeatMs);
  }
  sink.held = null;
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
        security: PERMISSIONS['store.read'].scopes.map((scope) => ({ bearer: [scope] })),
        'x-souk-policy': describePolicy(policies.store('store.read')),
        summary: "A store's events as server-sent events; resumes after Last-Event-ID (or ?after=) with no gap and no duplicate",
        tags: ['events'],
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
