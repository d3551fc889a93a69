import type { FastifyInstance } from 'fastify';
import type { GraphQLSchema } from 'graphql';
import type { Deps } from '../../src/core/context.js';
import { problem } from '../../src/core/errors.js';
import { requireActor } from '../../src/core/context.js';
import { enforcePolicy, policyOf, type Policy } from '../../src/core/policy.js';
import { sendProblem } from '../../src/edge/http-problem.js';
import { buildOpenApi, type OpenApiInfo } from '../openapi.js';
import { compileRoutes, fastifyPathOf, idempotencyScope, registerRoutes, underIdempotencyKey, type CompiledRoute } from '../router.js';
import type { HttpMethod, RestReply, RestRequest, RestRoute, RouteTools } from '../route.js';
import { FEEEF_ROUTES } from './index.js';
import { normalizeAuthorization, notImplemented, PREFIX, toRestRoute, type FeeefRoute } from './route.js';
import { UNSUPPORTED } from './unsupported.js';

/**
 * The Feeef-compatible face at /feeef/v1: a second REST table over the same schema, so code
 * written against Feeef's SDK works by changing its `baseURL` (docs/feeef.md).
 */

type Json = Record<string, any>;

const BODY_LIMIT = 1024 * 1024;
const METHODS: HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

function compileFeeef(schema: GraphQLSchema): CompiledRoute[] {
  const compiled = compileRoutes(
    schema,
    FEEEF_ROUTES.map(({ tag, route }) => toRestRoute(route, tag)),
  );
  for (const c of compiled) {
    if (c.route.handle && c.root && c.route.method === 'POST' && mutates(c)) {
      const run = c.route.handle;
      c.route.handle = (req, tools) => idempotent(c, run, req, tools);
    }
    const handle = c.route.handle;
    // Routes on a resource id only: OAuth's forms carry their credentials in the body.
    if (!handle || !c.root || !c.pathParams.length || !needsCaller(policyOf(c.root.def))) continue;
    // Who is asking comes first, as on /v1: an anonymous call is a 401 before its id is looked up or its body read.
    c.route.handle = (req, tools) => {
      requireActor(tools.ctx);
      return handle(req, tools);
    };
  }
  return compiled;
}

/** A POST whose document writes: creates and triggers, where /v1 honours Idempotency-Key too. */
const mutates = (c: CompiledRoute) => c.document?.definitions.some((d) => d.kind === 'OperationDefinition' && d.operation === 'mutation') === true;

/** The store a face request names (query, body, or a store's own path), which scopes its Idempotency-Key as /v1 scopes it. */
function storeNamed(req: RestRequest): string | undefined {
  const body = req.body && typeof req.body === 'object' && !Buffer.isBuffer(req.body) ? (req.body as Json) : {};
  const candidates = [req.query.store_id, req.query.storeId, req.query.projectId, body.storeId, body.store_id, body.projectId];
  const named = candidates.find((v): v is string => typeof v === 'string' && v !== '');
  return named ?? (/^st_/.test(req.params.id ?? '') ? req.params.id : undefined);
}

/**
 * A face route under the request's Idempotency-Key, as the shared router runs /v1's routes: the
 * first request runs and its success is kept; a repeat with the same body gets it again
 * (`Idempotent-Replayed: true`) once the caller still passes the route's policy; another body, or
 * a request while the first still runs, is a 409. Anonymous calls keep no key here (the guest
 * checkout keys its own, by store and buyer).
 */
async function idempotent(c: CompiledRoute, handle: NonNullable<RestRoute['handle']>, req: RestRequest, tools: RouteTools): Promise<RestReply> {
  const header = req.headers['idempotency-key'];
  if (typeof header !== 'string') return handle(req, tools);
  const ctx = tools.ctx;
  const storeId = storeNamed(req);
  const scope = idempotencyScope(ctx, c, storeId ? { storeId } : {});
  if (!scope) return handle(req, tools);
  return underIdempotencyKey(ctx, c, req, header, scope, {
    // A caller who has since lost the store gets what a stranger gets, not the kept answer.
    replay: async () => {
      const policy = policyOf(c.root!.def);
      if (policy?.kind === 'store' && storeId) await enforcePolicy(ctx, policy, { [policy.arg ?? 'storeId']: storeId }, c.rootField);
      else requireActor(ctx);
      return null;
    },
    run: () => handle(req, tools),
    succeeded: (answer) => answer.status < 300,
  });
}

