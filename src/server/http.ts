import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerFactory } from 'fastify';
import proxyAddr from '@fastify/proxy-addr';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import type { GatewayInterface } from '@apollo/server-gateway-interface';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import fastifyApollo, { fastifyApolloDrainPlugin } from '@as-integrations/fastify';
import type { GraphQLFormattedError, GraphQLSchema } from 'graphql';
import { GraphQLError } from 'graphql';
import { graphqlLimits } from './graphql-limits.js';
import { compileRoutes, registerRoutes, tokenCheckedByRoute } from '../../rest-compat/router.js';
import { buildOpenApi } from '../../rest-compat/openapi.js';
import { registerFeeef } from '../../rest-compat/feeef/face.js';
import { normalizeAuthorization, PREFIX as FEEEF_PREFIX } from '../../rest-compat/feeef/route.js';
import { createContext, type Ctx, type Deps } from '../core/context.js';
import { AppError, problem, type Problem } from '../core/errors.js';
import { assertCleanInput } from '../core/input.js';
import { mapGraphQLError } from '../edge/graphql-errors.js';
import { sendProblem } from '../edge/http-problem.js';
import { logRequests, noteContext, noteOf, requestId, sendNotedCookies } from '../edge/request-log.js';
import { OperationCache } from '../edge/executor.js';
import { allowOrigins } from './cors.js';
import { registerGraphqlStream } from './graphql-stream.js';
import { registerProbes } from './probes.js';
import { serveGraphiql } from './explore.js';
import type { EarlyAnswer, EarlyAnswerer, OpenApiPaths } from '../core/module.js';
import { routeMethods } from './methods.js';

export const BODY_LIMIT = 1024 * 1024;
/** How long close() waits for requests in flight before cutting connections (main.ts gives up at 20 s). */
export const DRAIN_TIMEOUT_MS = 10_000;

/** A GraphQL request's error codes join its log line (and the variables' storeId). */
const errorCodesPlugin: ApolloServerPlugin<Ctx> = {
  async requestDidStart({ contextValue, request }) {
    const storeId = request.variables?.storeId;
    if (contextValue.request && typeof storeId === 'string') contextValue.request.storeId = storeId;
    return {
      async didResolveOperation({ contextValue: ctx, operationName }) {
        if (ctx.request && operationName) ctx.request.operation = operationName;
      },
      async didEncounterErrors({ contextValue: ctx, errors }) {
        ctx.request?.errorCodes.push(...errors.map((e) => mapGraphQLError(e).code));
      },
    };
  },
};

/**
 * An operation that needed authentication it did not have (no token, a wrong password) answers
 * HTTP 401 with `WWW-Authenticate`, as REST does and as a refused token already does on /graphql;
 * the body stays what GraphQL wrote: the fields that could answer, and the error.
 */
const unauthenticatedStatusPlugin: ApolloServerPlugin<Ctx> = {
  async requestDidStart() {
    return {
      async willSendResponse({ response }) {
        const { body } = response;
        if (body.kind === 'single' && body.singleResult.errors?.some((e) => e.extensions?.code === 'UNAUTHENTICATED')) response.http.status = 401;
      },
    };
  },
};

/** GraphQL errors carry the vocabulary's code; nothing internal leaks. */
export function formatGraphQLError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError {
  const gqlError = error instanceof GraphQLError ? error : new GraphQLError(formatted.message);
  const mapped = mapGraphQLError(gqlError);
  return {
    message: mapped.message,
    ...(formatted.locations ? { locations: formatted.locations } : {}),
    ...(formatted.path ? { path: formatted.path } : {}),
    extensions: { ...mapped.details, code: mapped.code, ...(mapped.errors ? { errors: mapped.errors } : {}) },
  };
}


/**
 * Apollo executes through compiled operations (executor.ts), cached by document: its gateway
 * interface is the one place it takes an executor. The schema is ours and never changes.
 */
