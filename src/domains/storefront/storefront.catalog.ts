import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Ctx } from '../../core/context.js';
import { invalid, notFound } from '../../core/errors.js';
import { toMajor } from '../../core/money.js';
import { pageLimit } from '../../lib/pagination.js';
import { viewPage } from '../pages/page.service.js';
import type { PageViewType } from '../pages/page.types.js';
import { publishedLandingPage } from '../landing-pages/landing-page.service.js';
import { shippingOptions } from '../shipping/shipping.service.js';
import { isStateCode } from '../geo/geo.data.js';
import { admit, closedStore, findOpenStore, OPEN_STORE, openStoreOf, storefrontRead, type OpenStore, type OpenStoreRow } from './storefront.access.js';
import { SHOPPER_DELIVERY_TYPES, type PRODUCT_SORTS, type PublicLandingPageType, type PublicProductPage, type PublicProductType, type ShippingOptionsType } from './storefront.types.js';

/** The public store (§17.3 `GET /`): nothing else of the store. */
export interface PublicStore {
  id: string;
  slug: string;
  name: string;
  currency: string;
  logoUrl: string | null;
  defaultLocale: string | null;
  locales: string[];
  checkoutEnabled: boolean;
  phoneRegion: string;
}

/** Its languages are those of the store's first template (the one a new storefront starts from). */
const PUBLIC_STORE = `select s.*, t.default_locale,
    coalesce((select array_agg(l.locale order by l.locale) from store_template_locales l where l.template_id = t.id), '{}') as locales
  from (${OPEN_STORE}) s
  left join lateral (select id, default_locale from store_templates where store_id = s.id order by id limit 1) t on true`;

export async function publicStore(ctx: Ctx, ref: string): Promise<PublicStore> {
  const [row] = await storefrontRead<OpenStoreRow & { default_locale: string | null; locales: string[] }>(ctx.deps.db.reads.ctx(ctx), PUBLIC_STORE, [ref, ref]);
  if (!row) throw closedStore();
  const store = openStoreOf(ctx, row);
  await admit(ctx, store, { countRead: true });
  return {
    id: store.id,
    slug: store.slug,
    name: store.name,
    currency: store.currency,
    logoUrl: store.logoUrl,
    defaultLocale: row.default_locale,
    locales: row.locales,
    checkoutEnabled: store.settings.checkoutEnabled,
    phoneRegion: store.settings.phoneRegion,
  };
}

/** An open store a read may go on with (the shopper admitted and counted). */
export async function readableStore(ctx: Ctx, ref: string): Promise<OpenStore> {
  const store = await findOpenStore(ctx, ref);
  await admit(ctx, store, { countRead: true });
  return store;
}

// ─── Products ────────────────────────────────────────────────────────────────

/** A product row as the storefront selects it (the store's columns ride along, prefixed `s_`). */
interface ProductRow {
  id: string | null;
  slug: string;
  name: string;
  description: string | null;
  price: string | number;
  compare_at_price: string | number | null;
  photo_url: string | null;
  images: string[];
  sku: string | null;
  stock: number;
  allow_backorder: boolean;
  created_at: string;
  updated_at: string;
  sort_key?: string | number;
}

type StoreColumns = { s_id: string; s_slug: string; s_name: string; s_currency: string; s_logo_url: string | null; s_storefront: unknown };

const storeOf = (ctx: Ctx, r: StoreColumns) =>
  openStoreOf(ctx, { id: r.s_id, slug: r.s_slug, name: r.s_name, currency: r.s_currency, logo_url: r.s_logo_url, storefront: r.s_storefront });

const iso = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const STORE_COLUMNS = 's.id as s_id, s.slug as s_slug, s.name as s_name, s.currency as s_currency, s.logo_url as s_logo_url, s.storefront as s_storefront';
const PRODUCT_COLUMNS = `p.id, p.slug, p.name, p.description, p.price, p.compare_at_price, p.photo_url, p.images, p.sku, p.stock, p.allow_backorder,
  ${iso('p.created_at')} as created_at, ${iso('p.updated_at')} as updated_at`;