/** The text as a JSON object, or undefined when it is not one. */
function jsonObject(text: string): Json | undefined {
  const t = text.trim();
  if (!t.startsWith('{')) return undefined;
  try {
    const v: unknown = JSON.parse(t);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;
  } catch {
    return undefined;
  }
}

/** Policies no anonymous caller passes. */
const needsCaller = (p: Policy | undefined) => p !== undefined && (p.kind === 'user' || p.kind === 'platform' || (p.kind === 'store' && !p.optional));

const pathParams = (path: string) => [...path.matchAll(/\{(\w+)\}/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));

const problemResponse = (description: string) => ({ description, content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } });

const FEEEF_INFO: OpenApiInfo = {
  title: 'Souk: Feeef-compatible REST face',
  description:
    "Souk's API in the wire shapes of Feeef's SDK (feeef.js): point the SDK's baseURL at <souk>/feeef/v1. Same schema, services and authorization as /v1; Feeef products Souk does not have answer 501 NOT_IMPLEMENTED (docs/feeef.md).",
  tags: {
    users: 'Accounts, sign-in and tokens in Feeef\'s auth shapes; `users/auth/code` is the session transfer.',
    apps: 'OAuth apps, their tokens and app data, with form-encoded OAuth endpoints.',
    stores: 'Stores and their members, with Feeef roles.',
    catalog: 'Products, product landing pages and analytics, as flat resources.',
    orders: 'Orders with Feeef status and customStatus, and their batch envelope.',
    templates: 'Store templates, components and image prompt templates.',
    shipping: 'Shipping methods and prices, promos and carrier routes per provider.',
    inventory: 'Stock levels and purchase orders (Feeef projectId = the store).',
    finance: 'Suppliers and purchase receipts; a receipt is posted through its purchase order’s receiving (Feeef projectId = the store).',
    geo: 'States, cities and currencies: read-only and anonymous.',
  },
};

/** The face's OpenAPI: the shared builder's document, re-rooted at the prefix, with Feeef's parameters and bodies. */
function feeefOpenApi(schema: GraphQLSchema, compiled: CompiledRoute[], publicUrl: string): Json {
  const doc = buildOpenApi(schema, compiled, publicUrl, FEEEF_INFO) as Json;
  const byKey = new Map<string, FeeefRoute>(FEEEF_ROUTES.map(({ route }) => [`${route.method} ${PREFIX}${route.path}`, route]));
  const byCompiled = new Map(compiled.map((c) => [`${c.route.method} ${c.route.path}`, mutates(c)]));
  const paths: Json = {};
  for (const [path, item] of Object.entries(doc.paths as Json)) {
    for (const [method, op] of Object.entries(item as Json)) {
      const r = byKey.get(`${method.toUpperCase()} ${path}`);
      if (!r) continue;
      const query = Object.entries(r.query ?? {}).map(([name, p]) => ({
        name: p.type === 'list' ? `${name}[]` : name,
        in: 'query',
        required: false,
        schema: p.type === 'list' ? { type: 'array', items: { type: 'string' } } : { type: p.type },
        ...(p.type === 'list' ? { style: 'form', explode: true } : {}),
        ...(p.description ? { description: p.description } : {}),
      }));
      const keyed = r.method === 'POST' && byCompiled.get(`${r.method} ${path}`);
      const parameters = [...pathParams(r.path), ...query, ...(keyed ? [{ $ref: '#/components/parameters/Idempotency-Key' }] : [])];
      if (parameters.length) op.parameters = parameters;
      else delete op.parameters;
      if (r.body) {
        op.requestBody = { required: false, content: { 'application/json': { schema: r.body }, 'application/x-www-form-urlencoded': { schema: r.body } } };
      } else delete op.requestBody;
      if (r.status !== 204 && !r.response) op.responses[String(r.status ?? 200)].content['application/json'].schema = { type: 'object' };
      (paths[r.path] ??= {})[method] = op;
    }
  }
  for (const u of UNSUPPORTED) {
    for (const path of u.paths) {
      const item = (paths[path] ??= {});
      for (const method of METHODS) {
        const m = method.toLowerCase();
        if (item[m]) continue;
        item[m] = {
          operationId: `unsupported ${method} ${path}`.replace(/[^A-Za-z0-9]+(.)?/g, (_s, c: string | undefined) => (c ? c.toUpperCase() : '')),
          summary: `Not a Souk feature (${u.group}): ${u.why}`,
          tags: [u.group],
          ...(pathParams(path).length ? { parameters: pathParams(path) } : {}),
          responses: { '501': problemResponse(`NOT_IMPLEMENTED: ${u.group}`) },
          security: [],
        };
      }
    }
  }
  return {
    ...doc,
    info: {
      ...doc.info,
      title: 'Souk REST API, Feeef-compatible face',
      description:
        "Feeef's wire shapes (the feeef.js SDK) over the Souk GraphQL schema: point the SDK's baseURL here. Every route runs GraphQL operations against the same schema and policies as /v1; see docs/feeef.md.",
    },
    servers: [{ url: `${publicUrl}${PREFIX}`, description: 'The Feeef-compatible face of this service' }],
    tags: [...new Set(Object.values(paths).flatMap((item: Json) => Object.values(item).flatMap((op: Json) => op.tags ?? [])))].map((name) => ({ name, description: `${name} routes` })),
    paths,
  };
}

