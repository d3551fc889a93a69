import { LockMode, UniqueConstraintViolationException } from '@mikro-orm/core';
import { Product } from './product.entity.js';
import type { ProductCreateInput, ProductType, ProductUpdateInput } from './product.types.js';
import { conflict, notFound } from '../../core/errors.js';
import type { Ctx } from '../../core/context.js';
import { inTransaction, isRetryable, lockStore, transaction, type TxCtx } from '../../core/tx.js';
import { executePrepared } from '../../db/prepared.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import { isInbound, recordEvent, writeWithEvent } from '../../events/outbox.js';
import { slugify } from '../../lib/slug.js';
import { page, pageLimit } from '../../lib/pagination.js';
import { exponent, toMajor, toMinor } from '../../core/money.js';
import { storeCurrency } from '../stores/currency.js';
import { productStockSet } from './product.hooks.js';
import { patchedMetadata } from '../../lib/json.js';

/** The product as REST, GraphQL and event payloads show it. */
export function productView(p: Product, currency: string): ProductType {
  return {
    id: p.id,
    storeId: p.storeId,
    name: p.name,
    slug: p.slug,
    price: toMajor(p.price, currency),
    sku: p.sku,
    description: p.description,
    compareAtPrice: p.compareAtPrice === null ? null : toMajor(p.compareAtPrice, currency),
    photoUrl: p.photoUrl,
    images: p.images,
    stock: p.stock,
    allowBackorder: p.allowBackorder,
    status: p.status,
    metadata: p.metadata,
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
  };
}

/** A derived slug takes the first free `-2`, `-3`, ... suffix; an explicit one must be free. */
async function freeSlug(ctx: Ctx, storeId: string, base: string, exceptId?: string): Promise<string> {
  const taken = new Set(
    (await ctx.em.find(Product, { storeId, slug: { $like: `${base}%` } }, { fields: ['id', 'slug'] }))
      .filter((p) => p.id !== exceptId)
      .map((p) => p.slug),
  );
  if (!taken.has(base)) return base;
  for (let i = 2; ; i++) if (!taken.has(`${base}-${i}`)) return `${base}-${i}`;
}

async function assertSlugFree(ctx: Ctx, storeId: string, slug: string, exceptId?: string) {
  const other = await ctx.em.findOne(Product, { storeId, slug });
  if (other && other.id !== exceptId) throw conflict(`The slug "${slug}" is taken in this store`);
}

const uniqueSlug = <T>(p: Promise<T>) =>
  p.catch((err) => {
    if (err instanceof UniqueConstraintViolationException) throw conflict('The slug is taken in this store');
    throw err;
  });

export async function createProduct(ctx: Ctx, storeId: string, input: ProductCreateInput): Promise<ProductType> {
  return uniqueSlug(
    transaction(ctx, async (tx) => {
      await lockStore(tx, storeId);
      let slug: string;
      if (input.slug) {
        await assertSlugFree(tx, storeId, input.slug);
        slug = input.slug;
      } else {
        slug = await freeSlug(tx, storeId, slugify(input.name));
      }
      const currency = await storeCurrency(tx, storeId);
      rememberCurrency(storeId, currency);
      const product = tx.em.create(Product, {
        storeId,
        name: input.name.trim(),
        slug,
        price: toMinor(input.price, currency, 'price'),
        sku: input.sku ?? null,
        description: input.description ?? null,
        compareAtPrice: input.compareAtPrice == null ? null : toMinor(input.compareAtPrice, currency, 'compareAtPrice'),
        photoUrl: input.photoUrl ?? null,
        images: input.images ?? [],
        allowBackorder: input.allowBackorder ?? false,
        stock: input.stock ?? 0,
        status: input.status ?? 'active',
        metadata: input.metadata ?? {},
      });
      await tx.em.flush();
      await productStockSet(tx, { storeId, productId: product.id, stock: product.stock, previousStock: 0 });
      const view = productView(product, currency);
      await recordEvent(tx, { storeId, event: 'productCreated', record: view, inbound: isInbound(input) });
      return view;
    }),
  );
}

