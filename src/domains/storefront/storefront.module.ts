import type { FastifyReply, FastifyRequest } from 'fastify';
import { systemContext, type Deps } from '../../core/context.js';
import { AppError, problem } from '../../core/errors.js';
import type { Module } from '../../core/module.js';
import { BUYER_IP_HEADER, findOpenStore, SHOPPER_EXPOSED_HEADERS, STORE_DECIDED_CORS, STOREFRONT_KEY_HEADER } from './storefront.access.js';
import { noteStatusChange } from './storefront.orders.js';

/**
 * The storefront's part in the service: the customer's status history (an order hook), and CORS
 * on the shoppers' routes, decided per store (CONTRACT-3 §17.2) rather than by SOUK_CORS_ORIGINS.
 */

/** Shoppers' routes: the storefront's, and the public geo data its forms use. */
export const SHOPPER_PREFIXES = ['/v1/storefront/', '/v1/geo/'];
const isShopperPath = (url: string) => SHOPPER_PREFIXES.some((p) => url.startsWith(p)) || url === '/v1/storefront';

const ALLOWED_HEADERS = ['content-type', 'authorization', 'idempotency-key', 'if-none-match', 'x-request-id', STOREFRONT_KEY_HEADER, BUYER_IP_HEADER].join(', ');

/**
 * A preflight: the store's allowed origins (a closed or unknown store is the usual 404). The
 * customer's order routes name no store (the token, which a preflight never carries, does): their
 * preflight lets any origin ask, and the answer itself carries the store's decision.
 */
async function preflight(deps: Deps, req: FastifyRequest, reply: FastifyReply) {
  const origin = req.headers.origin;
  const ref = decodeURIComponent(req.url.split('?')[0].split('/')[3] ?? '');
  reply.header('access-control-allow-methods', 'GET, POST, OPTIONS');
  reply.header('access-control-allow-headers', ALLOWED_HEADERS);
  reply.header('access-control-max-age', '600');
  // Geo lists are the same for every origin, as their answers say (`*`).
  if (req.url.startsWith('/v1/geo/')) {
    reply.header('access-control-allow-origin', '*');
    return reply.code(204).send();
  }
  if (ref === 'orders') {
    reply.header('access-control-allow-origin', origin ?? '*');
    if (origin) reply.header('vary', 'Origin');
    return reply.code(204).send();
  }
  let allowed: string[];
  try {
    allowed = (await findOpenStore(systemContext(deps), ref)).settings.allowedOrigins;
  } catch (err) {
    if (err instanceof AppError) return reply.code(err.status).type('application/problem+json').send(problem(err.code, err.message));
    throw err;
  }
  if (!allowed.length) reply.header('access-control-allow-origin', '*');
  else {
    reply.header('vary', 'Origin');
    if (origin && allowed.includes(origin.toLowerCase())) reply.header('access-control-allow-origin', origin);
  }
  return reply.code(204).send();
}

export const storefrontModule: Module = {
  name: 'storefront',
  onOrderWritten: noteStatusChange,
  // Storefront orders are never written by the one-statement create, and their later writes run every hook.
  followsOrders: () => false,
  http: {
    corsPrefixes: SHOPPER_PREFIXES,
    register: (app, deps) => {
      app.options('/v1/storefront/*', (req, reply) => preflight(deps, req, reply));
      app.options('/v1/geo/*', (req, reply) => preflight(deps, req, reply));
      // Where no store decided (its 404, a geo read), any origin may read the answer; never with credentials.
      app.addHook('onSend', async (req, reply, payload) => {
        if (!isShopperPath(req.url) || req.method === 'OPTIONS') return payload;
        const decided = reply.hasHeader(STORE_DECIDED_CORS);
        reply.removeHeader(STORE_DECIDED_CORS);
        if (!decided && !reply.hasHeader('access-control-allow-origin')) reply.header('access-control-allow-origin', '*');
        reply.removeHeader('access-control-allow-credentials');
        reply.header('access-control-expose-headers', SHOPPER_EXPOSED_HEADERS);
        return payload;
      });
    },
  },
};
