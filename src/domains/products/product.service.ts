import { LockMode, UniqueConstraintViolationException } from '@mikro-orm/core';
import { Product } from './product.entity.js';
import type { ProductCreateInput, ProductType, ProductUpdateInput } from './product.types.js';
import { conflict, notFound } from '../../core/errors.js';
import type { Ctx } from '../../core/context.js';
import { lockStore, transaction, type TxCtx } from '../../core/tx.js';
import { isInbound, recordEvent } from '../../events/outbox.js';
import { slugify } from '../../lib/slug.js';
import { page, pageLimit } from '../../lib/pagination.js';
import { toMajor, toMinor } from '../../core/money.js';
import { storeCurrency } from '../stores/currency.js';
import { stockFollowsProductWrite } from '../inventory/stock.service.js';
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
      const product = tx.em.create(Product, {
        storeId,
        name: input.name.trim(),
        slug,
        price: toMinor(input.price, currency, 'price'),
        sku: input.sku ?? null,
        allowBackorder: input.allowBackorder ?? false,
        stock: input.stock ?? 0,
        status: input.status ?? 'active',
        metadata: input.metadata ?? {},
      });
      await tx.em.flush();
      await stockFollowsProductWrite(tx, product, 0);
      const view = productView(product, currency);
      await recordEvent(tx, { storeId, event: 'productCreated', record: view, inbound: isInbound(input) });
      return view;
    }),
  );
}

export async function listProducts(ctx: Ctx, storeId: string, args: { limit?: number | null; cursor?: string | null; status?: string | null }) {
  const limit = pageLimit(args.limit);
  const rows = await ctx.em.find(
    Product,
    { storeId, ...(args.cursor ? { id: { $lt: args.cursor } } : {}), ...(args.status ? { status: args.status } : {}) },
    { orderBy: { id: 'desc' }, limit: limit + 1 },
  );
  const p = page(rows, limit);
  const currency = await storeCurrency(ctx, storeId);
  return { data: p.data.map((row) => productView(row, currency)), nextCursor: p.nextCursor };
}

async function findProduct(ctx: Ctx, storeId: string, id: string): Promise<Product> {
  const product = await ctx.em.findOne(Product, { id, storeId });
  if (!product) throw notFound('product');
  return product;
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

export async function getProduct(ctx: Ctx, storeId: string, id: string): Promise<ProductType> {
  return productView(await findProduct(ctx, storeId, id), await storeCurrency(ctx, storeId));
}

export async function getProductBySlug(ctx: Ctx, storeId: string, slug: string): Promise<ProductType> {
  const product = await ctx.em.findOne(Product, { storeId, slug });
  if (!product) throw notFound('product');
  return productView(product, await storeCurrency(ctx, storeId));
}

export async function updateProduct(ctx: Ctx, storeId: string, id: string, input: ProductUpdateInput): Promise<ProductType> {
  return uniqueSlug(
    transaction(ctx, async (tx) => {
      const product = await lockProduct(tx, storeId, id);
      const currency = await storeCurrency(tx, storeId);
      const before = productView(product, currency);
      if (input.name != null) product.name = input.name.trim();
      if (input.slug != null && input.slug !== product.slug) {
        await assertSlugFree(tx, storeId, input.slug, id);
        product.slug = input.slug;
      }
      if (input.price != null) product.price = toMinor(input.price, currency, 'price');
      if (input.sku !== undefined) product.sku = input.sku;
      if (input.allowBackorder != null) product.allowBackorder = input.allowBackorder;
      if (input.stock != null) product.stock = input.stock;
      if (input.status != null) product.status = input.status;
      if (input.metadata != null) product.metadata = input.metadata;
      if (input.metadataPatch != null) product.metadata = patchedMetadata(product.metadata, input.metadataPatch);
      const changed = JSON.stringify({ ...productView(product, currency), updatedAt: null }) !== JSON.stringify({ ...before, updatedAt: null });
      if (!changed) return before;
      product.updatedAt = new Date();
      await tx.em.flush();
      await stockFollowsProductWrite(tx, product, before.stock);
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
