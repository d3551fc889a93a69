import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  GraphQLError,
  getArgumentValues,
  getVariableValues,
  parse,
  validate,
  typeFromAST,
  getNamedType,
  isInputObjectType,
  isListType,
  isNonNullType,
  type DocumentNode,
  type FieldNode,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { createHash } from 'node:crypto';
import type { RestReply, RestRequest, RestRoute, RouteTools } from './route.js';
import { ROUTES } from './routes/index.js';
import { plainDatesAsMidnight } from './plain-dates.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import { createContext, type Ctx, type Deps } from '../src/core/context.js';
import { checkIdempotencyKey, keepIdempotentAnswer, releaseIdempotencyKey, requestHash, reserveIdempotencyKey } from '../src/core/idempotency.js';
import { mapGraphQLError, relativeTo } from '../src/edge/graphql-errors.js';
import { AppError, problem, type FieldError, type Problem } from '../src/core/errors.js';
import { sendProblem } from '../src/edge/http-problem.js';
import { noteContext } from '../src/edge/request-log.js';
import { OperationCache } from '../src/edge/executor.js';
import { enforcePolicy, policyOf } from '../src/core/policy.js';

export interface CompiledRoute {
  route: RestRoute;
  /** Null for ingress routes, which run no GraphQL. */
  document: DocumentNode | null;
  rootField: string;
  bodyVar: string | null;
  pathParams: string[];
  /** Variables read from the query string, with their GraphQL input types. */
  queryVars: Map<string, GraphQLInputType>;
  /** Every variable the operation declares, with its type. */
  declared: Map<string, GraphQLInputType>;
  fastifyPath: string;
  /** POST mutations that create or trigger: the router honours Idempotency-Key on them. */
  idempotent: boolean;
  /** The created resource's URL, for the Location header of a 201. */
  location: ((body: any, req: RestRequest) => string) | null;
  /** A `handle` route's further documents, by their text. */
  operations: Map<string, CompiledDocument>;
  /** The root field of the route's document; null for ingress routes. */
  root: RootField | null;
}

interface CompiledDocument {
  document: DocumentNode;
  rootField: string;
  declared: Map<string, GraphQLInputType>;
  /** query, mutation or subscription. */
  kind: OperationDefinitionNode['operation'];
  root: RootField;
}

/** What the router reads of a document's root field without running it (an idempotent replay). */
export interface RootField {
  /** Its definition, with its policy. */
  def: GraphQLField<unknown, unknown>;
  /** Its arguments for a request's variables, coerced as execution coerces them; null when they do not coerce (running the document refuses them). */
  args(variables: Record<string, unknown>): Record<string, unknown> | null;
}

const paramNames = (path: string) => [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);

/** fastify's router reads `:` as a parameter; a custom verb's colon is escaped as `::`. */
export const fastifyPathOf = (path: string) => path.replace(/:(?=[A-Za-z])/g, '::').replace(/\{(\w+)\}/g, ':$1');

function compileDocument(schema: GraphQLSchema, key: string, operation: string): CompiledDocument {
  const document = parse(operation);
  const problems = validate(schema, document);
  if (problems.length) throw new Error(`REST route ${key}: ${problems.map((p) => p.message).join('; ')}`);
  const op = document.definitions.find((d): d is OperationDefinitionNode => d.kind === 'OperationDefinition');
  if (!op) throw new Error(`REST route ${key}: no operation`);
  const fields = op.selectionSet.selections.filter((s) => s.kind === 'Field');
  if (fields.length !== 1 || fields[0].kind !== 'Field') throw new Error(`REST route ${key}: exactly one root field expected`);
  const node = fields[0] as FieldNode;
  const rootField = node.alias?.value ?? node.name.value;
  const declared = new Map((op.variableDefinitions ?? []).map((v) => [v.variable.name.value, typeFromAST(schema, v.type as never) as GraphQLInputType]));
  const def = schema.getRootType(op.operation)!.getFields()[node.name.value];
  const args = (variables: Record<string, unknown>) => {
    const coerced = getVariableValues(schema, op.variableDefinitions ?? [], variables);
    if (coerced.errors) return null;
    try {
      return getArgumentValues(def, node, coerced.coerced);
    } catch {
      return null;
    }
  };
  return { document, rootField, declared, kind: op.operation, root: { def, args } };
}

