import { isIP } from 'node:net';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Ctx } from '../../core/context.js';
import { AppError, notFound } from '../../core/errors.js';
import { executePreparedWhere } from '../../db/prepared.js';
import { LIMIT_WINDOWS, storefrontSettings, type StorefrontSettings } from '../stores/store.storefront.js';
import { storefrontKeyOf } from './storefront-keys.service.js';
import { takeReadSlot } from './storefront-limits.js';

/**
 * How a shopper reaches a store (CONTRACT-3 §17.2): the store named by its id or slug, open
 * (`storefront.enabled`), and who the buyer is (the socket's address, or the one a storefront
 * server key vouches for). Unknown, deleted and closed stores are the same 404.
 */

/** The stores a shopper may reach, by `?` = the id or slug given (bound twice). */
export const OPEN_STORE = `select id, slug, name, currency, logo_url, storefront from stores
  where (id = ? or slug = ?) and coalesce((storefront->>'enabled')::boolean, true)`;

/** A store as a storefront statement reads it. */
export interface OpenStoreRow {
  id: string;
  slug: string;
  name: string;
  currency: string;
  logo_url: string | null;
  storefront: unknown;
}

/** An open store with its settings filled in. */
export interface OpenStore {
  id: string;
  slug: string;
  name: string;
  currency: string;
  logoUrl: string | null;
  settings: StorefrontSettings;
}

export const closedStore = () => notFound('store');

export function openStoreOf(ctx: Ctx, row: OpenStoreRow): OpenStore {
  return { id: row.id, slug: row.slug, name: row.name, currency: row.currency, logoUrl: row.logo_url, settings: storefrontSettings(row.storefront, ctx.deps.config) };
}

/** Reads are named prepared statements (planned once per connection), in the caller's transaction where it has one. */
export function storefrontRead<T>(ctx: Ctx, sql: string, params: unknown[]): Promise<T[]> {
  return executePreparedWhere<T>(ctx.em as EntityManager, sql, params);
}

export async function findOpenStore(ctx: Ctx, ref: string): Promise<OpenStore> {
  const [row] = await storefrontRead<OpenStoreRow>(ctx, OPEN_STORE, [ref, ref]);
  if (!row) throw closedStore();
  return openStoreOf(ctx, row);
}

/** What one request learned about its shopper, per store (a GraphQL request may read several fields). */
interface Admission {
  address: string;
}
const admissions = new WeakMap<Ctx, Map<string, Promise<Admission>>>();
/** The store a request admitted, when it was exactly one (a catalogue read's answer is remembered under it). */
const admitted = new WeakMap<Ctx, OpenStore | null>();
export const admittedStore = (ctx: Ctx): OpenStore | undefined => admitted.get(ctx) ?? undefined;

export const STOREFRONT_KEY_HEADER = 'x-souk-storefront-key';
export const BUYER_IP_HEADER = 'x-souk-buyer-ip';

/**
 * The buyer's address: with a valid server key of this store, the `X-Souk-Buyer-IP` it names;
 * otherwise the request's own (the socket's, or the one `SOUK_TRUST_PROXY` hops back). A key that
 * is unknown or revoked is refused (401); a key of another store vouches for nothing here.
 */
async function buyerAddress(ctx: Ctx, storeId: string): Promise<string> {
  const presented = await presentedBuyer(ctx);
  if (!presented) throw new AppError('UNAUTHENTICATED', 'Unknown or revoked storefront key');
  return presented.keyStore === null || presented.keyStore === storeId ? presented.address : ctx.ip;
}

/**
 * The shopper's address as the request presents it, before its store is known: the socket's, or
 * with a server key the one it names (`keyStore`: the key's store, the only one it speaks for).
 * Null for an unknown or revoked key.
 */
export async function presentedBuyer(ctx: Ctx): Promise<{ keyStore: string | null; address: string } | null> {
  const presented = ctx.header?.(STOREFRONT_KEY_HEADER);
  if (presented === undefined || presented === '') return { keyStore: null, address: ctx.ip };
  const key = await storefrontKeyOf(ctx.deps, presented);
  if (!key) return null;
  const claimed = ctx.header?.(BUYER_IP_HEADER)?.trim();
  return { keyStore: key.storeId, address: claimed && isIP(claimed) ? claimed : ctx.ip };
}

/** A header the edge removes before answering: the store's list decided this answer's CORS. */
export const STORE_DECIDED_CORS = 'x-souk-store-cors';

/**
 * CORS of the storefront routes: the request's Origin when the store lists it, any origin when
 * its list is empty, never credentials. A store with a list varies by Origin, and a denied origin
 * gets no Allow-Origin at all (the edge gives `*` only where no store decided).
 */
export function allowOrigin(ctx: Ctx, settings: StorefrontSettings): void {
  if (!ctx.setHeader) return;
  // The store decided (the CORS plugin varies by Origin on every answer, so Vary cannot say it).
  if (settings.allowedOrigins.length) ctx.setHeader(STORE_DECIDED_CORS, '1');
  for (const [name, value] of Object.entries(storeCors(settings, ctx.header?.('origin')))) ctx.setHeader(name, value);
}

/** The CORS headers a store's settings give an answer to `origin`. */
export function storeCors(settings: StorefrontSettings, origin: string | undefined): Record<string, string> {
  if (!settings.allowedOrigins.length) return { 'access-control-allow-origin': '*' };
  const asked = origin?.toLowerCase();
  return asked && settings.allowedOrigins.includes(asked) ? { vary: 'Origin', 'access-control-allow-origin': asked } : { vary: 'Origin' };
}

/** Response headers a shopper's browser may read. */
export const SHOPPER_EXPOSED_HEADERS = ['etag', 'location', 'retry-after', 'idempotent-replayed', 'x-request-id'].join(', ');

/**
 * Lets the request's shopper in, once per request and store: CORS, the buyer's address, and (for
 * reads and cart pricing) the per-address read limit. Returns the buyer's address.
 */
export function admit(ctx: Ctx, store: OpenStore, opts: { countRead: boolean }): Promise<Admission> {
  let byStore = admissions.get(ctx);
  if (!byStore) admissions.set(ctx, (byStore = new Map()));
  let admission = byStore.get(store.id);
  if (!admission) {
    admitted.set(ctx, admitted.has(ctx) ? null : store);
    admission = (async () => {
      allowOrigin(ctx, store.settings);
      const address = await buyerAddress(ctx, store.id);
      if (opts.countRead) await takeReadSlot(ctx.deps, store.id, address, { max: store.settings.limits.readsPerAddress, windowMs: LIMIT_WINDOWS.readsPerAddress });
      return { address };
    })();
    byStore.set(store.id, admission);
  }
  return admission;
}