function compiledExecution(schema: GraphQLSchema): GatewayInterface {
  const operations = new OperationCache(schema);
  return {
    onSchemaLoadOrUpdate(callback) {
      callback({ apiSchema: schema, coreSupergraphSdl: '' });
      return () => {};
    },
    async load() {
      return {
        executor: async (rc) => operations.get(rc.document, rc.request.operationName).run(rc.context, rc.request.variables) as never,
      };
    },
    async stop() {},
  };
}

export interface HttpServer {
  app: FastifyInstance;
  apollo: ApolloServer<Ctx>;
}

/**
 * forceCloseConnections cuts every socket at close(), in-flight requests included; count the
 * requests in flight and let preClose wait for them (bounded) first. Event streams never end
 * on their own, so they are not waited for.
 */
function drainOnClose(app: FastifyInstance): void {
  let inFlight = 0;
  let drained: (() => void) | null = null;
  app.addHook('onRequest', async (req, reply) => {
    if ((req.headers.accept ?? '').includes('text/event-stream')) return;
    inFlight++;
    reply.raw.once('close', () => {
      if (--inFlight === 0) drained?.();
    });
  });
  app.addHook('preClose', async () => {
    if (inFlight === 0) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, DRAIN_TIMEOUT_MS);
      drained = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  });
}

/** `%3A` (either case) before a letter in the path becomes `:`; the query string is left alone. */
export function rewriteCustomVerb(url: string): string {
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  if (!/%3a/i.test(path)) return url;
  return path.replace(/%3a(?=[A-Za-z])/gi, ':') + (q === -1 ? '' : url.slice(q));
}

/** Path parameters longer than this are refused by the router itself (414), before any route runs. */
export const MAX_PARAM_LENGTH = 256;

/** A problem for statuses outside the vocabulary's table (414, 431, 408): the class of error is BAD_REQUEST. */
const transportProblem = (status: number, title: string, detail: string): Problem => ({ ...problem('BAD_REQUEST', detail), status, title });

/** Errors fastify's router raises before any route or hook runs. */
function frameworkError(err: Error & { code?: string }, _req: FastifyRequest, reply: FastifyReply) {
  if (err.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    return sendProblem(reply, transportProblem(414, 'URI Too Long', `A path parameter is longer than ${MAX_PARAM_LENGTH} characters`));
  }
  if (err.code === 'FST_ERR_BAD_URL') return sendProblem(reply, problem('BAD_REQUEST', 'The URL path is not validly percent-encoded'));
  return sendProblem(reply, problem('INTERNAL', 'Internal server error'));
}

/**
 * Requests Node's HTTP parser refuses never reach fastify: answer them as problem+json on the
 * socket, as fastify's default handler does in its own JSON.
 */
function clientError(err: Error & { code?: string }, socket: Socket) {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const body =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? transportProblem(431, 'Request Header Fields Too Large', 'The request headers are too large')
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? transportProblem(408, 'Request Timeout', 'The request took too long to arrive')
        : problem('BAD_REQUEST', 'The request is not valid HTTP');
  const text = JSON.stringify(body);
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${body.status} ${body.title}\r\nContent-Type: application/problem+json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
    );
  }
  socket.destroy(err);
}

/**
 * The HTTP door of the input rules (core/input.ts): path parameters, query string and JSON body
 * of every route. GraphQL requests carry their input in variables and literals, which the policy
 * checker holds to the same rules per argument, so their bodies are left to it.
 */
async function cleanInput(req: FastifyRequest): Promise<void> {
  assertCleanInput(req.params);
  assertCleanInput(req.query);
  if (!req.routeOptions.url?.startsWith('/graphql')) assertCleanInput(req.body);
}

/**
 * Every 401 names the scheme that would do (RFC 9110 §11.6.1), and says the token was refused
 * where one was presented (RFC 6750 §3): GraphQL, REST, streams and ingress alike.
 */
