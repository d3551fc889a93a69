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
import type { RestReply, RestRoute } from './route.js';
import { ROUTES } from './routes/index.js';
import { createContext, type Deps } from '../src/core/context.js';
import { mapGraphQLError, relativeTo } from '../src/edge/graphql-errors.js';
import { AppError, problem, type FieldError } from '../src/core/errors.js';
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
}

const paramNames = (path: string) => [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);

/** fastify's router reads `:` as a parameter; a custom verb's colon is escaped as `::`. */
export const fastifyPathOf = (path: string) => path.replace(/:(?=[A-Za-z])/g, '::').replace(/\{(\w+)\}/g, ':$1');

/** Parse and validate every document once, at start: a broken table never serves. */
export function compileRoutes(schema: GraphQLSchema, routes: RestRoute[] = ROUTES): CompiledRoute[] {
  const seen = new Set<string>();
  return routes.map((route) => {
    const key = `${route.method} ${route.path}`;
    if (seen.has(key)) throw new Error(`REST route declared twice: ${key}`);
    seen.add(key);
    const pathParams = paramNames(route.path);
    if (route.ingress) {
      return { route, document: null, rootField: '', bodyVar: null, pathParams, queryVars: new Map(), fastifyPath: fastifyPathOf(route.path) };
    }
    if (!route.operation) throw new Error(`REST route ${key}: an operation or an ingress handler is required`);
    const document = parse(route.operation);
    const problems = validate(schema, document);
    if (problems.length) throw new Error(`REST route ${key}: ${problems.map((p) => p.message).join('; ')}`);
    const op = document.definitions.find((d): d is OperationDefinitionNode => d.kind === 'OperationDefinition');
    if (!op) throw new Error(`REST route ${key}: no operation`);
    const fields = op.selectionSet.selections.filter((s) => s.kind === 'Field');
    if (fields.length !== 1 || fields[0].kind !== 'Field') throw new Error(`REST route ${key}: exactly one root field expected`);
    const rootField = fields[0].alias?.value ?? fields[0].name.value;
    const declared = new Map((op.variableDefinitions ?? []).map((v) => [v.variable.name.value, typeFromAST(schema, v.type as never) as GraphQLInputType]));
    const bodyVar = route.body ?? (declared.has('input') && route.method !== 'GET' && route.method !== 'DELETE' ? 'input' : null);
    if (bodyVar && !declared.has(bodyVar)) throw new Error(`REST route ${key}: body variable $${bodyVar} is not declared`);
    for (const p of pathParams) if (!declared.has(p)) throw new Error(`REST route ${key}: path parameter {${p}} has no variable`);
    const queryVars = new Map([...declared].filter(([name]) => name !== bodyVar && !pathParams.includes(name)));
    return {
      route,
      document,
      rootField,
      bodyVar,
      pathParams,
      queryVars,
      fastifyPath: fastifyPathOf(route.path),
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

export function registerRoutes(app: FastifyInstance, deps: Deps, schema: GraphQLSchema, compiled: CompiledRoute[]): void {
  // Each route's fixed document runs as a compiled operation once it is in use.
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
        // The token first: a presented bearer token that is not valid is 401 whatever else is wrong.
        const ctx = noteContext(req, await createContext(deps, req.headers.authorization, req.ip));
        if (ctx.authFailure) throw new AppError('UNAUTHENTICATED', ctx.authFailure);
        const variables = buildVariables(c, req);
        const result = await operations.get(c.document!).run(ctx, variables);
        if (result.errors?.length) {
          const body = errorsToProblem(result.errors, c.bodyVar);
          ctx.request?.errorCodes.push(body.code);
          if (body.code === 'INTERNAL') {
            for (const e of result.errors) req.log.error({ err: e.originalError ?? e, route: `${c.route.method} ${c.route.path}` }, 'route failed');
          }
          const headers = result.errors.map((e) => e.originalError).find((e): e is AppError => e instanceof AppError)?.headers;
          return sendProblem(reply, body, headers);
        }
        const value = (result.data as Record<string, unknown>)[c.rootField];
        if (c.route.reply) {
          return sendReply(reply, c.route.reply(value, { params: req.params as Record<string, string>, query: (req.query ?? {}) as Record<string, unknown>, body: req.body, headers: req.headers }));
        }
        const status = c.route.status ?? 200;
        if (status === 204) return reply.code(204).send();
        const body = c.route.result ? c.route.result(value) : value;
        if (c.route.etag) return sendWithEtag(req, reply, status, body);
        return reply.code(status).send(body);
      },
    });
  }
}