/** Parse and validate every document once, at start: a broken table never serves. */
export function compileRoutes(schema: GraphQLSchema, routes: RestRoute[] = ROUTES): CompiledRoute[] {
  const seen = new Set<string>();
  const compiled = routes.map((route): CompiledRoute => {
    const key = `${route.method} ${route.path}`;
    if (seen.has(key)) throw new Error(`REST route declared twice: ${key}`);
    seen.add(key);
    const pathParams = paramNames(route.path);
    if (route.ingress) {
      return { route, document: null, rootField: '', bodyVar: null, pathParams, queryVars: new Map(), declared: new Map(), fastifyPath: fastifyPathOf(route.path), idempotent: false, location: null, operations: new Map(), root: null };
    }
    if (!route.operation) throw new Error(`REST route ${key}: an operation or an ingress handler is required`);
    const { document, rootField, declared, kind, root } = compileDocument(schema, key, route.operation);
    const bodyVar = route.body ?? (declared.has('input') && route.method !== 'GET' && route.method !== 'DELETE' ? 'input' : null);
    if (bodyVar && !declared.has(bodyVar)) throw new Error(`REST route ${key}: body variable $${bodyVar} is not declared`);
    // A handle route maps its path parameters itself.
    if (!route.handle) for (const p of pathParams) if (!declared.has(p)) throw new Error(`REST route ${key}: path parameter {${p}} has no variable`);
    const queryVars = new Map([...declared].filter(([name]) => name !== bodyVar && !pathParams.includes(name)));
    const operations = new Map((route.operations ?? []).map((text) => [text, compileDocument(schema, key, text)]));
    return {
      route,
      document,
      rootField,
      bodyVar,
      pathParams,
      queryVars,
      declared,
      fastifyPath: fastifyPathOf(route.path),
      // Payment routes keep their keys with the order ($idempotencyKey); public calls have no caller to key by.
      idempotent: route.method === 'POST' && kind === 'mutation' && !declared.has('idempotencyKey') && route.idempotent !== false,
      location: null,
      operations,
      root,
    };
  });
  for (const c of compiled) c.location = locationOf(c, compiled);
  return compiled;
}

const fill = (template: string, values: Record<string, unknown>) => template.replace(/\{(\w+)\}/g, (_, name) => encodeURIComponent(String(values[name])));

/**
 * Where a 201's resource lives: the route's own `location`; a PUT's own URL; else the item route
 * below a POSTed collection (`POST /things` → `/things/{id}`), keeping `?storeId=` where that
 * route chooses its store by the query string. A route that may answer 201 without one is refused.
 */
function locationOf(c: CompiledRoute, compiled: CompiledRoute[]): CompiledRoute['location'] {
  const r = c.route;
  if (r.location) return r.location;
  // A handle route shapes its whole reply, headers included.
  if (r.handle) return null;
  if (r.status !== 201 && !r.extraResponses?.['201']) return null;
  const storeQuery = (target: CompiledRoute, req: RestRequest) =>
    target.queryVars.has('storeId') && typeof req.query.storeId === 'string' ? `?storeId=${encodeURIComponent(req.query.storeId)}` : '';
  if (r.method === 'PUT') return (_body, req) => fill(r.path, req.params) + storeQuery(c, req);
  const items = compiled.filter((o) => !o.route.ingress && new RegExp(`^${r.path.replace(/[{}]/g, '\\$&')}/\\{(\\w+)\\}$`).test(o.route.path));
  const item = items.find((o) => o.route.method === 'GET') ?? items[0];
  if (!item) throw new Error(`REST route ${r.method} ${r.path}: answers 201 but no route gives its Location`);
  const idParam = item.pathParams[item.pathParams.length - 1];
  return (body, req) => fill(item.route.path, { ...req.params, [idParam]: body?.[idParam] ?? body?.id }) + storeQuery(item, req);
}