export function publicProduct(p: ProductRow, store: OpenStore): PublicProductType {
  const stock = Math.max(0, p.stock);
  return {
    id: p.id!,
    slug: p.slug,
    name: p.name,
    description: p.description,
    price: toMajor(Number(p.price), store.currency),
    compareAtPrice: p.compare_at_price === null ? null : toMajor(Number(p.compare_at_price), store.currency),
    currency: store.currency,
    photoUrl: p.photo_url,
    images: p.images,
    sku: p.sku,
    inStock: stock > 0 || p.allow_backorder,
    available: store.settings.showStockLevels ? stock : null,
    createdAt: p.created_at,
    updatedAt: p.updated_at,
  };
}

type Sort = (typeof PRODUCT_SORTS)[number];

/** Each sort's key, order and "after the cursor" condition (the key and id compared as a row, as the index orders them). */
const SORTS: Record<Sort, { key: string; order: string; after: string }> = {
  newest: { key: 'p.id', order: 'p.id desc', after: 'p.id < ?' },
  price_asc: { key: 'p.price', order: 'p.price, p.id', after: '(p.price, p.id) > (?::bigint, ?)' },
  price_desc: { key: 'p.price', order: 'p.price desc, p.id desc', after: '(p.price, p.id) < (?::bigint, ?)' },
  name_asc: { key: 'lower(p.name)', order: 'lower(p.name), p.id', after: '(lower(p.name), p.id) > (?, ?)' },
};

/** Statement texts by sort, search and cursor (eight shapes each): fixed texts, prepared once per connection. */
const listStatements = new Map<string, string>();

function listStatement(sort: Sort, search: boolean, after: boolean): string {
  const shape = `${sort}:${search}:${after}`;
  let sql = listStatements.get(shape);
  if (!sql) {
    const s = SORTS[sort];
    sql = `select ${STORE_COLUMNS}, p.* from (${OPEN_STORE}) s
      left join lateral (select ${PRODUCT_COLUMNS}, ${s.key} as sort_key from products p
        where p.store_id = s.id and p.status = 'active'${search ? " and p.name ilike ? escape '\\'" : ''}${after ? ` and ${s.after}` : ''}
        order by ${s.order} limit ?) p on true`;
    listStatements.set(shape, sql);
  }
  return sql;
}

/**
 * Cursors are bound to their list: the sort and search they were issued for, and the store, under
 * an HMAC of the server's key, so one from another list (or altered) is refused rather than read.
 */
interface Cursor {
  key: string | number;
  id: string;
}

const cursorMac = (ctx: Ctx, storeId: string, sort: Sort, q: string, body: string) =>
  createHmac('sha256', ctx.deps.config.secretKey).update(`storefront-products\n${storeId}\n${sort}\n${q}\n${body}`).digest().subarray(0, 12);

function issueCursor(ctx: Ctx, storeId: string, sort: Sort, q: string, c: Cursor): string {
  const body = Buffer.from(JSON.stringify([c.key, c.id])).toString('base64url');
  return `${body}.${cursorMac(ctx, storeId, sort, q, body).toString('base64url')}`;
}

const badCursor = () => invalid('cursor', 'is not a cursor of this list (same store, sort and search)');

/** The cursor's content, read before its store is known (its MAC is checked once it is, `checkCursor`). */
function readCursor(raw: string, sort: Sort): Cursor & { body: string; mac: string } {
  const [body, mac, extra] = raw.split('.');
  if (!body || !mac || extra !== undefined || raw.length > 500) throw badCursor();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    throw badCursor();
  }
  if (!Array.isArray(parsed) || parsed.length !== 2 || typeof parsed[1] !== 'string') throw badCursor();
  const [key, id] = parsed as [unknown, string];
  const numeric = sort === 'price_asc' || sort === 'price_desc';
  if (numeric ? !Number.isSafeInteger(key) : sort === 'name_asc' ? typeof key !== 'string' : key !== id) throw badCursor();
  return { key: key as string | number, id, body, mac };
}

