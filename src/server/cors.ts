import cors from '@fastify/cors';
import type { FastifyInstance, FastifyReply } from 'fastify';

/** Headers a browser client may read from our answers. */
const EXPOSED = ['x-request-id', 'etag', 'location', 'retry-after', 'idempotent-replayed', 'content-disposition', 'www-authenticate'];

/**
 * CORS for browser clients (dashboards, storefronts): the listed origins with credentials, or any
 * origin (`*`) without them. Preflights answer for every route, the event streams included. With no
 * origin listed the plugin still runs, answering nothing, so a route can open itself to every
 * origin by its own `cors` config (the REST table's public routes: the router sets it).
 */
export async function allowOrigins(app: FastifyInstance, origins: string[]): Promise<void> {
  const any = origins.includes('*');
  await app.register(cors, {
    origin: !origins.length ? false : any ? '*' : origins,
    credentials: origins.length > 0 && !any,
    methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    allowedHeaders: ['authorization', 'content-type', 'idempotency-key', 'last-event-id', 'x-request-id', 'apollo-require-preflight', 'if-none-match'],
    exposedHeaders: EXPOSED,
    maxAge: 600,
  });
}

/** Streaming handlers write the raw response themselves: give it the headers fastify holds. */
export function carryHeaders(reply: FastifyReply): void {
  for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) reply.raw.setHeader(name, value);
}
