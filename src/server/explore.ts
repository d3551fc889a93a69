import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PROJECT_ROOT } from '../lib/paths.js';
import type { Module } from '../core/module.js';

/**
 * The pages a newcomer explores with, all served from this process and npm packages (no CDN):
 * `GET /` (an index: HTML for browsers, JSON otherwise), GraphiQL at `GET /graphql` for browsers,
 * the REST references (Swagger UI) at `GET /v1/docs` and `GET /feeef/v1/docs`, and the pages the account mails link to
 * (`/verify-email`, `/reset-password`), which complete the action through the public API.
 */
const WEB = join(PROJECT_ROOT, 'web');
const fromPackage = (pkg: string, file: string) => join(dirname(createRequire(join(PROJECT_ROOT, 'package.json')).resolve(`${pkg}/package.json`)), file);

const TYPES: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };

/** `/assets/<name>`: our own files and the packages' browser builds. */
const ASSETS: Record<string, () => string> = {
  'web.css': () => join(WEB, 'web.css'),
  'graphiql-init.js': () => join(WEB, 'graphiql-init.js'),
  'reference-init.js': () => join(WEB, 'reference-init.js'),
  'account.js': () => join(WEB, 'account.js'),
  'react.production.min.js': () => fromPackage('react', 'umd/react.production.min.js'),
  'react-dom.production.min.js': () => fromPackage('react-dom', 'umd/react-dom.production.min.js'),
  'graphiql.min.js': () => fromPackage('graphiql', 'graphiql.min.js'),
  'graphiql.min.css': () => fromPackage('graphiql', 'graphiql.min.css'),
  'graphql-sse.min.js': () => fromPackage('graphql-sse', 'umd/graphql-sse.min.js'),
  'swagger-ui-bundle.js': () => fromPackage('swagger-ui-dist', 'swagger-ui-bundle.js'),
  'swagger-ui.css': () => fromPackage('swagger-ui-dist', 'swagger-ui.css'),
};

/** Pages run only their own scripts and talk only to this origin; the explorers' styles are partly inline. */
const CSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; font-src 'self' data:; worker-src 'self' blob:; frame-ancestors 'none'";

/** Read on first use (start-up stays quick), then kept: the files never change while the process runs. */
const cache = new Map<string, Promise<Buffer>>();
const load = (file: string) => {
  let p = cache.get(file);
  if (!p) {
    p = readFile(file);
    p.catch(() => cache.delete(file));
    cache.set(file, p);
  }
  return p;
};

async function send(reply: FastifyReply, file: string, maxAge = 0, bytes?: Buffer): Promise<FastifyReply> {
  const type = TYPES[file.slice(file.lastIndexOf('.'))] ?? 'application/octet-stream';
  return reply
    .headers({
      'content-type': type,
      'cache-control': maxAge ? `public, max-age=${maxAge}` : 'no-cache',
      'content-security-policy': CSP,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
    })
    .send(bytes ?? (await load(file)));
}

/** A browser asking for a page: HTML is preferred over JSON in its Accept header. */
export function wantsHtml(req: FastifyRequest): boolean {
  const accept = req.headers.accept ?? '';
  const html = accept.indexOf('text/html');
  const json = accept.indexOf('application/json');
  return html !== -1 && (json === -1 || html < json);
}

/** Where things are, for `GET /` and the start-up log line. */
export function entryPoints(base: string) {
  const b = base.replace(/\/+$/, '');
  return {
    graphql: `${b}/graphql`,
    graphqlStream: `${b}/graphql/stream`,
    rest: `${b}/v1`,
    openapi: `${b}/v1/openapi.json`,
    reference: `${b}/v1/docs`,
    feeef: `${b}/feeef/v1`,
    feeefOpenapi: `${b}/feeef/v1/openapi.json`,
    feeefReference: `${b}/feeef/v1/docs`,
    dashboard: `${b}/dashboard`,
    health: `${b}/healthz`,
  };
}

/** The REST APIs' own roots: what each is, and where its document and reference are. */
const API_ROOTS: Record<string, { name: string; openapi: string; reference: string }> = {
  '/v1': { name: 'Souk REST API', openapi: '/v1/openapi.json', reference: '/v1/docs' },
  '/feeef/v1': { name: "Souk REST API, Feeef-compatible face (point feeef.js's baseURL here)", openapi: '/feeef/v1/openapi.json', reference: '/feeef/v1/docs' },
};

/**
 * The origin the caller reached: links then work wherever the server is (a port, a proxy with
 * SOUK_TRUST_PROXY, another host name); a Host header that is not a host falls back to the
 * configured public URL.
 */
export function requestOrigin(req: FastifyRequest, fallback: string): string {
  const host = req.host;
  return typeof host === 'string' && /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/.test(host) ? `${req.protocol}://${host}` : fallback.replace(/\/+$/, '');
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * A browser opening /graphql without a query gets GraphiQL. Added before Apollo's plugin is
 * registered, so the hook runs ahead of its handler.
 */
export function serveGraphiql(app: FastifyInstance): void {
  app.addHook('onRequest', async (req, reply) => {
    if (req.method !== 'GET' || req.url !== '/graphql' || !wantsHtml(req)) return;
    return send(reply, join(WEB, 'graphiql.html'));
  });
}

export const exploreModule: Module = {
  name: 'explore',
  http: {
    register: (app, deps) => {
      app.get('/', async (req, reply) => {
        const origin = requestOrigin(req, deps.config.publicUrl);
        if (wantsHtml(req)) {
          const page = (await load(join(WEB, 'index.html'))).toString('utf8').replaceAll('{{origin}}', escapeHtml(origin));
          return send(reply, join(WEB, 'index.html'), 0, Buffer.from(page));
        }
        return { name: 'souk', ...entryPoints(origin) };
      });
      for (const [root, api] of Object.entries(API_ROOTS)) {
        app.get(root, async (req) => {
          const origin = requestOrigin(req, deps.config.publicUrl);
          return { name: api.name, openapi: `${origin}${api.openapi}`, reference: `${origin}${api.reference}` };
        });
      }
      app.get('/v1/docs', async (_req, reply) => send(reply, join(WEB, 'reference.html')));
      app.get('/feeef/v1/docs', async (_req, reply) => send(reply, join(WEB, 'feeef-reference.html')));
      app.get('/verify-email', async (_req, reply) => send(reply, join(WEB, 'account.html')));
      app.get('/reset-password', async (_req, reply) => send(reply, join(WEB, 'account.html')));
      app.get('/assets/:name', async (req, reply) => {
        const file = ASSETS[(req.params as { name: string }).name];
        if (!file) return reply.callNotFound();
        return send(reply, file(), 3600);
      });
    },
  },
};
