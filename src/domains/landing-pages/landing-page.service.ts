import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { ProductLandingPage } from './landing-page.entity.js';
import type { ProductLandingPageCreateInput, ProductLandingPageType, ProductLandingPageUpdateInput } from './landing-page.types.js';
import { Product } from '../products/product.entity.js';
import { conflict, invalid, notFound } from '../../core/errors.js';
import type { Ctx } from '../../core/context.js';
import { keepStore, transaction } from '../../core/tx.js';
import { slugify } from '../../lib/slug.js';
import { page, pageLimit } from '../../lib/pagination.js';

/** Page-builder content beyond this (serialized) is refused: it is stored, not a file store. */
const MAX_CONTENT_BYTES = 256 * 1024;

export function landingPageView(p: ProductLandingPage): ProductLandingPageType {
  return {
    id: p.id,
    storeId: p.storeId,
    productId: p.productId,
    name: p.name,
    slug: p.slug,
    status: p.status,
    content: p.content,
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
  };
}

function checkContent(content: Record<string, unknown>): Record<string, unknown> {
  if (Buffer.byteLength(JSON.stringify(content)) > MAX_CONTENT_BYTES) throw invalid('content', `must be at most ${MAX_CONTENT_BYTES / 1024} KiB as JSON`);
  return content;
}

async function checkProduct(ctx: Ctx, storeId: string, productId: string): Promise<string> {
  const found = await ctx.em.count(Product, { id: productId, storeId });
  if (!found) throw invalid('productId', 'no such product in this store');
  return productId;
}

/** A derived slug takes the first free `-2`, `-3`, ... suffix; an explicit one must be free. */
async function freeSlug(ctx: Ctx, storeId: string, base: string): Promise<string> {
  const taken = new Set((await ctx.em.find(ProductLandingPage, { storeId, slug: { $like: `${base}%` } }, { fields: ['slug'] })).map((p) => p.slug));
  if (!taken.has(base)) return base;
  for (let i = 2; ; i++) if (!taken.has(`${base}-${i}`)) return `${base}-${i}`;
}

async function assertSlugFree(ctx: Ctx, storeId: string, slug: string, exceptId?: string): Promise<void> {
  const other = await ctx.em.findOne(ProductLandingPage, { storeId, slug }, { fields: ['id'] });
  if (other && other.id !== exceptId) throw conflict(`The slug "${slug}" is taken in this store`);
}

/** Two writers racing for one slug: the unique index decides, the loser gets 409. */
const uniqueSlug = <T>(p: Promise<T>) =>
  p.catch((err) => {
    if (err instanceof UniqueConstraintViolationException) throw conflict('The slug is taken in this store');
    throw err;
  });

export async function findLandingPage(ctx: Ctx, storeId: string, id: string): Promise<ProductLandingPage> {
  const found = await ctx.em.findOne(ProductLandingPage, { id, storeId });
  if (!found) throw notFound('product landing page');
  return found;
}

export async function listLandingPages(ctx: Ctx, storeId: string, f: { limit?: number | null; cursor?: string | null; productId?: string | null; status?: string | null }) {
  const limit = pageLimit(f.limit);
  const where: Record<string, unknown> = { storeId };
  if (f.cursor) where.id = { $lt: f.cursor };
  if (f.productId) where.productId = f.productId;
  if (f.status) where.status = f.status;
  const rows = await ctx.em.find(ProductLandingPage, where, { orderBy: { id: 'desc' }, limit: limit + 1 });
  const p = page(rows, limit);
  return { data: p.data.map(landingPageView), nextCursor: p.nextCursor };
}

export async function getLandingPage(ctx: Ctx, storeId: string, id: string): Promise<ProductLandingPageType> {
  return landingPageView(await findLandingPage(ctx, storeId, id));
}

export function createLandingPage(ctx: Ctx, storeId: string, input: ProductLandingPageCreateInput): Promise<ProductLandingPageType> {
  return uniqueSlug(
    transaction(ctx, async (tx) => {
      await keepStore(tx, storeId);
      const productId = input.productId ? await checkProduct(tx, storeId, input.productId) : null;
      let slug: string;
      if (input.slug) {
        await assertSlugFree(tx, storeId, input.slug);
        slug = input.slug;
      } else {
        slug = await freeSlug(tx, storeId, slugify(input.name));
      }
      const created = tx.em.create(ProductLandingPage, {
        storeId,
        productId,
        name: input.name.trim(),
        slug,
        status: input.status ?? 'draft',
        content: checkContent(input.content ?? {}),
      });
      await tx.em.flush();
      return landingPageView(created);
    }),
  );
}

export function updateLandingPage(ctx: Ctx, storeId: string, id: string, input: ProductLandingPageUpdateInput): Promise<ProductLandingPageType> {
  return uniqueSlug(
    transaction(ctx, async (tx) => {
      await keepStore(tx, storeId);
      const lp = await findLandingPage(tx, storeId, id);
      const before = JSON.stringify(landingPageView(lp));
      if (input.name != null) lp.name = input.name.trim();
      if (input.productId !== undefined) lp.productId = input.productId ? await checkProduct(tx, storeId, input.productId) : null;
      if (input.slug != null && input.slug !== lp.slug) {
        await assertSlugFree(tx, storeId, input.slug, id);
        lp.slug = input.slug;
      }
      if (input.status != null) lp.status = input.status;
      if (input.content != null) lp.content = checkContent(input.content);
      if (JSON.stringify(landingPageView(lp)) !== before) {
        lp.updatedAt = new Date();
        await tx.em.flush();
      }
      return landingPageView(lp);
    }),
  );
}

/** Orders keep the id of a deleted page (their history); its report then answers 404. */
export async function deleteLandingPage(ctx: Ctx, storeId: string, id: string): Promise<void> {
  await transaction(ctx, async (tx) => {
    tx.em.remove(await findLandingPage(tx, storeId, id));
    await tx.em.flush();
  });
}

/** For orders: the id must name a landing page of the store (400 at `path` otherwise). */
export async function assertLandingPageOfStore(ctx: Ctx, storeId: string, id: string, path: string): Promise<string> {
  const found = await ctx.em.count(ProductLandingPage, { id, storeId });
  if (!found) throw invalid(path, 'no such product landing page in this store');
  return id;
}

/** A published landing page of the store by its slug (the storefront's view), or null. */
export function publishedLandingPage(ctx: Ctx, storeId: string, slug: string): Promise<ProductLandingPage | null> {
  return ctx.em.findOne(ProductLandingPage, { storeId, slug, status: 'published' });
}