/** Query-string values arrive as text; convert them by the variable's declared type. */
function queryValue(name: string, raw: unknown, type: GraphQLInputType): unknown {
  const list = isListType(isNonNullType(type) ? type.ofType : type);
  const named = getNamedType(type).name;
  const one = (v: unknown): unknown => {
    if (typeof v !== 'string') throw new AppError('BAD_REQUEST', `Query parameter ${name} is malformed`, [{ path: name, message: 'is malformed' }]);
    if (named === 'Int') {
      if (!/^-?\d{1,9}$/.test(v)) throw new AppError('BAD_REQUEST', `Query parameter ${name} must be an integer`, [{ path: name, message: 'must be an integer' }]);
      return Number(v);
    }
    if (named === 'Float') {
      const n = Number(v);
      if (v.trim() === '' || !Number.isFinite(n)) throw new AppError('BAD_REQUEST', `Query parameter ${name} must be a number`, [{ path: name, message: 'must be a number' }]);
      return n;
    }
    if (named === 'Boolean') {
      if (v !== 'true' && v !== 'false') throw new AppError('BAD_REQUEST', `Query parameter ${name} must be true or false`, [{ path: name, message: 'must be true or false' }]);
      return v === 'true';
    }
    return v;
  };
  if (list) return (Array.isArray(raw) ? raw : String(raw).split(',')).filter((v) => v !== '').map(one);
  if (Array.isArray(raw)) throw new AppError('BAD_REQUEST', `Query parameter ${name} is given more than once`, [{ path: name, message: 'is given more than once' }]);
  return one(raw);
}

function buildVariables(c: CompiledRoute, req: FastifyRequest): Record<string, unknown> {
  const params = req.params as Record<string, string>;
  const query = (req.query ?? {}) as Record<string, unknown>;
  const variables: Record<string, unknown> = {};
  for (const p of c.pathParams) variables[p] = params[p];
  const unknown = Object.keys(query).filter((k) => !c.queryVars.has(k));
  if (unknown.length) {
    throw new AppError('BAD_REQUEST', `Unknown query parameter: ${unknown.join(', ')}`, unknown.map((path) => ({ path, message: 'is not a known query parameter' })));
  }
  for (const [name, type] of c.queryVars) {
    if (query[name] !== undefined) variables[name] = queryValue(name, query[name], type);
    else if (isNonNullType(type) && !(c.route.variables && name in (c.route.variables({ params, query, body: req.body, headers: req.headers }) ?? {}))) {
      throw new AppError('VALIDATION_FAILED', `${name}: is required`, [{ path: name, message: 'is required' }]);
    }
  }
  const body = req.body;
  if (c.bodyVar) {
    if (body !== undefined && body !== null && (typeof body !== 'object' || Array.isArray(body))) {
      throw new AppError('VALIDATION_FAILED', 'The request body must be a JSON object', [{ path: '', message: 'must be a JSON object' }]);
    }
    variables[c.bodyVar] = body ?? {};
  } else if (body !== undefined && body !== null && !(typeof body === 'object' && !Array.isArray(body) && Object.keys(body).length === 0)) {
    throw new AppError('VALIDATION_FAILED', 'This route takes no request body', [{ path: '', message: 'must be empty' }]);
  }
  if (c.route.variables) {
    Object.assign(variables, c.route.variables({ params, query, body, headers: req.headers }));
  }
  const numericIds = numericIdsOf(c.declared, variables, c.bodyVar);
  if (numericIds) throw numericIds;
  return plainDatesAsMidnight(c.declared, variables);
}

/** The refusal of JSON numbers given where the variables take an ID, with their paths (relative to the body's variable). */
function numericIdsOf(declared: Map<string, GraphQLInputType>, variables: Record<string, unknown>, bodyVar: string | null): AppError | null {
  const found: FieldError[] = [];
  for (const [name, type] of declared) findNumericIds(variables[name], type, name === bodyVar ? [] : [name], found);
  return found.length ? new AppError('VALIDATION_FAILED', found.map((e) => `${e.path}: ${e.message}`).join('; '), found) : null;
}