function checkCursor(ctx: Ctx, storeId: string, sort: Sort, q: string, c: { body: string; mac: string }): void {
  const expected = cursorMac(ctx, storeId, sort, q, c.body);
  const given = Buffer.from(c.mac, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw badCursor();
}

export interface ProductListArgs {
  limit?: number | null;
  cursor?: string | null;
  q?: string | null;
  sort?: string | null;
}

/** The store's active products, one statement with the store's own check (§17.3). */
export async function listPublicProducts(ctx: Ctx, ref: string, args: ProductListArgs): Promise<PublicProductPage> {
  const sort = (args.sort ?? 'newest') as Sort;
  const limit = pageLimit(args.limit, { max: 100, fallback: 20 });
  const q = args.q?.trim() ?? '';
  if (q.length > 100) throw invalid('q', 'must be at most 100 characters');
  const cursor = args.cursor ? readCursor(args.cursor, sort) : null;
  const params: unknown[] = [ref, ref];
  if (q) params.push(`%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  if (cursor) params.push(...(sort === 'newest' ? [cursor.id] : [cursor.key, cursor.id]));
  params.push(limit + 1);
  const rows = await storefrontRead<StoreColumns & ProductRow>(ctx.deps.db.reads.ctx(ctx), listStatement(sort, !!q, !!cursor), params);
  if (!rows.length) throw closedStore();
  const store = storeOf(ctx, rows[0]);
  if (cursor) checkCursor(ctx, store.id, sort, q, cursor);
  await admit(ctx, store, { countRead: true });
  const found = rows.filter((r) => r.id !== null);
  const data = found.slice(0, limit);
  const last = found.length > limit ? data[data.length - 1] : null;
  return {
    data: data.map((p) => publicProduct(p, store)),
    nextCursor: last ? issueCursor(ctx, store.id, sort, q, { key: sort === 'newest' ? last.id! : sort === 'name_asc' ? String(last.sort_key) : Number(last.sort_key), id: last.id! }) : null,
  };
}

const ONE_PRODUCT = `select ${STORE_COLUMNS}, p.* from (${OPEN_STORE}) s
  left join lateral (select ${PRODUCT_COLUMNS} from products p where p.store_id = s.id and p.status = 'active' and (p.id = ? or p.slug = ?) limit 1) p on true`;

/** One active product by id or slug; any other (draft, archived, another store's, unknown) is the same 404. */
export async function getPublicProduct(ctx: Ctx, ref: string, idOrSlug: string): Promise<PublicProductType> {
  const [row] = await storefrontRead<StoreColumns & ProductRow>(ctx.deps.db.reads.ctx(ctx), ONE_PRODUCT, [ref, ref, idOrSlug, idOrSlug]);
  if (!row) throw closedStore();
  const store = storeOf(ctx, row);
  await admit(ctx, store, { countRead: true });
  if (row.id === null) throw notFound('product');
  return publicProduct(row, store);
}

// ─── Pages, landing pages, shipping ──────────────────────────────────────────

export async function publicPage(ctx: Ctx, ref: string, slug: string): Promise<PageViewType> {
  const store = await readableStore(ctx, ref);
  return viewPage(ctx, store.id, slug);
}

export async function publicLandingPage(ctx: Ctx, ref: string, slug: string): Promise<PublicLandingPageType> {
  const store = await readableStore(ctx, ref);
  const p = await publishedLandingPage(ctx, store.id, slug);
  if (!p) throw notFound('landing page');
  return { id: p.id, slug: p.slug, name: p.name, productId: p.productId, content: p.content, updatedAt: p.updatedAt.toISOString() };
}

/** Storefront shipping is within Algeria (the geo data's one country). */
export const SHOP_COUNTRY = 'DZ';

export function checkState(state: string, path: string): string {
  if (!isStateCode(SHOP_COUNTRY, state)) throw invalid(path, 'is not a state (wilaya) code, "01" to "69"');
  return state;
}

export async function publicShipping(ctx: Ctx, ref: string, state: string): Promise<ShippingOptionsType> {
  checkState(state, 'state');
  const store = await readableStore(ctx, ref);
  const options = await shippingOptions(ctx, store.id, store.currency, SHOP_COUNTRY, state, SHOPPER_DELIVERY_TYPES);
  return { state, options: options.map((o) => ({ methodId: o.methodId, name: o.name, type: o.type, price: toMajor(o.price, o.currency), currency: o.currency })) };
}
