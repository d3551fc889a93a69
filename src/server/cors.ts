import cors from '@fastify/cors';
import type { FastifyInstance, FastifyReply } from 'fastify';

/** Headers a browser client may read from our answers. */
const EXPOSED = ['x-request-id', 'etag', 'location', 'retry-after', 'idempotent-replayed', 'content-disposition', 'www-authenticate'];

/**
 * CORS for browser clients (dashboards, storefronts): the listed origins with credentials, or any
 * origin (`*`) without them. Preflights answer for every route, the event streams included.
 */
export async function allowOrigins(app: FastifyInstance, origins: string[], answeredElsewhere: readonly string[] = []): Promise<void> {
  if (!origins.length) return;
  const any = origins.includes('*');
  const options = {
    origin: any ? '*' : origins,
    credentials: !any,
    methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    allowedHeaders: ['authorization', 'content-type', 'idempotency-key', 'last-event-id', 'x-request-id', 'apollo-require-preflight', 'if-none-match'],
    exposedHeaders: EXPOSED,
    maxAge: 600,
  };
  // Paths whose module answers CORS itself (the storefront's, per store) are left to it.
  const own = { origin: false };
  await app.register(cors, {
    delegator: (req, callback) => callback(null, answeredElsewhere.some((prefix) => req.url.startsWith(prefix)) ? own : options),
  });
}

/** Streaming handlers write the raw response themselves: give it the headers fastify holds. */
export function carryHeaders(reply: FastifyReply): void {
  for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) reply.raw.setHeader(name, value);
}