/**
 * GraphQL's ID takes an integer as well as a string, but REST ids are strings (CONTRACT §2): a JSON
 * number where an id goes is a wrong type, refused with its path like any other, rather than looked
 * up as text and answered 404 (or a batch's NOT_FOUND entries).
 */
function findNumericIds(value: unknown, type: GraphQLInputType, path: string[], found: FieldError[]): void {
  if (value === null || value === undefined) return;
  const t = isNonNullType(type) ? type.ofType : type;
  if (isListType(t)) {
    // GraphQL coerces one value given for a list into a list of one.
    if (Array.isArray(value)) value.forEach((v, i) => findNumericIds(v, t.ofType, [...path, String(i)], found));
    else findNumericIds(value, t.ofType, path, found);
  } else if (isInputObjectType(t)) {
    if (typeof value !== 'object' || Array.isArray(value)) return;
    for (const [name, field] of Object.entries(t.getFields())) {
      if (Object.hasOwn(value, name)) findNumericIds((value as Record<string, unknown>)[name], field.type, [...path, name], found);
    }
  } else if (t.name === 'ID' && typeof value === 'number') {
    found.push({ path: path.join('.'), message: 'must be a string' });
  }
}

/** Turn GraphQL errors into one problem: the first error decides the status. */
function errorsToProblem(errors: readonly GraphQLError[], bodyVar: string | null) {
  const mapped = errors.map(mapGraphQLError);
  const first = mapped[0];
  if (first.code === 'VALIDATION_FAILED') {
    const fieldErrors: FieldError[] = mapped.filter((m) => m.code === 'VALIDATION_FAILED').flatMap((m) => (bodyVar ? relativeTo(m.errors, bodyVar) : m.errors) ?? []);
    const detail = fieldErrors.length ? fieldErrors.map((e) => (e.path ? `${e.path}: ${e.message}` : e.message)).join('; ') : first.message;
    return problem('VALIDATION_FAILED', detail, fieldErrors);
  }
  return problem(first.code, first.message, first.errors, first.details);
}

/** Fastify's view of a request, as routes see it. */
const restRequest = (req: FastifyRequest): RestRequest => ({
  params: req.params as Record<string, string>,
  query: (req.query ?? {}) as Record<string, unknown>,
  body: req.body,
  headers: req.headers,
});

function sendReply(reply: FastifyReply, r: RestReply): FastifyReply {
  if (r.headers) reply.headers(r.headers);
  reply.code(r.status);
  if (r.body === undefined || r.status === 204 || r.status === 304) return reply.send();
  return reply.send(r.body);
}

/** A strong ETag over the JSON bytes; 304 when the client already has them. */
function sendWithEtag(req: FastifyRequest, reply: FastifyReply, r: RestReply, tagged?: (etag: string) => void): FastifyReply {
  const bytes = JSON.stringify(r.body);
  const etag = `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"`;
  if (r.status === 200) tagged?.(etag);
  if (r.headers) reply.headers(r.headers);
  reply.header('etag', etag);
  const match = req.headers['if-none-match'];
  if (match && match.split(',').some((t) => t.trim() === etag || t.trim() === `W/${etag}` || t.trim() === '*')) return reply.code(304).send();
  return reply.code(r.status).type('application/json; charset=utf-8').send(bytes);
}

/** Ingress routes keep the raw body for the provider's signature, whatever its content type. */
function registerIngress(app: FastifyInstance, deps: Deps, c: CompiledRoute): void {
  const handler = c.route.ingress!;
  void app.register(async (scoped) => {
    scoped.removeAllContentTypeParsers();
    scoped.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 1024 * 1024 }, (_req, body, done) => done(null, body));
    scoped.route({
      method: c.route.method,
      url: c.fastifyPath,
      handler: async (req, reply) => {
        const r = await handler(
          {
            params: req.params as Record<string, string>,
            query: (req.query ?? {}) as Record<string, unknown>,
            headers: req.headers,
            rawBody: Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0),
            ip: req.ip,
          },
          deps,
        );
        return sendReply(reply, r);
      },
    });
  });
}