function challengeUnauthenticated(app: FastifyInstance): void {
  app.addHook('onSend', async (req, reply, payload) => {
    if (reply.statusCode !== 401 || reply.hasHeader('www-authenticate')) return payload;
    // Handlers that resolve the token without noting it (streams, signed assets) refuse only bad tokens with 401.
    const note = noteOf(req);
    const refused = note.tokenRefused || (req.headers.authorization !== undefined && !note.userId);
    reply.header('www-authenticate', refused ? 'Bearer realm="souk", error="invalid_token"' : 'Bearer realm="souk"');
    return payload;
  });
}

/** Whose X-Forwarded-For is believed: one function for fastify's `req.ip` and the early answers' address. */
function trustOf(config: Deps['config']): ((address: string, hop: number) => boolean) | false {
  if (config.trustProxyHops > 0) return (_address, hop) => hop < config.trustProxyHops;
  return config.trustProxy.length ? proxyAddr.compile(config.trustProxy) : false;
}

/** The CORS plugin, where it is on (SOUK_CORS_ORIGINS), varies every answer by Origin: an early one too. */
function varyByOrigin(headers: Record<string, string>): Record<string, string> {
  const vary = headers.vary;
  if (vary && /(^|,)\s*origin\s*(,|$)/i.test(vary)) return headers;
  return { ...headers, vary: vary ? `${vary}, Origin` : 'Origin' };
}

/** Writes an early answer with its request id, and logs and counts it as the request hooks do a routed one. */
function sendEarly(deps: Deps, req: IncomingMessage, res: ServerResponse, answer: EarlyAnswer, started: number): void {
  const reqId = requestId(req);
  const headers = deps.config.corsOrigins.length ? varyByOrigin(answer.headers) : answer.headers;
  res.writeHead(answer.status, { 'x-request-id': reqId, ...headers });
  res.end();
  const ms = performance.now() - started;
  deps.metrics?.request('GET', answer.route, answer.status, ms / 1000);
  deps.log.info({ reqId, method: 'GET', route: answer.route, status: answer.status, ms: Math.round(ms * 10) / 10, ...(answer.storeId ? { storeId: answer.storeId } : {}) }, 'request');
}

/**
 * The HTTP server fastify runs on, with the modules' early answers in front of its router
 * (`Module.early`): a GET one of them answers from memory costs no routing, hook or context.
 * Sets on the server what fastify sets on one it makes itself.
 */
function serverWithEarlyAnswers(deps: Deps, answerers: EarlyAnswerer[], trust: ReturnType<typeof trustOf>, closing: () => boolean): FastifyServerFactory {
  return (handler, options) => {
    const opts = options as { http?: object; keepAliveTimeout: number; requestTimeout: number; connectionTimeout: number; maxRequestsPerSocket: number };
    const server = createServer(opts.http ?? {}, (req, res) => {
      if (req.method === 'GET' && !closing()) {
        const started = performance.now();
        try {
          const ip = (trust ? proxyAddr(req, trust) : req.socket.remoteAddress) ?? '';
          for (const early of answerers) {
            const answer = early(req, ip);
            if (answer) return sendEarly(deps, req, res, answer, started);
          }
        } catch (err) {
          // An early answer is an optimization: whatever went wrong, the router answers instead.
          if (res.headersSent) return void res.destroy();
          deps.log.error({ err }, 'an early answer failed; routing the request');
        }
      }
      handler(req, res);
    });
    server.keepAliveTimeout = opts.keepAliveTimeout;
    server.requestTimeout = opts.requestTimeout;
    server.setTimeout(opts.connectionTimeout);
    if (opts.maxRequestsPerSocket > 0) server.maxRequestsPerSocket = opts.maxRequestsPerSocket;
    return server;
  };
}

