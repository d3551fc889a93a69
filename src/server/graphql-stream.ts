import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createHandler as createSseHandler } from 'graphql-sse/lib/use/fastify';
import { TOKEN_HEADER_KEY, TOKEN_QUERY_KEY } from 'graphql-sse';
import {
  createSourceEventStream,
  execute,
  getOperationAST,
  Kind,
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type FieldNode,
  type GraphQLField,
  type GraphQLFormattedError,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type ParseOptions,
  type ValidationRule,
} from 'graphql';
import { getArgumentValues, getVariableValues } from 'graphql/execution/values.js';
import type { Ctx, Deps } from '../core/context.js';
import { problem } from '../core/errors.js';
import { viewKeyOf, type ViewKey } from '../core/multiplex.js';
import { enforcePolicy, policyOf } from '../core/policy.js';
import { sendProblem } from '../edge/http-problem.js';
import { stillAllowed, type Watched } from '../events/access.js';
import { GRAPHQL_SSE, Sink, startEventStream, type GroupSource, type Group } from '../events/fanout.js';
import { carryHeaders } from './cors.js';

export interface GraphqlStreamOptions {
  schema: GraphQLSchema;
  validationRules: readonly ValidationRule[];
  parseOptions: ParseOptions;
  /** The request's context, as the other GraphQL handlers share it. */
  context(req: FastifyRequest): Promise<Ctx>;
  /** Drops the request's context: a shared subscription's stream outlives its need (its entity manager, ~5 KB). */
  release(req: FastifyRequest): void;
  formatError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError;
}

/** The root field of an operation, with what its checks need. */
interface RootField {
  field: GraphQLField<unknown, unknown>;
  node: FieldNode;
  /** `Subscription.<field>`, for errors. */
  name: string;
}

/** A subscription whose root field is multiplexed, parsed and validated once per document. */
interface SharedOperation extends RootField {
  document: DocumentNode;
  operation: OperationDefinitionNode;
  operationName: string | undefined;
  view: ViewKey;
  /** The document's identity in group keys. */
  text: string;
}

/** Documents remembered; a client that sends ever new ones empties the cache rather than grow it. */
const MAX_OPERATIONS = 1_000;

const SSE_HEADERS = {
  'cache-control': 'no-cache',
  'content-encoding': 'none',
  'content-type': 'text/event-stream; charset=utf-8',
};

function rootField(schema: GraphQLSchema, operation: OperationDefinitionNode): RootField | null {
  const type = schema.getSubscriptionType();
  const [node, ...rest] = operation.selectionSet.selections;
  if (!type || rest.length || node?.kind !== Kind.FIELD || node.directives?.length) return null;
  const field = type.getFields()[node.name.value];
  return field ? { field, node, name: `${type.name}.${field.name}` } : null;
}

/**
 * `/graphql/stream`: graphql-sse's protocol. A subscription to a multiplexed field (`@Multiplexed`,
 * core/multiplex.ts) in distinct-connections mode is served here: its subscribers with the same
 * document, variables and view share one group (events/fanout.ts): one source stream, one
 * execution and one serialized `next` event per event, written to each. Everything else
 * (queries, other fields, single-connection mode, any request this path would refuse) goes to
 * graphql-sse's own handler, which answers it exactly as before; its subscriptions get the same
 * access re-checks.
 */