/** A product row with its store's currency, as the reads select it. */
interface ProductRow {
  id: string;
  store_id: string;
  name: string;
  slug: string;
  price: string | number;
  sku: string | null;
  description: string | null;
  compare_at_price: string | number | null;
  photo_url: string | null;
  images: string[];
  stock: number;
  allow_backorder: boolean;
  status: string;
  metadata: Record<string, unknown>;
  /** ISO 8601 text, as toISOString() writes it (formatted by the statement). */
  created_at: string;
  updated_at: string;
  currency: string;
}

/** A timestamp as `Date.prototype.toISOString()` writes it (milliseconds, UTC), formatted by PostgreSQL. */
const isoText = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

const PRODUCT_COLUMNS = `p.id, p.store_id, p.name, p.slug, p.price, p.sku, p.description, p.compare_at_price, p.photo_url, p.images, p.stock, p.allow_backorder, p.status, p.metadata,
  ${isoText('p.created_at')} as created_at, ${isoText('p.updated_at')} as updated_at, s.currency`;

/**
 * Store currencies this process has read, for the one-statement update (which checks its guess in
 * the statement, so a changed currency only sends it down the general path). Bounded.
 */
const knownCurrencies = new Map<string, string>();
const KNOWN_CURRENCIES_MAX = 10_000;

function rememberCurrency(storeId: string, currency: string): void {
  if (knownCurrencies.get(storeId) === currency) return;
  if (knownCurrencies.size >= KNOWN_CURRENCIES_MAX) knownCurrencies.clear();
  knownCurrencies.set(storeId, currency);
}