/**
 * Mounts the face: its routes through the shared router (an empty `Bearer ` is no token here),
 * a form parser (Feeef's SDK posts body-less requests as empty forms, and OAuth as forms), the
 * 501 groups, and its OpenAPI document.
 */
export function registerFeeef(app: FastifyInstance, deps: Deps, schema: GraphQLSchema): void {
  const compiled = compileFeeef(schema);
  // Built on first request, not on the way to ready.
  let openapi: ReturnType<typeof feeefOpenApi> | undefined;
  const taken = new Set(compiled.map((c) => `${c.route.method} ${c.fastifyPath}`));
  void app.register(async (scoped) => {
    scoped.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: BODY_LIMIT }, (_req, body, done) => {
      const text = String(body);
      if (text.trim() === '') return done(null, undefined);
      // `curl -d '{…}'` labels JSON as a form: a body that is a JSON object is read as one.
      done(null, jsonObject(text) ?? Object.fromEntries(new URLSearchParams(text)));
    });
    // Other media types reach the route as bytes; routes that read a body refuse them (400), 501 groups ignore them.
    // A JSON object sent without a type, or as text/plain (a browser's simple request), is read as JSON.
    scoped.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, (req, body, done) => {
      const bytes = body as Buffer;
      if (!bytes.length) return done(null, undefined);
      const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
      done(null, (type === '' || type === 'text/plain' ? jsonObject(bytes.toString('utf8')) : undefined) ?? bytes);
    });
    scoped.get(`${PREFIX}/openapi.json`, async () => (openapi ??= feeefOpenApi(schema, compiled, deps.config.publicUrl)));
    registerRoutes(scoped, deps, schema, compiled, { authorization: normalizeAuthorization });
    for (const u of UNSUPPORTED) {
      for (const p of [...u.paths, ...(u.prefixes ?? []).map((p) => `${p}/*`)]) {
        const url = fastifyPathOf(PREFIX + p);
        const methods = METHODS.filter((m) => !taken.has(`${m} ${url}`));
        const detail = notImplemented(u.group, `${u.group} is a Feeef feature Souk does not have: ${u.why}`).message;
        scoped.route({ method: methods, url, handler: async (_req, reply) => sendProblem(reply, problem('NOT_IMPLEMENTED', detail)) });
      }
    }
  });
}