export function registerGraphqlStream(app: FastifyInstance, deps: Deps, opts: GraphqlStreamOptions): void {
  const { schema } = opts;
  const rules = [...specifiedRules, ...opts.validationRules];
  const formatted = (r: ExecutionResult): ExecutionResult =>
    r.errors?.length ? ({ ...r, errors: r.errors.map((e) => opts.formatError(e.toJSON(), e)) } as unknown as ExecutionResult) : r;

  const sse = createSseHandler<Record<PropertyKey, unknown>>({
    schema,
    validate: (s, document) => validate(s, document, rules),
    context: async (req) => (await opts.context(req.raw)) as unknown as Record<PropertyKey, unknown>,
    onOperation: (ctx, req, args, result) => watchOwn(deps, ctx as unknown as Ctx, req.raw.headers.authorization, args, result),
    onNext: (_ctx, _req, result) => formatted(result as ExecutionResult),
  });

  const operations = new Map<string, SharedOperation | null>();
  const sharedOperation = (query: string, operationName: string | undefined): SharedOperation | null => {
    const text = `${operationName ?? ''}\n${query}`;
    let op = operations.get(text);
    if (op !== undefined) return op;
    op = null;
    try {
      const document = parse(query, opts.parseOptions);
      const operation = getOperationAST(document, operationName);
      if (operation?.operation === 'subscription' && !validate(schema, document, rules).length) {
        const root = rootField(schema, operation);
        const view = root && viewKeyOf(root.field);
        if (root && view) op = { ...root, document, operation, operationName, view, text };
      }
    } catch {
      // Not parsable within the limits: graphql-sse answers it.
    }
    if (operations.size >= MAX_OPERATIONS) operations.clear();
    operations.set(text, op);
    return op;
  };

  /** The group's source: the field's subscription, run once with a context of the group's own. */
  const openGroup = async (group: Group, op: SharedOperation, ctx: Ctx, variables: Record<string, unknown>, args: Record<string, unknown>, view: string): Promise<GroupSource | null> => {
    // What the first subscriber is allowed, without its request: every member of the group sees the same.
    const contextValue: Ctx = { em: deps.orm.em.fork(), deps, actor: ctx.actor, paymentGrant: ctx.paymentGrant ?? null, authFailure: null, ip: ctx.ip, memberships: new Map() };
    const base = { schema, document: op.document, contextValue, variableValues: variables, operationName: op.operationName };
    const source = await createSourceEventStream(base);
    if (!(Symbol.asyncIterator in source)) return null;
    const iterator = source[Symbol.asyncIterator]();
    let seq = 0;
    void (async () => {
      for (;;) {
        const next = await iterator.next();
        if (next.done) break;
        const result = formatted(await execute({ ...base, rootValue: next.value }));
        group.publish({ seq: ++seq, bytes: Buffer.from(`event: next\ndata: ${JSON.stringify(result)}\n\n`) });
      }
    })()
      .catch((err: unknown) => deps.log.error({ err }, 'realtime: a shared subscription failed'))
      .finally(() => group.end());
    return {
      allows: (authorization) => stillAllowed(deps, authorization, policyOf(op.field), args, op.name, (c) => op.view(c, args) === view),
      stop: () => void iterator.return?.(),
    };
  };

  /** Serves a multiplexed subscription; false: graphql-sse should answer the request. */
  const serveShared = async (req: FastifyRequest, reply: FastifyReply): Promise<boolean> => {
    if (req.headers.accept !== 'text/event-stream' || req.headers[TOKEN_HEADER_KEY]) return false;
    const params = (req.method === 'GET' ? req.query : req.body) as Record<string, unknown> | undefined;
    if (!params || typeof params !== 'object' || typeof params.query !== 'string' || params[TOKEN_QUERY_KEY] !== undefined) return false;
    if (params.operationName !== undefined && params.operationName !== null && typeof params.operationName !== 'string') return false;
    let raw: unknown = params.variables ?? {};
    if (req.method === 'GET' && typeof raw === 'string') {
      try {
        raw = JSON.parse(raw);
      } catch {
        return false;
      }
    }
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return false;
    const op = sharedOperation(params.query, (params.operationName as string | null | undefined) ?? undefined);
    if (!op) return false;
    const variables = raw as Record<string, unknown>;
    const ctx = await opts.context(req);
    const coerced = getVariableValues(schema, op.operation.variableDefinitions ?? [], variables);
    if (coerced.errors) return false;
    let args: Record<string, unknown>;
    try {
      args = getArgumentValues(op.field, op.node, coerced.coerced);
      await enforcePolicy(ctx, policyOf(op.field), args, op.name);
    } catch {
      // Refused: graphql-sse runs it again and answers with the error, as for any operation.
      return false;
    }
    const view = op.view(ctx, args);
    if (view === null) return false;
    const group = deps.realtime.streams.group(`graphql:${view}\n${op.text}\n${JSON.stringify(variables)}`, (g) => openGroup(g, op, ctx, variables, args, view));
    const res = reply.raw;
    const sink = new Sink(res, GRAPHQL_SSE, req.headers.authorization, ctx.actor?.userId ?? null, ctx.actor?.expiresAt ?? null);
    // Held until the headers are out.
    sink.held = [];
    if (!(await group.join(sink))) return false;
    reply.hijack();
    opts.release(req);
    startEventStream(res, SSE_HEADERS);
    // Some browsers (Firefox, Safari) want a first message before they report the stream open.
    res.write(':\n\n');
    const held = sink.held;
    sink.held = null;
    for (const f of held) sink.offer(f);
    return true;
  };

  app.route({
    method: ['GET', 'POST', 'PUT', 'DELETE'],
    url: '/graphql/stream',
    handler: async (req, reply) => {
      try {
        carryHeaders(reply);
        if (await serveShared(req, reply)) return;
        await sse(req, reply);
      } catch (err) {
        req.log.error({ err }, 'graphql-sse failed');
        if (!reply.sent && !reply.raw.headersSent) sendProblem(reply, problem('INTERNAL', 'Internal server error'));
      }
    },
  });
}

/**
 * A subscription graphql-sse serves itself is counted among the process's readers and its access
 * re-checked on the same changes as a shared one; access gone, it completes.
 */
function watchOwn(deps: Deps, ctx: Ctx, authorization: string | undefined, args: ExecutionArgs, result: unknown) {
  const operation = getOperationAST(args.document, args.operationName);
  if (operation?.operation !== 'subscription' || !result || typeof result !== 'object' || !(Symbol.asyncIterator in result)) return;
  const root = rootField(args.schema, operation);
  const source = (result as AsyncIterable<unknown>)[Symbol.asyncIterator]();
  const streams = deps.realtime.streams;
  const untrack = streams.track();
  let fieldArgs: Record<string, unknown> = {};
  if (root) {
    // The operation ran, so its variables coerce; its arguments are those the policy saw.
    const coerced = getVariableValues(args.schema, operation.variableDefinitions ?? [], args.variableValues ?? {});
    if (coerced.coerced) fieldArgs = getArgumentValues(root.field, root.node, coerced.coerced);
  }
  const watched: Watched = {
    userId: ctx.actor?.userId ?? null,
    expiresAt: ctx.actor?.expiresAt ?? null,
    checkKey: `${authorization}\n${root?.name}\n${JSON.stringify(fieldArgs)}`,
    check: () => stillAllowed(deps, authorization, root ? policyOf(root.field) : undefined, fieldArgs, root?.name ?? 'Subscription'),
    revoke: () => void source.return?.(),
  };
  streams.access.add(watched);
  const done = () => {
    streams.access.remove(watched);
    untrack();
  };
  const wrapped: AsyncGenerator<unknown> = {
    async next() {
      const r = await source.next();
      if (r.done) done();
      return r;
    },
    async return(value?: unknown) {
      done();
      return (await source.return?.(value)) ?? { done: true, value };
    },
    async throw(err?: unknown) {
      done();
      if (source.throw) return source.throw(err);
      throw err;
    },
    [Symbol.asyncIterator]() {
      return wrapped;
    },
  };
  return wrapped as never;
}