function rowView(r: ProductRow): ProductType {
  return {
    id: r.id,
    storeId: r.store_id,
    name: r.name,
    slug: r.slug,
    price: toMajor(Number(r.price), r.currency),
    sku: r.sku,
    description: r.description,
    compareAtPrice: r.compare_at_price === null ? null : toMajor(Number(r.compare_at_price), r.currency),
    photoUrl: r.photo_url,
    images: r.images,
    stock: r.stock,
    allowBackorder: r.allow_backorder,
    status: r.status,
    metadata: r.metadata,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/**
 * Reads are one statement with the store's currency joined, planned once per connection outside a
 * transaction (no entity is loaded: nothing here is written back).
 */
function readRows(ctx: Ctx, sql: string, params: unknown[]): Promise<ProductRow[]> {
  return inTransaction(ctx) ? ctx.em.execute<ProductRow[]>(sql, params) : executePrepared<ProductRow>(ctx.em as EntityManager, sql, params);
}

const LIST_SQL = {
  first: `select ${PRODUCT_COLUMNS} from products p join stores s on s.id = p.store_id where p.store_id = ? order by p.id desc limit ?`,
  after: `select ${PRODUCT_COLUMNS} from products p join stores s on s.id = p.store_id where p.store_id = ? and p.id < ? order by p.id desc limit ?`,
  status: `select ${PRODUCT_COLUMNS} from products p join stores s on s.id = p.store_id where p.store_id = ? and p.status = ? order by p.id desc limit ?`,
  statusAfter: `select ${PRODUCT_COLUMNS} from products p join stores s on s.id = p.store_id where p.store_id = ? and p.status = ? and p.id < ? order by p.id desc limit ?`,
};

export async function listProducts(ctx: Ctx, storeId: string, args: { limit?: number | null; cursor?: string | null; status?: string | null }) {
  const limit = pageLimit(args.limit);
  const sql = args.status ? (args.cursor ? LIST_SQL.statusAfter : LIST_SQL.status) : args.cursor ? LIST_SQL.after : LIST_SQL.first;
  const params = [storeId, ...(args.status ? [args.status] : []), ...(args.cursor ? [args.cursor] : []), limit + 1];
  const p = page(await readRows(ctx.deps.db.reads.ctx(ctx), sql, params), limit);
  if (p.data.length) rememberCurrency(storeId, p.data[0].currency);
  // An empty page still needs the store to exist (a 404 as before, when the store was deleted).
  if (!p.data.length) await storeCurrency(ctx, storeId);
  return { data: p.data.map(rowView), nextCursor: p.nextCursor };
}

/**
 * A product about to be written: the store row, then the product row, locked and read afresh, so
 * `previous_data` is what the last writer committed and a product deleted meanwhile is a 404.
 */
async function lockProduct(tx: TxCtx, storeId: string, id: string): Promise<Product> {
  await lockStore(tx, storeId);
  const product = await tx.em.findOne(Product, { id, storeId }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
  if (!product) throw notFound('product');
  return product;
}

const GET_SQL = `select ${PRODUCT_COLUMNS} from products p join stores s on s.id = p.store_id where p.id = ? and p.store_id = ?`;

const BY_SLUG_SQL = `select ${PRODUCT_COLUMNS} from products p join stores s on s.id = p.store_id where p.store_id = ? and p.slug = ?`;

/** One product of a store by one of its statements, or 404. */
async function oneProduct(ctx: Ctx, storeId: string, sql: string, params: unknown[]): Promise<ProductType> {
  const [row] = await readRows(ctx, sql, params);
  if (!row) throw notFound('product');
  rememberCurrency(storeId, row.currency);
  return rowView(row);
}

export const getProduct = (ctx: Ctx, storeId: string, id: string): Promise<ProductType> => oneProduct(ctx, storeId, GET_SQL, [id, storeId]);

export const getProductBySlug = (ctx: Ctx, storeId: string, slug: string): Promise<ProductType> => oneProduct(ctx, storeId, BY_SLUG_SQL, [storeId, slug]);

/** A minor-unit column in major units of a currency with `e` decimals, by SQL (null stays null). */
const major = (column: string, e: number) => (e === 0 ? column : `trim_scale(${column}::numeric / ${10 ** e})`);

/** A product as its payload shows it, built by SQL from the row `p` (price in major units of a currency with `e` decimals). */
const productJson = (p: string, e: number) => {
  const iso = (column: string) => isoText(`${p}.${column}`);
  return `jsonb_build_object('id', ${p}.id, 'storeId', ${p}.store_id, 'name', ${p}.name, 'slug', ${p}.slug,
    'price', ${major(`${p}.price`, e)}, 'sku', ${p}.sku, 'description', ${p}.description,
    'compareAtPrice', ${major(`${p}.compare_at_price`, e)}, 'photoUrl', ${p}.photo_url, 'images', ${p}.images, 'stock', ${p}.stock,
    'allowBackorder', ${p}.allow_backorder, 'status', ${p}.status, 'metadata', ${p}.metadata,
    'createdAt', ${iso('created_at')}, 'updatedAt', ${iso('updated_at')})`;
};

/** Statement texts of the one-statement update, by currency exponent (the price's divisor is in the text). */
const updateStatements = new Map<number, { ctes: string; data: string }>();

function updateStatement(e: number): { ctes: string; data: string } {
  let st = updateStatements.get(e);
  if (!st) {
    // The store row, then the product row, locked in that order as lockProduct does; the row is
    // written only when a value changes, and the payload holds it before and after.
    st = {
      ctes: `c as (select id from stores where id = ? and currency = ? for no key update),
          o as (select p.* from products p where p.id = ? and p.store_id = (select id from c) for update),
          n as (select o.id, coalesce(?, o.name) as name, coalesce(?::bigint, o.price) as price,
                       case when ?::boolean then ?::text else o.sku end as sku, coalesce(?::boolean, o.allow_backorder) as allow_backorder,
                       coalesce(?, o.status) as status, coalesce(?::jsonb, o.metadata) as metadata from o),
          w as (update products p set name = n.name, price = n.price, sku = n.sku, allow_backorder = n.allow_backorder,
                       status = n.status, metadata = n.metadata, updated_at = ?
                  from n, o where p.id = n.id and o.id = n.id
                   and (n.name, n.price, n.sku, n.allow_backorder, n.status, n.metadata) is distinct from (o.name, o.price, o.sku, o.allow_backorder, o.status, o.metadata)
                returning p.*)`,
      data: `(select jsonb_build_object('store_id', w.store_id, 'product', ${productJson('w', e)}, 'previous_data', ${productJson('o', e)}) from w, o)`,
    };
    updateStatements.set(e, st);
  }
  return st;
}

/**
 * An update of a product's name, price, SKU, backorder flag, status or metadata as one statement
 * (no slug to check, no stock to follow): it locks the store and product rows, writes the changed
 * row and records productUpdated with the row before and after, in one round trip where the
 * transaction takes eight. The store's currency is the one this process last read, checked in
 * the statement. Null when it does not apply or wrote nothing (an unchanged product, a product or
 * store not found, a currency that changed): the general path then answers.
 */
async function updateInOneStatement(ctx: Ctx, storeId: string, id: string, input: ProductUpdateInput): Promise<ProductType | null> {
  const currency = knownCurrencies.get(storeId);
  if (!currency || inTransaction(ctx) || input.slug != null || input.stock != null || input.metadataPatch != null) return null;
  // The shop-front fields are written by the general path.
  if (input.description !== undefined || input.compareAtPrice !== undefined || input.photoUrl !== undefined || input.images !== undefined) return null;
  let price: number | null = null;
  if (input.price != null) {
    try {
      price = toMinor(input.price, currency, 'price');
    } catch {
      // Refused in the currency guessed: the general path says so in the store's own.
      return null;
    }
  }
  const st = updateStatement(exponent(currency));
  let committed;
  try {
    committed = await writeWithEvent(
      ctx,
      {
        ctes: st.ctes,
        params: [
          storeId, currency, id,
          input.name != null ? input.name.trim() : null, price,
          input.sku !== undefined, input.sku ?? null, input.allowBackorder ?? null,
          input.status ?? null, input.metadata != null ? JSON.stringify(input.metadata) : null,
          new Date(),
        ],
        written: 'w',
        data: st.data,
      },
      { storeId, event: 'productUpdated', inbound: isInbound(input) },
    );
  } catch (err) {
    // A deadlock or serialization loss: the general path retries it in a transaction.
    if (isRetryable(err)) return null;
    throw err;
  }
  return committed ? (committed.data as { product: ProductType }).product : null;
}

export async function updateProduct(ctx: Ctx, storeId: string, id: string, input: ProductUpdateInput): Promise<ProductType> {
  const done = await updateInOneStatement(ctx, storeId, id, input);
  if (done) return done;
  return uniqueSlug(
    transaction(ctx, async (tx) => {
      const product = await lockProduct(tx, storeId, id);
      const currency = await storeCurrency(tx, storeId);
      rememberCurrency(storeId, currency);
      const before = productView(product, currency);
      if (input.name != null) product.name = input.name.trim();
      if (input.slug != null && input.slug !== product.slug) {
        await assertSlugFree(tx, storeId, input.slug, id);
        product.slug = input.slug;
      }
      if (input.price != null) product.price = toMinor(input.price, currency, 'price');
      if (input.sku !== undefined) product.sku = input.sku;
      if (input.description !== undefined) product.description = input.description;
      if (input.compareAtPrice !== undefined) product.compareAtPrice = input.compareAtPrice === null ? null : toMinor(input.compareAtPrice, currency, 'compareAtPrice');
      if (input.photoUrl !== undefined) product.photoUrl = input.photoUrl;
      if (input.images !== undefined) product.images = input.images ?? [];
      if (input.allowBackorder != null) product.allowBackorder = input.allowBackorder;
      if (input.stock != null) product.stock = input.stock;
      if (input.status != null) product.status = input.status;
      if (input.metadata != null) product.metadata = input.metadata;
      if (input.metadataPatch != null) product.metadata = patchedMetadata(product.metadata, input.metadataPatch);
      const changed = JSON.stringify({ ...productView(product, currency), updatedAt: null }) !== JSON.stringify({ ...before, updatedAt: null });
      if (!changed) return before;
      product.updatedAt = new Date();
      await tx.em.flush();
      await productStockSet(tx, { storeId, productId: product.id, stock: product.stock, previousStock: before.stock });
      const view = productView(product, currency);
      await recordEvent(tx, { storeId, event: 'productUpdated', record: view, previous: before, inbound: isInbound(input) });
      return view;
    }),
  );
}

/** `inbound`: the delete comes from an inbound connector (no webhook echoes it). */
export async function deleteProduct(ctx: Ctx, storeId: string, id: string, opts: { inbound?: boolean } = {}): Promise<void> {
  await transaction(ctx, async (tx) => {
    const product = await lockProduct(tx, storeId, id);
    const view = productView(product, await storeCurrency(tx, storeId));
    tx.em.remove(product);
    await tx.em.flush();
    await recordEvent(tx, { storeId, event: 'productDeleted', record: view, inbound: opts.inbound });
  });
}