/** A refusal a `handle` route's GraphQL run met: sent as is unless the route catches it. */
export class ProblemError extends Error {
  constructor(
    readonly problem: Problem,
    readonly headers?: Record<string, string>,
  ) {
    super(problem.detail);
    this.name = 'ProblemError';
  }
}

export interface RegisterOptions {
  /** How this table reads the Authorization header before it resolves the caller (another API's quirks). */
  authorization?: (header: string | undefined) => string | undefined;
}

/** Runs a compiled document; GraphQL's refusal becomes the table's problem. */
async function runDocument(
  req: FastifyRequest,
  c: CompiledRoute,
  operations: OperationCache,
  document: DocumentNode,
  rootField: string,
  bodyVar: string | null,
  variables: Record<string, unknown>,
  ctx: Ctx,
): Promise<{ value?: unknown; problem?: ProblemError }> {
  const result = await operations.get(document).run(ctx, variables);
  if (result.errors?.length) {
    const body = errorsToProblem(result.errors, bodyVar);
    ctx.request?.errorCodes.push(body.code);
    if (body.code === 'INTERNAL') {
      for (const e of result.errors) req.log.error({ err: e.originalError ?? e, route: `${c.route.method} ${c.route.path}` }, 'route failed');
    }
    const headers = result.errors.map((e) => e.originalError).find((e): e is AppError => e instanceof AppError)?.headers;
    return { problem: new ProblemError(body, headers) };
  }
  return { value: (result.data as Record<string, unknown>)[rootField] };
}

/** A route's answer: a success the route shaped, or the problem its GraphQL errors map to. */
export interface RouteAnswer extends RestReply {
  problem?: Problem;
}

/**
 * The execution step of every table route: the request's variables, the GraphQL document run
 * against the schema, and the answer shaped by the route. Throws AppError for refusals that
 * come before execution (a bad query string, a body where none is taken).
 */
export async function runRoute(c: CompiledRoute, req: FastifyRequest, operations: OperationCache, ctx: Ctx, variables = buildVariables(c, req)): Promise<RouteAnswer> {
  const { value, problem: refused } = await runDocument(req, c, operations, c.document!, c.rootField, c.bodyVar, variables, ctx);
  if (refused) return { status: refused.problem.status, headers: refused.headers, problem: refused.problem };
  const answer: RouteAnswer = c.route.reply ? c.route.reply(value, restRequest(req)) : { status: c.route.status ?? 200 };
  if (!c.route.reply && answer.status !== 204) answer.body = c.route.result ? c.route.result(value) : value;
  if (answer.status === 201 && c.location) answer.headers = { ...answer.headers, location: c.location(answer.body, restRequest(req)) };
  return answer;
}

/**
 * Whose an Idempotency-Key is: the caller's (the user, and the app for app tokens; an order's
 * payment token: that order) within the store the request names, so that one key never answers
 * across stores. Null: the request keeps no key (anonymous calls). A function of the request's
 * context, route and arguments, so that other scopes can be told apart here as well.
 */
export function idempotencyScope(ctx: Ctx, c: CompiledRoute, args: Record<string, unknown>): string | null {
  const caller = ctx.actor ? (ctx.actor.appId ? `${ctx.actor.userId}/${ctx.actor.appId}` : ctx.actor.userId) : ctx.paymentGrant ? `order/${ctx.paymentGrant.orderId}` : null;
  if (!caller) return null;
  const policy = c.root ? policyOf(c.root.def) : undefined;
  const store = args[policy?.kind === 'store' ? (policy.arg ?? 'storeId') : 'storeId'];
  return typeof store === 'string' ? `${caller}@store/${store}` : caller;
}

/**
 * Runs the route under the request's Idempotency-Key where the route takes one: the first request
 * with a key runs and its successful answer is kept; a repeat gets that answer again, once the
 * caller passes the route's policy as a new request would (a member removed since gets what a
 * stranger gets, not the kept answer).
 */