export async function createHttpServer(deps: Deps, schema: GraphQLSchema): Promise<HttpServer> {
  const trust = trustOf(deps.config);
  const answerers = deps.modules.flatMap((m) => (m.early ? [m.early(deps)] : []));
  let closing = false;
  const app = Fastify({
    ...(answerers.length ? { serverFactory: serverWithEarlyAnswers(deps, answerers, trust, () => closing) } : {}),
    loggerInstance: deps.log as unknown as FastifyBaseLogger,
    // logRequests writes one line per request instead of fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: requestId,
    bodyLimit: BODY_LIMIT,
    forceCloseConnections: true,
    // The proxies an operator names (hops, or addresses and networks) are believed (X-Forwarded-For); otherwise the socket's address counts.
    trustProxy: trust,
    // AIP-136 custom verbs may arrive percent-encoded (`/v1/things%3AbatchDelete`).
    rewriteUrl: (req) => rewriteCustomVerb(req.url ?? '/'),
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: frameworkError,
    clientErrorHandler: clientError,
  });
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('preValidation', cleanInput);
  const methodsOf = routeMethods(app, MAX_PARAM_LENGTH);

  drainOnClose(app);
  logRequests(app, deps);
  sendNotedCookies(app);
  challengeUnauthenticated(app);
  await allowOrigins(app, deps.config.corsOrigins, deps.modules.flatMap((m) => m.http?.corsPrefixes ?? []));

  // JSON only: a text body would otherwise reach routes as a string.
  app.removeContentTypeParser('text/plain');
  // An empty body with a JSON content type counts as no body (clients send the header on every call).
  const jsonParser = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: BODY_LIMIT }, (req, body, done) => {
    if (typeof body === 'string' && body.trim() === '') return done(null, undefined);
    return jsonParser(req, body as string, done);
  });
  // RFC 7396 merge patches (PATCH of shipping prices) are JSON under their own media type.
  app.addContentTypeParser('application/merge-patch+json', { parseAs: 'string', bodyLimit: BODY_LIMIT }, (req, body, done) => jsonParser(req, body as string, done));

  app.setErrorHandler((err: Error & { code?: string; statusCode?: number }, req, reply) => {
    if (err instanceof AppError) return sendProblem(reply, problem(err.code, err.message, err.errors, err.details), err.headers);
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return sendProblem(reply, problem('PAYLOAD_TOO_LARGE', `The request body is over ${BODY_LIMIT} bytes`));
    if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return sendProblem(reply, problem('BAD_REQUEST', 'The request body must be JSON (Content-Type: application/json)'));
    if (err instanceof SyntaxError || err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') {
      return sendProblem(reply, problem('BAD_REQUEST', 'The request body is not valid JSON'));
    }
    if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
      return sendProblem(reply, problem('BAD_REQUEST', 'The request is malformed'));
    }
    req.log.error({ err }, 'unhandled error');
    return sendProblem(reply, problem('INTERNAL', 'Internal server error'));
  });
  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split('?')[0];
    const allow = methodsOf(req.url).join(', ');
    if (!allow) return sendProblem(reply, problem('NOT_FOUND', `No route ${req.method} ${path}`));
    return sendProblem(reply, problem('METHOD_NOT_ALLOWED', `${path} does not take ${req.method}; it takes ${allow}`), { allow });
  });

  registerProbes(app, deps);

  const limits = graphqlLimits();
  // One context per request: the hook below resolves the token, the GraphQL handlers reuse it.
  const contexts = new WeakMap<FastifyRequest, Ctx>();
  const requestContext = async (req: FastifyRequest): Promise<Ctx> => {
    let ctx = contexts.get(req);
    if (!ctx) {
      ctx = noteContext(req, await createContext(deps, req.headers.authorization, req.ip));
      contexts.set(req, ctx);
    }
    return ctx;
  };
  // A presented bearer token that is unknown, expired or revoked is refused before anything runs,
  // on every route: GraphQL (even `{ __typename }`), REST, and the routes that need no token
  // (provider ingress, signed asset URLs, probes). Another scheme is left to the route: a provider
  // may carry its own credentials (Stripe's basic auth in the endpoint URL).
  app.addHook('preHandler', async (req, reply) => {
    if (tokenCheckedByRoute(req)) return;
    const path = req.url.split('?')[0];
    // The Feeef face reads its SDK's empty `Bearer ` as no token.
    const header = path.startsWith(FEEEF_PREFIX) ? normalizeAuthorization(req.headers.authorization) : req.headers.authorization;
    const graphql = path === '/graphql' || path === '/graphql/stream';
    // GraphQL has no provider credentials to carry: any scheme there is checked (and refused).
    if (header === undefined || (!graphql && !/^Bearer(?:\s|$)/i.test(header.trim()))) return;
    const ctx = graphql ? await requestContext(req) : noteContext(req, await createContext(deps, header, req.ip));
    if (!ctx.authFailure) return;
    if (!graphql) return sendProblem(reply, problem('UNAUTHENTICATED', ctx.authFailure));
    return reply
      .code(401)
      .type('application/json; charset=utf-8')
      .send({ errors: [{ message: ctx.authFailure, extensions: { code: 'UNAUTHENTICATED' } }] });
  });

  const apollo = new ApolloServer<Ctx>({
    gateway: compiledExecution(schema),
    formatError: formatGraphQLError,
    includeStacktraceInErrorResponses: false,
    stopOnTerminationSignals: false,
    validationRules: limits.validationRules,
    parseOptions: limits.parseOptions,
    plugins: [
      fastifyApolloDrainPlugin(app) as ApolloServerPlugin<Ctx>,
      errorCodesPlugin,
      unauthenticatedStatusPlugin,
      ...(limits.plugins as ApolloServerPlugin<Ctx>[]),
      // No cache hints are set anywhere; the default plugin would still visit every resolved field.
      ApolloServerPluginCacheControlDisabled() as ApolloServerPlugin<Ctx>,
      // Browsers get GraphiQL from this server (explore.ts), never a page that loads a CDN.
      ApolloServerPluginLandingPageDisabled() as ApolloServerPlugin<Ctx>,
    ],
    // The schema is public (schema/schema.graphql); SOUK_GRAPHQL_INTROSPECTION=0 turns introspection off.
    introspection: deps.config.graphqlIntrospection,
    // Apollo's CSRF check wants a header no simple cross-site request can carry. Authorization is
    // one (browsers preflight it), so a GET with a bearer token passes as it is; an anonymous GET
    // still names apollo-require-preflight, in case an ambient credential ever appears.
    csrfPrevention: { requestHeaders: ['apollo-require-preflight', 'x-apollo-operation-name', 'authorization'] },
  });
  await apollo.start();
  serveGraphiql(app);
  await app.register(fastifyApollo(apollo), {
    path: '/graphql',
    method: ['GET', 'POST', 'OPTIONS'],
    context: (req: FastifyRequest) => requestContext(req),
  } as never);

  registerGraphqlStream(app, deps, {
    schema,
    validationRules: limits.validationRules,
    parseOptions: limits.parseOptions,
    context: requestContext,
    release: (req) => contexts.delete(req),
    formatError: formatGraphQLError,
  });

  const compiled = compileRoutes(schema);
  // Built on first request, not on the way to ready: few processes are ever asked for it.
  let openapi: ReturnType<typeof buildOpenApi> | undefined;
  const openApiDocument = () => {
    if (openapi) return openapi;
    openapi = buildOpenApi(schema, compiled, deps.config.publicUrl);
    // Routes modules serve outside the table (event streams) are documented beside it.
    for (const m of deps.modules) if (m.http?.paths) Object.assign(openapi.paths as OpenApiPaths, m.http.paths);
    return openapi;
  };
  app.get('/v1/openapi.json', async () => openApiDocument());
  registerRoutes(app, deps, schema, compiled);
  registerFeeef(app, deps, schema);
  for (const m of deps.modules) m.http?.register(app, deps);

  return { app, apollo };
}
