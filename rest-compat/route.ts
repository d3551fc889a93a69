/**
 * A domain that knows when its answers change remembers the ETag each URL answered, and answers a
 * conditional GET naming it with 304 without the read while its data has not moved.
 */
export interface Revalidation {
  /** Before the operation runs: what `remember` compares to (a change since then forgets the answer). */
  mark(req: RestRequest, deps: import('../src/core/context.js').Deps): unknown;
  /** The remembered ETag when `ifNoneMatch` names it and it still stands (the caller admitted as a read would be); else undefined. */
  notModified(ctx: import('../src/core/context.js').Ctx, req: RestRequest, url: string, ifNoneMatch: string): Promise<string | undefined>;
  /** After a successful answer: its URL, the route's pattern, its ETag and Cache-Control. */
  remember(ctx: import('../src/core/context.js').Ctx, req: RestRequest, mark: unknown, answered: { url: string; route: string; etag: string; cacheControl?: string }): void;
}

/** One REST route: data, turned into a handler and an OpenAPI entry by the router alone. */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RestRequest {
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
  headers: Record<string, string | string[] | undefined>;
}

/** A response the route builds itself: a status other than the table's, headers, bytes. */
export interface RestReply {
  status: number;
  headers?: Record<string, string>;
  /** JSON-serialized unless a Buffer or string (then sent as is, with the content-type header given). */
  body?: unknown;
}

/** What a provider ingress handler sees: the raw body bytes, kept for signature checks. */
export interface IngressRequest {
  params: Record<string, string>;
  query: Record<string, unknown>;
  headers: Record<string, string | string[] | undefined>;
  rawBody: Buffer;
  ip: string;
}

/** What a route that drives its GraphQL itself (`RestRoute.handle`) is given. */
export interface RouteTools {
  /**
   * Runs the route's operation (or one of its `operations`) with the request's context, or with
   * a context of another `authorization` header (null: anonymous); answers the root field's value
   * and throws a `ProblemError` (the same problem+json as a table route) when GraphQL refuses.
   */
  run(variables: Record<string, unknown>, opts?: { operation?: string; authorization?: string | null }): Promise<any>;
  ctx: import('../src/core/context.js').Ctx;
}

export interface RestRoute {
  method: HttpMethod;
  /**
   * OpenAPI-style path, `{name}` for parameters; each becomes the variable of the same name.
   * A custom verb glued to a collection (`/v1/things:batchDelete`, AIP-136) is written as is.
   */
  path: string;
  summary: string;
  /** One GraphQL operation with one root field; its value is the response body. */
  operation?: string;
  /**
   * A provider ingress route (CONTRACT-2 §9): no bearer token, no GraphQL twin; the handler
   * (a service call) verifies the provider's signature over the raw body.
   */
  ingress?: (req: IngressRequest, deps: import('../src/core/context.js').Deps) => Promise<RestReply>;
  /**
   * The route maps the request and the answer itself, running `operation` (and `operations`) as
   * often as it needs (another table's conventions: a lookup before the write, pages walked).
   * The router then does no query-string or body mapping of its own.
   */
  handle?: (req: RestRequest, tools: RouteTools) => Promise<RestReply>;
  /** Further documents a `handle` route runs, parsed and validated at start like `operation`. */
  operations?: string[];
  /** Build the whole response from the root field's value (redirects, PDFs, conditional GETs). */
  reply?: (value: any, req: RestRequest) => RestReply;
  /** Answer with a strong ETag of the JSON body, and 304 when If-None-Match matches. */
  etag?: boolean;
  /** With `etag`: conditional GETs the domain can answer from memory, without running the operation. */
  revalidate?: Revalidation;
  /** `Cache-Control` of the route's successful answers (and its 304s), from the server's configuration. */
  cacheControl?: (config: import('../src/config.js').Config) => string;
  /**
   * `any`: CORS for every origin without credentials, preflights included, whatever
   * SOUK_CORS_ORIGINS lists (public data a browser reads directly, such as the geo lists).
   */
  cors?: 'any';
  /** OpenAPI: other success statuses `reply` may answer with, and non-JSON content types. */
  extraResponses?: Record<string, Record<string, unknown>>;
  /**
   * The variable that receives the JSON body (default `input` when the operation declares it);
   * GraphQL input coercion then refuses unknown fields and wrong types.
   */
  body?: string;
  /** Extra variables computed from the request (path and query variables are mapped by name). */
  variables?: (req: RestRequest) => Record<string, unknown>;
  /** Success status: 200 unless given; 204 sends no body. */
  status?: 200 | 201 | 202 | 204;
  /** Reshape the root field's value; OpenAPI then documents `responseSchema`. */
  result?: (value: any) => unknown;
  /** The response body's schema, given outright or built from the root field's own schema. */
  responseSchema?: Record<string, unknown> | ((field: Record<string, unknown>) => Record<string, unknown>);
  /**
   * The created resource's URL for a 201's Location header, where the router cannot derive it
   * (the item route below a POSTed collection, or a PUT's own URL).
   */
  location?: (body: any, req: RestRequest) => string;
  /** False: a POST mutation that takes no Idempotency-Key (the router honours one on every other). */
  idempotent?: false;
  /** OpenAPI operationId: the root field's name unless given (ingress routes and second routes of one field need one). */
  operationId?: string;
  /** Error statuses the route gives beyond those derived from its method, policy and parameters (429 of a rate limit). */
  errors?: number[];
  /** Calls a provider while answering: 429, 502 and 503 may come back (default: writes of provider groups). */
  upstream?: boolean;
  /** Hand-written OpenAPI examples, where the generated ones would not show the route well. */
  example?: { request?: unknown; response?: unknown };
  /** OpenAPI tags: the route group's name. */
  tags?: string[];
}

export const route = (r: RestRoute): RestRoute => r;

/**
 * REST's `{"data": [...]}` list envelope (CONTRACT §2) around a GraphQL list field: built by
 * the route, so the schema keeps plain lists.
 */
export const dataEnvelope: Pick<RestRoute, 'result' | 'responseSchema'> = {
  result: (value: unknown[]) => ({ data: value }),
  responseSchema: (list) => ({ type: 'object', required: ['data'], properties: { data: list } }),
};
export const group = (tag: string, routes: RestRoute[]): RestRoute[] => routes.map((r) => ({ ...r, tags: r.tags ?? [tag] }));

/** The storefront's caching (CONTRACT-3 §17.2): what a CDN may keep, and what no one may. */
export const CACHE = {
  /** Catalog reads: fresh for SOUK_STOREFRONT_MAX_AGE, then served stale while revalidated for ten times as long. */
  catalog: (config: import('../src/config.js').Config) => `public, max-age=${config.storefrontMaxAgeS}, stale-while-revalidate=${10 * config.storefrontMaxAgeS}`,
  /** Geo data changes with a country's administrative division: a day. */
  geo: () => 'public, max-age=86400, stale-while-revalidate=864000',
  /** Carts, checkouts and orders: never kept. */
  noStore: () => 'no-store',
} as const;