async function runIdempotent(c: CompiledRoute, req: FastifyRequest, operations: OperationCache, ctx: Ctx): Promise<RouteAnswer> {
  const header = req.headers['idempotency-key'];
  if (typeof header !== 'string' || !c.idempotent || !c.root) return runRoute(c, req, operations, ctx);
  const variables = buildVariables(c, req);
  const args = c.root.args(variables);
  const scope = args && idempotencyScope(ctx, c, args);
  if (!scope) return runRoute(c, req, operations, ctx, variables);
  return underIdempotencyKey(ctx, c, req, header, scope, {
    replay: async () => policyRefusal(ctx, c, args),
    run: () => runRoute(c, req, operations, ctx, variables),
    succeeded: (answer) => !answer.problem && answer.status < 300,
  });
}

/**
 * The key's life around one route's run: reserved with a hash of the request (another request
 * under the same key → 422, one still running → 409); a kept answer replayed once `replay`
 * finds no refusal for the caller now; a successful answer kept, anything else releases the key.
 */
export async function underIdempotencyKey<A extends { status: number; headers?: Record<string, string>; body?: unknown }>(
  ctx: Ctx,
  c: CompiledRoute,
  req: { params: unknown; query: unknown; body: unknown },
  header: string,
  scope: string,
  steps: { replay: () => Promise<A | null>; run: () => Promise<A>; succeeded: (answer: A) => boolean },
): Promise<A | RestReply> {
  checkIdempotencyKey(header);
  const em = ctx.deps.orm.em.fork() as unknown as EntityManager;
  const secretKey = ctx.deps.config.secretKey;
  const hash = requestHash({ route: `${c.route.method} ${c.route.path}`, params: req.params, query: req.query, body: req.body });
  const kept = await reserveIdempotencyKey(em, secretKey, scope, header, hash);
  if (kept) {
    const refused = await steps.replay();
    if (refused) return refused;
    return { ...kept, headers: { ...kept.headers, 'idempotent-replayed': 'true' } };
  }
  let answer: A | undefined;
  try {
    answer = await steps.run();
  } finally {
    if (answer && steps.succeeded(answer)) await keepIdempotentAnswer(em, secretKey, scope, header, { status: answer.status, headers: answer.headers ?? {}, body: answer.body });
    else await releaseIdempotencyKey(em, scope, header);
  }
  return answer;
}

/** The route's policy checked for these arguments, as running its document would: its refusal as the route answers it, or null. */
async function policyRefusal(ctx: Ctx, c: CompiledRoute, args: Record<string, unknown>): Promise<RouteAnswer | null> {
  const def = c.root!.def;
  try {
    await enforcePolicy(ctx, policyOf(def), args, def.name);
    return null;
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    ctx.request?.errorCodes.push(err.code);
    const body = errorsToProblem([new GraphQLError(err.message, { path: [c.rootField], originalError: err })], c.bodyVar);
    return { status: body.status, headers: err.headers, problem: body };
  }
}
/** A `handle` route: the route drives its documents through `run`. */
async function handleRoute(req: FastifyRequest, reply: FastifyReply, deps: Deps, operations: OperationCache, c: CompiledRoute, ctx: Ctx): Promise<FastifyReply> {
  // A route that writes may read first (to merge, to locate): those reads, like its caller's for
  // a few seconds after, are the primary's, never a replica's older copy (db/replicas.ts).
  const writes = c.route.method !== 'GET';
  if (writes) deps.db.reads.wrote(ctx);
  const tools: RouteTools = {
    ctx,
    async run(variables, opts = {}) {
      const main = !opts.operation || opts.operation === c.route.operation;
      const doc = main ? { document: c.document!, rootField: c.rootField, declared: c.declared, kind: 'query' as const } : c.operations.get(opts.operation!);
      if (!doc) throw new Error(`REST route ${c.route.method} ${c.route.path}: operation not declared in operations`);
      let runCtx = ctx;
      if (opts.authorization !== undefined) {
        runCtx = await createContext(deps, opts.authorization ?? undefined, req.ip);
        runCtx.request = ctx.request;
        if (runCtx.authFailure) throw new ProblemError(problem('UNAUTHENTICATED', runCtx.authFailure));
        if (writes) deps.db.reads.wrote(runCtx);
      }
      const bodyVar = (main ? c.bodyVar === 'input' : doc.declared.has('input')) ? 'input' : null;
      const numericIds = numericIdsOf(doc.declared, variables, bodyVar);
      if (numericIds) throw new ProblemError(problem('VALIDATION_FAILED', numericIds.message, numericIds.errors));
      const { value, problem: refused } = await runDocument(req, c, operations, doc.document, doc.rootField, bodyVar, plainDatesAsMidnight(doc.declared, variables), runCtx);
      if (refused) throw refused;
      return value;
    },
  };
  try {
    return sendReply(reply, await c.route.handle!(restRequest(req), tools));
  } catch (err) {
    if (err instanceof ProblemError) return sendProblem(reply, err.problem, err.headers);
    throw err;
  }
}

