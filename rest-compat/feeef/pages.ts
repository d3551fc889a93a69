import { AppError } from '../../src/core/errors.js';
import { ProblemError } from '../router.js';
import { missing, storeFor } from './locate.js';
import { assertById, type Call, type FeeefRoute, type Param, type Query } from './route.js';

/**
 * Feeef lists are numbered pages, `{data, meta: {total, currentPage, perPage, lastPage}}`; Souk's
 * are cursor pages (`limit` up to 200, `nextCursor`). A page here is read by walking Souk's
 * cursors 200 rows at a time. `total` is exact when the walk reaches the end within
 * SCAN_LIMIT rows (or when the route knows it, as orders do from their status counts); past
 * that, `total` counts the rows walked and `meta.totalExact` is false. Filters Souk's fields do
 * not take are applied to the walked rows, so they need the whole list within SCAN_LIMIT.
 */

export const SCAN_LIMIT = 2000;
const CHUNK = 200;
const DEFAULT_PER_PAGE = 50;

export interface PageArgs {
  page: number;
  perPage: number;
  start: number;
}

export function pageArgs(q: Query): PageArgs {
  const perPage = q.integer('limit', 1, 200) ?? DEFAULT_PER_PAGE;
  const offset = q.integer('offset', 0);
  const page = q.integer('page', 1) ?? (offset !== undefined ? Math.floor(offset / perPage) + 1 : 1);
  return { page, perPage, start: offset ?? (page - 1) * perPage };
}

export interface SoukPage<T> {
  data: T[];
  nextCursor: string | null;
}

export type Fetch<T> = (cursor: string | null, limit: number) => Promise<SoukPage<T>>;

/** Rows in Souk's order until `until` rows are read or the list ends. */
export async function scan<T>(fetch: Fetch<T>, until: number): Promise<{ rows: T[]; complete: boolean }> {
  const rows: T[] = [];
  let cursor: string | null = null;
  for (;;) {
    const page: SoukPage<T> = await fetch(cursor, CHUNK);
    rows.push(...page.data);
    if (!page.nextCursor) return { rows, complete: true };
    if (rows.length >= until) return { rows, complete: false };
    cursor = page.nextCursor;
  }
}

export interface ListOptions<T> {
  map: (row: T) => unknown;
  /** Applied to the walked rows (filters Souk's field does not take). */
  filter?: ((row: T) => boolean) | null;
  /** The exact count of the list when it is cheap to know (orders). */
  total?: number;
  /** Reorders the walked rows (several stores merged). */
  sort?: (a: T, b: T) => number;
}

/** Feeef's page envelope around walked rows. */
export function envelope<T>(args: PageArgs, rows: T[], complete: boolean, opts: ListOptions<T>) {
  const total = opts.total ?? rows.length;
  const exact = opts.total !== undefined || complete;
  return {
    data: rows.slice(args.start, args.start + args.perPage).map(opts.map),
    meta: {
      total,
      perPage: args.perPage,
      currentPage: args.page,
      lastPage: Math.max(1, Math.ceil(total / args.perPage)),
      firstPage: 1,
      ...(exact ? {} : { totalExact: false }),
    },
  };
}

export async function pageList<T>(args: PageArgs, fetch: Fetch<T>, opts: ListOptions<T>) {
  const needed = args.start + args.perPage;
  const { rows, complete } = await scan(fetch, opts.total !== undefined && !opts.filter ? needed : Math.max(needed, SCAN_LIMIT));
  if (opts.filter && !complete) throw tooManyToFilter();
  const kept = opts.filter ? rows.filter(opts.filter) : rows;
  if (opts.sort) kept.sort(opts.sort);
  return envelope(args, kept, complete, opts);
}

export const tooManyToFilter = () =>
  new AppError('VALIDATION_FAILED', `These filters are applied over at most ${SCAN_LIMIT} rows; narrow the list with the filters Souk takes (store, status, q, dates)`, [
    { path: '', message: `the list is longer than ${SCAN_LIMIT} rows` },
  ]);

/** A run on a located resource: a store the caller cannot see answers as if the resource did not exist. */
export async function located<T>(id: string, work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof ProblemError && err.problem.code === 'NOT_FOUND') throw missing(id);
    throw err;
  }
}

/** Query parameters of a flat resource route: the store may be named instead of looked up. */
export const STORE_PARAMS: Record<string, Param> = { store_id: { type: 'string' }, storeId: { type: 'string' } };
export const FIND_PARAMS: Record<string, Param> = { ...STORE_PARAMS, by: { type: 'string', description: 'Only id' } };

/**
 * Runs a document on the resource `{id}` of the path in its store (another store's resource is
 * a 404); with no prefixes the resource belongs to no store (users, apps).
 */
export async function onResource(call: Call, prefixes: string[], vars: Record<string, unknown> | (() => Record<string, unknown>) = {}, operation?: string): Promise<any> {
  const id = call.params.id;
  const values = () => (typeof vars === 'function' ? vars() : vars);
  if (!prefixes.length) return call.run({ id, ...values() }, operation ? { operation } : {});
  // The store and the caller's place in it first; the body (a function) is read only then.
  const storeId = await storeFor(call, id, prefixes);
  return located(id, call.run({ storeId, id, ...values() }, operation ? { operation } : {}));
}

/** `GET /{resources}/{id}?by=id`: the resource, from its own store. */
export const findRoute = (r: Pick<FeeefRoute, 'path' | 'summary' | 'operation' | 'response'> & { prefixes: string[]; map: (row: any) => unknown; query?: Record<string, Param> }): FeeefRoute => ({
  method: 'GET',
  path: r.path,
  summary: r.summary,
  operation: r.operation,
  query: r.query ?? FIND_PARAMS,
  response: r.response,
  handle: async (call) => {
    assertById(call.query);
    return r.map(await onResource(call, r.prefixes));
  },
});

/** `DELETE /{resources}/{id}?by=id` → 204. */
export const deleteRoute = (r: Pick<FeeefRoute, 'path' | 'summary' | 'operation'> & { prefixes: string[]; query?: Record<string, Param> }): FeeefRoute => ({
  method: 'DELETE',
  path: r.path,
  summary: r.summary,
  operation: r.operation,
  query: r.query ?? FIND_PARAMS,
  status: 204,
  handle: async (call) => {
    assertById(call.query);
    await onResource(call, r.prefixes);
  },
});
