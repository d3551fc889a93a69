import type { Ctx } from '../../src/core/context.js';
import { AppError, invalid } from '../../src/core/errors.js';
import type { HttpMethod, RestReply, RestRequest, RestRoute, RouteTools } from '../route.js';

/**
 * The Feeef face's route entries: each is a RestRoute with a `handle`, so the shared router
 * registers it and the shared OpenAPI builder documents its policy, while the face speaks
 * Feeef's request and answer shapes (its SDK, `feeefapp/feeef.js`, is the client).
 */

export const PREFIX = '/feeef/v1';

/** What a face handler works with: the request read the Feeef way, and the GraphQL runner. */
export interface Call {
  params: Record<string, string>;
  query: Query;
  /** The JSON or form body as an object (`{}` when there is none). */
  body: Record<string, unknown>;
  run: RouteTools['run'];
  ctx: Ctx;
  /** The bearer token presented, when there is one (the face echoes it in auth answers). */
  bearer: string | undefined;
  /** The request's headers (Idempotency-Key for the storefront's checkout). */
  headers: RestRequest['headers'];
}

/** A query parameter's documentation and kind; lists accept `key[]=a&key[]=b`, repeats and commas. */
export interface Param {
  type: 'string' | 'integer' | 'boolean' | 'list';
  description?: string;
}

export interface FeeefRoute {
  method: HttpMethod;
  /** Below the prefix: `/products/{id}`. */
  path: string;
  summary: string;
  /** The GraphQL document whose field's policy the route has (OpenAPI `security`, `x-souk-policy`). */
  operation: string;
  /** Further documents the handler runs. */
  operations?: string[];
  /** Query parameters the route reads; any other is refused (400). */
  query?: Record<string, Param>;
  /** The request body's schema (OpenAPI), for routes that read one. */
  body?: Record<string, unknown>;
  /** The success status and the answer's schema. */
  status?: 200 | 201 | 202 | 204;
  response?: Record<string, unknown>;
  /** Other statuses the route answers (501 for a provider Souk lacks, 400 ABORTED batches). */
  responses?: Record<string, Record<string, unknown>>;
  /** Calls a provider while answering (429, 502, 503 may come back). */
  upstream?: boolean;
  /** Error statuses beyond those of its method and policy (429 of the storefront's limits, 503 without geo data). */
  errors?: number[];
  handle: (call: Call) => Promise<unknown>;
}

/** A handler's answer with a status other than the route's own. */
export class Reply {
  constructor(
    readonly status: number,
    readonly body?: unknown,
    readonly headers?: Record<string, string>,
  ) {}
}

/** A Feeef `Bearer` header without a token (`Bearer `, `Bearer undefined`, `Bearer null`), as its SDK sends before sign-in. */
const EMPTY_BEARER = /^Bearer(?:\s+(?:undefined|null))?\s*$/i;

export const normalizeAuthorization = (header: string | undefined): string | undefined =>
  header === undefined || EMPTY_BEARER.test(header.trim()) ? undefined : header;

const bearerOf = (header: string | undefined): string | undefined => /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1];

/** The query string read the Feeef way: `key[]` arrays, repeats, typed reads that refuse bad values with 400. */
export class Query {
  private readonly values = new Map<string, string[]>();

  constructor(raw: Record<string, unknown>, accepted: Record<string, Param>) {
    const unknown: string[] = [];
    for (const [rawKey, value] of Object.entries(raw)) {
      const key = rawKey.endsWith('[]') ? rawKey.slice(0, -2) : rawKey;
      const list = (Array.isArray(value) ? value : [value]).map(String);
      if (!(key in accepted)) unknown.push(key);
      else this.values.set(key, [...(this.values.get(key) ?? []), ...list]);
    }
    if (unknown.length) {
      throw new AppError('BAD_REQUEST', `Unknown query parameter: ${unknown.join(', ')}`, unknown.map((path) => ({ path, message: 'is not a known query parameter' })));
    }
  }

  has(key: string): boolean {
    return this.values.has(key);
  }

  string(key: string): string | undefined {
    const v = this.values.get(key);
    if (!v) return undefined;
    if (v.length > 1) throw invalid(key, 'is given more than once');
    return v[0];
  }