/** A route open to every origin, without credentials (`cors: 'any'`), as @fastify/cors takes it per route. */
const ANY_ORIGIN: { origin: string; credentials: boolean } = { origin: '*', credentials: false };

/** Route config of routes whose handler refuses an invalid bearer token before anything else. */
export const TOKEN_CHECKED = { tokenChecked: true } as const;
export const tokenCheckedByRoute = (req: FastifyRequest): boolean => (req.routeOptions.config as { tokenChecked?: boolean } | undefined)?.tokenChecked === true;

export function registerRoutes(app: FastifyInstance, deps: Deps, schema: GraphQLSchema, compiled: CompiledRoute[], options: RegisterOptions = {}): void {
  // Each route's fixed documents run as compiled operations once they are in use.
  const operations = new OperationCache(schema);
  const preflights = new Set<string>();
  for (const c of compiled) {
    if (c.route.ingress) {
      registerIngress(app, deps, c);
      continue;
    }
    // @fastify/cors reads a route's own `cors` config; a preflight needs a route of its path to carry it.
    const cors: { cors?: typeof ANY_ORIGIN } = c.route.cors === 'any' ? { cors: ANY_ORIGIN } : {};
    if (c.route.cors === 'any' && !preflights.has(c.fastifyPath)) {
      preflights.add(c.fastifyPath);
      app.route({ method: 'OPTIONS', url: c.fastifyPath, config: { cors: ANY_ORIGIN }, handler: (_req, reply) => reply.code(204).send() });
    }
    app.route({
      method: c.route.method,
      url: c.fastifyPath,
      // The handler resolves the token itself, first: the server's token hook need not do it twice.
      config: { ...TOKEN_CHECKED, ...cors },
      handler: async (req: FastifyRequest, reply: FastifyReply) => {
        const authorization = options.authorization ? options.authorization(req.headers.authorization) : req.headers.authorization;
        // The token first: a presented bearer token that is not valid is 401 whatever else is wrong.
        const ctx = noteContext(req, await createContext(deps, authorization, req.ip));
        if (ctx.authFailure) throw new AppError('UNAUTHENTICATED', ctx.authFailure);
        if (c.route.handle) return handleRoute(req, reply, deps, operations, c, ctx);
        const revalidate = c.route.revalidate;
        let mark: unknown;
        if (revalidate) {
          const ifNoneMatch = req.headers['if-none-match'];
          if (typeof ifNoneMatch === 'string') {
            const etag = await revalidate.notModified(ctx, restRequest(req), req.url, ifNoneMatch);
            if (etag) {
              if (c.route.cacheControl) reply.header('cache-control', c.route.cacheControl(deps.config));
              return reply.header('etag', etag).code(304).send();
            }
          }
          mark = revalidate.mark(restRequest(req), deps);
        }
        const answer = await runIdempotent(c, req, operations, ctx);
        if (answer.problem) return sendProblem(reply, answer.problem, answer.headers);
        const cacheControl = c.route.cacheControl?.(deps.config);
        if (cacheControl) answer.headers = { ...answer.headers, 'cache-control': cacheControl };
        const remember = revalidate && ((etag: string) => revalidate.remember(ctx, restRequest(req), mark, { url: req.url, route: req.routeOptions.url ?? c.fastifyPath, etag, cacheControl }));
        if (c.route.etag && !c.route.reply) return sendWithEtag(req, reply, answer, remember);
        return sendReply(reply, answer);
      },
    });
  }
}
