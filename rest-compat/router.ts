import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  execute,
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
import type { RestRoute } from './route.js';
import { ROUTES } from './routes/index.js';
import { createContext, type Deps } from '../src/server/context.js';
import { mapGraphQLError, relativeTo } from '../src/server/graphql-errors.js';
import { AppError, problem, type FieldError } from '../src/server/errors.js';
import { sendProblem } from '../src/server/http-problem.js';

export interface CompiledRoute {
  route: RestRoute;
  document: DocumentNode;
  rootField: string;
  bodyVar: string | null;
  pathParams: string[];
  /** Variables read from the query string, with their GraphQL input types. */
  queryVars: Map<string, GraphQLInputType>;
  fastifyPath: string;
}

const paramNames = (path: string) => [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);

/** Parse and validate every document once, at start: a broken table never serves. */
export function compileRoutes(schema: GraphQLSchema, routes: RestRoute[] = ROUTES): CompiledRoute[] {
  const seen = new Set<string>();
  return routes.map((route) => {
    const key = `${route.method} ${route.path}`;
    if (seen.has(key)) throw new Error(`REST route declared twice: ${key}`);
    seen.add(key);
    const document = parse(route.operation);
    const problems = validate(schema, document);
    if (problems.length) throw new Error(`REST route ${key}: ${problems.map((p) => p.message).join('; ')}`);
    const op = document.definitions.find((d): d is OperationDefinitionNode => d.kind === 'OperationDefinition');
    if (!op) throw new Error(`REST route ${key}: no operation`);
    const fields = op.selectionSet.selections.filter((s) => s.kind === 'Field');
    if (fields.length !== 1 || fields[0].kind !== 'Field') throw new Error(`REST route ${key}: exactly one root field expected`);
    const rootField = fields[0].alias?.value ?? fields[0].name.value;
    const pathParams = paramNames(route.path);
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
      fastifyPath: route.path.replace(/\{(\w+)\}/g, ':$1'),
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
  for (const [name, type] of c.queryVars) if (query[name] !== undefined) variables[name] = queryValue(name, query[name], type);
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

export function registerRoutes(app: FastifyInstance, deps: Deps, schema: GraphQLSchema, compiled: CompiledRoute[]): void {
  for (const c of compiled) {
    app.route({
      method: c.route.method,
      url: c.fastifyPath,
      handler: async (req: FastifyRequest, reply: FastifyReply) => {
        const variables = buildVariables(c, req);
        const ctx = await createContext(deps, req.headers.authorization, req.ip);
        const result = await execute({ schema, document: c.document, variableValues: variables, contextValue: ctx });
        if (result.errors?.length) {
          const body = errorsToProblem(result.errors, c.bodyVar);
          if (body.code === 'INTERNAL') {
            for (const e of result.errors) req.log.error({ err: e.originalError ?? e, route: `${c.route.method} ${c.route.path}` }, 'route failed');
          }
          const headers = result.errors.map((e) => e.originalError).find((e): e is AppError => e instanceof AppError)?.headers;
          return sendProblem(reply, body, headers);
        }
        const value = (result.data as Record<string, unknown>)[c.rootField];
        const status = c.route.status ?? 200;
        if (status === 204) return reply.code(204).send();
        return reply.code(status).send(c.route.result ? c.route.result(value) : value);
      },
    });
  }
}
