import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  GraphQLError,
  parse,
  validate,
  typeFromAST,
  getNamedType,
  isListType,
  isNonNullType,
  type DocumentNode,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { createHash } from 'node:crypto';
import type { RestReply, RestRequest, RestRoute, RouteTools } from './route.js';
import { ROUTES } from './routes/index.js';
import { createContext, type Ctx, type Deps } from '../src/core/context.js';
import { mapGraphQLError, relativeTo } from '../src/edge/graphql-errors.js';
import { AppError, problem, type FieldError, type Problem } from '../src/core/errors.js';
import { sendProblem } from '../src/edge/http-problem.js';
import { noteContext } from '../src/edge/request-log.js';
import { OperationCache } from '../src/edge/executor.js';

export interface CompiledRoute {
  route: RestRoute;
  /** Null for ingress routes, which run no GraphQL. */
  document: DocumentNode | null;
  rootField: string;
  bodyVar: string | null;
  pathParams: string[];
  /** Variables read from the query string, with their GraphQL input types. */
  queryVars: Map<string, GraphQLInputType>;
  fastifyPath: string;
  /** A `handle` route's further documents, by their text. */
  operations: Map<string, CompiledDocument>;
}

interface CompiledDocument {
  document: DocumentNode;
  rootField: string;
  declared: Map<string, GraphQLInputType>;
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
  const rootField = fields[0].alias?.value ?? fields[0].name.value;
  const declared = new Map((op.variableDefinitions ?? []).map((v) => [v.variable.name.value, typeFromAST(schema, v.type as never) as GraphQLInputType]));
  return { document, rootField, declared };
}

/** Parse and validate every document once, at start: a broken table never serves. */
export function compileRoutes(schema: GraphQLSchema, routes: RestRoute[] = ROUTES): CompiledRoute[] {
  const seen = new Set<string>();
  return routes.map((route) => {
    const key = `${route.method} ${route.path}`;
    if (seen.has(key)) throw new Error(`REST route declared twice: ${key}`);
    seen.add(key);
    const pathParams = paramNames(route.path);
    if (route.ingress) {
      return { route, document: null, rootField: '', bodyVar: null, pathParams, queryVars: new Map(), fastifyPath: fastifyPathOf(route.path), operations: new Map() };
    }
    if (!route.operation) throw new Error(`REST route ${key}: an operation or an ingress handler is required`);
    const { document, rootField, declared } = compileDocument(schema, key, route.operation);
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
      fastifyPath: fastifyPathOf(route.path),
      operations,
    };
  });
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
  return variables;
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
  return problem(first.code, first.message, first.errors);
}

function sendReply(reply: FastifyReply, r: RestReply): FastifyReply {
  if (r.headers) reply.headers(r.headers);
  reply.code(r.status);
  if (r.body === undefined || r.status === 204 || r.status === 304) return reply.send();
  return reply.send(r.body);
}

/** A strong ETag over the JSON bytes; 304 when the client already has them. */
function sendWithEtag(req: FastifyRequest, reply: FastifyReply, status: number, value: unknown): FastifyReply {
  const bytes = JSON.stringify(value);
  const etag = `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"`;
  reply.header('etag', etag);
  const match = req.headers['if-none-match'];
  if (match && match.split(',').some((t) => t.trim() === etag || t.trim() === `W/${etag}` || t.trim() === '*')) return reply.code(304).send();
  return reply.code(status).type('application/json; charset=utf-8').send(bytes);
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

function restRequest(req: FastifyRequest): RestRequest {
  return { params: req.params as Record<string, string>, query: (req.query ?? {}) as Record<string, unknown>, body: req.body, headers: req.headers };
}

/** A `handle` route: the route drives its documents through `run`. */
async function handleRoute(req: FastifyRequest, reply: FastifyReply, deps: Deps, operations: OperationCache, c: CompiledRoute, ctx: Ctx): Promise<FastifyReply> {
  const tools: RouteTools = {
    ctx,
    async run(variables, opts = {}) {
      const main = !opts.operation || opts.operation === c.route.operation;
      const doc = main ? { document: c.document!, rootField: c.rootField, declared: new Map() } : c.operations.get(opts.operation!);
      if (!doc) throw new Error(`REST route ${c.route.method} ${c.route.path}: operation not declared in operations`);
      let runCtx = ctx;
      if (opts.authorization !== undefined) {
        runCtx = await createContext(deps, opts.authorization ?? undefined, req.ip);
        runCtx.request = ctx.request;
        if (runCtx.authFailure) throw new ProblemError(problem('UNAUTHENTICATED', runCtx.authFailure));
      }
      const bodyVar = (main ? c.bodyVar === 'input' : doc.declared.has('input')) ? 'input' : null;
      const { value, problem: refused } = await runDocument(req, c, operations, doc.document, doc.rootField, bodyVar, variables, runCtx);
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

export function registerRoutes(app: FastifyInstance, deps: Deps, schema: GraphQLSchema, compiled: CompiledRoute[], options: RegisterOptions = {}): void {
  // Each route's fixed documents run as compiled operations once they are in use.
  const operations = new OperationCache(schema);
  for (const c of compiled) {
    if (c.route.ingress) {
      registerIngress(app, deps, c);
      continue;
    }
    app.route({
      method: c.route.method,
      url: c.fastifyPath,
      handler: async (req: FastifyRequest, reply: FastifyReply) => {
        const authorization = options.authorization ? options.authorization(req.headers.authorization) : req.headers.authorization;
        // The token first: a presented bearer token that is not valid is 401 whatever else is wrong.
        const ctx = noteContext(req, await createContext(deps, authorization, req.ip));
        if (ctx.authFailure) throw new AppError('UNAUTHENTICATED', ctx.authFailure);
        if (c.route.handle) return handleRoute(req, reply, deps, operations, c, ctx);
        const variables = buildVariables(c, req);
        const { value, problem: refused } = await runDocument(req, c, operations, c.document!, c.rootField, c.bodyVar, variables, ctx);
        if (refused) return sendProblem(reply, refused.problem, refused.headers);
        if (c.route.reply) return sendReply(reply, c.route.reply(value, restRequest(req)));
        const status = c.route.status ?? 200;
        if (status === 204) return reply.code(204).send();
        const body = c.route.result ? c.route.result(value) : value;
        if (c.route.etag) return sendWithEtag(req, reply, status, body);
        return reply.code(status).send(body);
      },
    });
  }
}