  /** The first of several spellings that is present (`store_id`, `storeId`). */
  first(...keys: string[]): string | undefined {
    for (const k of keys) {
      const v = this.string(k);
      if (v !== undefined && v !== '') return v;
    }
    return undefined;
  }

  integer(key: string, min = 0, max = 1_000_000_000): number | undefined {
    const v = this.string(key);
    if (v === undefined || v === '') return undefined;
    if (!/^-?\d{1,10}$/.test(v) || Number(v) < min || Number(v) > max) throw invalid(key, `must be an integer from ${min} to ${max}`);
    return Number(v);
  }

  boolean(key: string): boolean | undefined {
    const v = this.string(key);
    if (v === undefined || v === '') return undefined;
    if (v === 'true' || v === '1') return true;
    if (v === 'false' || v === '0') return false;
    throw invalid(key, 'must be true or false');
  }

  list(key: string): string[] | undefined {
    const v = this.values.get(key);
    return v ? v.flatMap((s) => s.split(',')).filter((s) => s !== '') : undefined;
  }
}

/** Query parameters every list route takes. */
export const PAGE_PARAMS: Record<string, Param> = {
  page: { type: 'integer', description: 'Page number, from 1' },
  limit: { type: 'integer', description: 'Items per page, 1 to 200 (default 50)' },
  offset: { type: 'integer', description: 'Items to skip instead of a page number' },
};

/** `?by=` on finds and deletes: Feeef's SDK always sends `by=id`. */
export const BY_ID: Record<string, Param> = { by: { type: 'string', description: 'Only `id`' } };

export function assertById(q: Query): void {
  const by = q.string('by');
  if (by !== undefined && by !== 'id') throw invalid('by', 'must be id');
}

function bodyObject(body: unknown): Record<string, unknown> {
  if (body === undefined || body === null) return {};
  if (Buffer.isBuffer(body)) throw new AppError('BAD_REQUEST', 'The request body must be JSON (Content-Type: application/json) or a form');
  if (typeof body !== 'object' || Array.isArray(body)) throw invalid('', 'must be a JSON object');
  return body as Record<string, unknown>;
}

/**
 * The face's operationIds follow its paths (`POST /users/auth/code/consume` →
 * `feeefPostUsersAuthCodeConsume`): stable, and apart from /v1's, which name GraphQL fields.
 */
function operationIdOf(r: FeeefRoute): string {
  const words = r.path.split('/').flatMap((seg) => seg.replace(/[{}]/g, '').split(/[^A-Za-z0-9]+/)).filter(Boolean);
  const camel = [r.method.toLowerCase(), ...words].map((w) => w[0].toUpperCase() + w.slice(1)).join('');
  return `feeef${camel}`;
}

/** Turns a face entry into a table entry for the shared router and OpenAPI builder. */
export function toRestRoute(r: FeeefRoute, tag: string): RestRoute {
  return {
    method: r.method,
    path: PREFIX + r.path,
    summary: r.summary,
    operation: r.operation,
    operations: r.operations,
    status: r.status,
    tags: [tag],
    operationId: operationIdOf(r),
    ...(r.upstream ? { upstream: true } : {}),
    ...(r.errors ? { errors: r.errors } : {}),
    ...(r.response ? { responseSchema: r.response } : {}),
    ...(r.responses ? { extraResponses: r.responses } : {}),
    handle: async (req: RestRequest, tools: RouteTools): Promise<RestReply> => {
      const call: Call = {
        params: req.params,
        query: new Query(req.query, r.query ?? {}),
        body: bodyObject(req.body),
        run: tools.run,
        ctx: tools.ctx,
        bearer: bearerOf(normalizeAuthorization(typeof req.headers.authorization === 'string' ? req.headers.authorization : undefined)),
        headers: req.headers,
      };
      const value = await r.handle(call);
      if (value instanceof Reply) return { status: value.status, body: value.body, headers: value.headers };
      const status = r.status ?? 200;
      return status === 204 ? { status } : { status, body: value };
    },
  };
}

/** Feeef products Souk does not have: 501 naming the group. */
export const notImplemented = (group: string, detail?: string) =>
  new AppError('NOT_IMPLEMENTED', detail ?? `${group} is a Feeef feature Souk does not have; this face answers 501 for the whole group`);
