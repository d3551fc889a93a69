import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Actor, Ctx, Deps } from '../core/context.js';

/** What a request learned about itself on the way, for its one log line. */
export interface RequestNote {
  userId?: string;
  storeId?: string;
  errorCodes: string[];
  /** The GraphQL operation's name, where the request ran a named one. */
  operation?: string;
  /** A bearer token was presented and refused (unknown, expired, revoked). */
  tokenRefused?: boolean;
  /** `Set-Cookie` values a service asked the answer to carry. */
  cookies?: string[];
  /** Headers a service set on the answer. */
  headers?: Record<string, string>;
}

declare module '../core/context.js' {
  interface Ctx {
    /** The HTTP request's log note, where the context serves one. */
    request?: RequestNote;
  }
}

const notes = new WeakMap<IncomingMessage, RequestNote>();

export function noteOf(req: FastifyRequest | IncomingMessage): RequestNote {
  const raw = 'raw' in req ? req.raw : req;
  let n = notes.get(raw);
  if (!n) {
    n = { errorCodes: [] };
    notes.set(raw, n);
  }
  return n;
}

/** Ties a context to its request: the caller and the store land in the request's log line. */
export function noteContext(req: FastifyRequest | IncomingMessage, ctx: Ctx, actor: Actor | null = ctx.actor): Ctx {
  const n = noteOf(req);
  if (actor) n.userId = actor.userId;
  if (ctx.authFailure) n.tokenRefused = true;
  ctx.request = n;
  ctx.setCookie = (cookie) => (n.cookies ??= []).push(cookie);
  const headers = ('raw' in req ? req.raw : req).headers;
  ctx.header = (name) => {
    const v = headers[name];
    return Array.isArray(v) ? v[0] : v;
  };
  ctx.setHeader = (name, value) => ((n.headers ??= {})[name.toLowerCase()] = value);
  return ctx;
}

/** Sends the cookies the request's services set (GraphQL and REST alike), on success only, and the headers they set. */
export function sendNotedCookies(app: FastifyInstance): void {
  app.addHook('onSend', async (req, reply, payload) => {
    const note = notes.get(req.raw);
    if (note?.cookies?.length && reply.statusCode < 400) reply.header('set-cookie', note.cookies);
    if (note?.headers) reply.headers(note.headers);
    return payload;
  });
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** A caller's X-Request-Id is kept when it is a plain token; otherwise a fresh UUID. */
export function requestId(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

/**
 * One line per request, on completion: method, route pattern (never the query string, which may
 * hold a token), status, duration, request id, and the user, store and error codes where known.
 */
export function logRequests(app: FastifyInstance, deps: Deps): void {
  app.addHook('onRequest', async (req, reply) => {
    reply.header('x-request-id', req.id);
  });
  app.addHook('onResponse', async (req, reply) => {
    const n = notes.get(req.raw);
    const params = (req.params ?? {}) as Record<string, unknown>;
    const query = (req.query ?? {}) as Record<string, unknown>;
    const storeId = n?.storeId ?? (typeof params.storeId === 'string' ? params.storeId : typeof query.storeId === 'string' ? query.storeId : undefined);
    // reqId comes from the request logger's own bindings: once per line.
    const line = {
      method: req.method,
      route: req.routeOptions?.url ?? 'unmatched',
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 10) / 10,
      ...(n?.userId ? { userId: n.userId } : {}),
      ...(storeId ? { storeId } : {}),
      ...(n?.operation ? { operation: n.operation } : {}),
      ...(n?.errorCodes.length ? { errorCodes: [...new Set(n.errorCodes)] } : {}),
    };
    deps.metrics?.request(req.method, line.route, reply.statusCode, reply.elapsedTime / 1000);
    if (reply.statusCode >= 500) req.log.error(line, 'request failed');
    else req.log.info(line, 'request');
  });
}
