import { LockMode, UniqueConstraintViolationException } from '@mikro-orm/core';
import { Page, PageRedirect, type Seo } from './page.entity.js';
import { PageViewType, type PageInput, type PagePage, type PageType, type PageUpdateInput, type SeoInput } from './page.types.js';
import { renderBody } from './render.js';
import { primaryEm, type Ctx, type Deps } from '../../core/context.js';
import { AppError, conflict, invalid, notFound } from '../../core/errors.js';
import { transaction, type TxCtx } from '../../core/tx.js';
import { page as pageOf, pageLimit } from '../../lib/pagination.js';
import { slugify } from '../../lib/slug.js';
import { cpuOwner } from '../../core/cpu.js';

/** `/v1/pages/view/{slug}` is the public route: no page may be called `view`. */
const RESERVED_SLUGS = new Set(['view']);
/** A value of this shape is a page id; slugs have no `_`, so nothing else is. */
const PAGE_ID = /^pg_[0-9a-f]+$/;

export function pageView(p: Page): PageType {
  return {
    id: p.id,
    storeId: p.storeId,
    title: p.title,
    slug: p.slug,
    body: p.body,
    status: p.status,
    publishedAt: p.publishedAt ? p.publishedAt.toISOString() : null,
    seo: { title: p.seo?.title ?? null, description: p.seo?.description ?? null },
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
  };
}

const seoOf = (input: SeoInput | null | undefined, base: Seo = { title: null, description: null }): Seo => ({
  title: input?.title !== undefined ? input.title : base.title,
  description: input?.description !== undefined ? input.description : base.description,
});

function checkSlug(slug: string): string {
  if (RESERVED_SLUGS.has(slug)) throw invalid('slug', `"${slug}" is reserved`);
  return slug;
}

/** The first free `-2`, `-3`... of a slug derived from the title. */
async function freeSlug(tx: TxCtx, storeId: string, base: string): Promise<string> {
  const taken = new Set((await tx.em.find(Page, { storeId, slug: { $like: `${base}%` } }, { fields: ['slug'] })).map((p) => p.slug));
  for (const r of RESERVED_SLUGS) taken.add(r);
  if (!taken.has(base)) return base;
  for (let i = 2; ; i++) if (!taken.has(`${base}-${i}`)) return `${base}-${i}`;
}

async function assertSlugFree(tx: TxCtx, storeId: string, slug: string, exceptId?: string) {
  const other = await tx.em.findOne(Page, { storeId, slug }, { fields: ['id'] });
  if (other && other.id !== exceptId) throw conflict(`The slug "${slug}" is taken in this store`);
}

const uniqueSlug = <T>(p: Promise<T>) =>
  p.catch((err) => {
    if (err instanceof UniqueConstraintViolationException) throw conflict('The slug is taken in this store');
    throw err;
  });

/** A live page takes a slug over from a page that left it. */
async function claimSlug(tx: TxCtx, storeId: string, slug: string) {
  await tx.em.nativeDelete(PageRedirect, { storeId, slug });
}

function setStatus(p: Page, status: string) {
  if (status === 'published' && p.status !== 'published') p.publishedAt = new Date();
  if (status === 'draft') p.publishedAt = null;
  p.status = status;
}

export async function listPages(ctx: Ctx, storeId: string, f: { limit?: number | null; cursor?: string | null; status?: string | null }): Promise<PagePage> {
  const limit = pageLimit(f.limit);
  const rows = await ctx.em.find(
    Page,
    { storeId, ...(f.cursor ? { id: { $lt: f.cursor } } : {}), ...(f.status ? { status: f.status } : {}) },
    { orderBy: { id: 'desc' }, limit: limit + 1 },
  );
  const p = pageOf(rows, limit);
  return { data: p.data.map(pageView), nextCursor: p.nextCursor };
}

async function findPage(ctx: Ctx, storeId: string, id: string, lock = false): Promise<Page> {
  const p = await ctx.em.findOne(Page, { id, storeId }, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
  if (!p) throw notFound('page');
  return p;
}

/** By id (`pg_…`) or by slug. */
export async function getPage(ctx: Ctx, storeId: string, idOrSlug: string): Promise<PageType> {
  const p = await ctx.em.findOne(Page, PAGE_ID.test(idOrSlug) ? { id: idOrSlug, storeId } : { slug: idOrSlug, storeId });
  if (!p) throw notFound('page');
  return pageView(p);
}

/** A body that cannot be rendered within its budget is refused here, at write time (400 at `body`). */
export async function createPage(ctx: Ctx, storeId: string, input: PageInput): Promise<PageType> {
  const body = input.body ?? '';
  const html = await renderBody(ctx.deps.cpu, body, cpuOwner(ctx, storeId));
  return uniqueSlug(
    transaction(ctx, async (tx) => {
      let slug: string;
      if (input.slug) {
        slug = checkSlug(input.slug);
        await assertSlugFree(tx, storeId, slug);
      } else {
        slug = await freeSlug(tx, storeId, slugify(input.title));
      }
      await claimSlug(tx, storeId, slug);
      const p = tx.em.create(Page, { storeId, title: input.title.trim(), slug, body, html, seo: seoOf(input.seo) });
      setStatus(p, input.status ?? 'draft');
      await tx.em.flush();
      return pageView(p);
    }),
  );
}

/**
 * PUT replaces every field, PATCH the given ones; a changed slug leaves a redirect behind. A new
 * body is rendered before the transaction opens; every write is a new version.
 */
export async function updatePage(ctx: Ctx, storeId: string, id: string, input: PageUpdateInput | PageInput, mode: 'patch' | 'replace'): Promise<PageType> {
  const body = mode === 'replace' ? ((input as PageInput).body ?? '') : (input.body ?? null);
  const html = body === null ? null : await renderBody(ctx.deps.cpu, body, cpuOwner(ctx, storeId));
  return uniqueSlug(
    transaction(ctx, async (tx) => {
      const p = await findPage(tx, storeId, id, true);
      const oldSlug = p.slug;
      if (body !== null) {
        p.body = body;
        p.html = html;
      }
      if (mode === 'replace') {
        const r = input as PageInput;
        p.title = r.title.trim();
        p.seo = seoOf(r.seo);
        setStatus(p, r.status ?? 'draft');
        // Without a slug the page keeps its own: a replace should not break its links.
        if (r.slug) p.slug = checkSlug(r.slug);
      } else {
        const u = input as PageUpdateInput;
        if (u.title != null) p.title = u.title.trim();
        if (u.seo !== undefined) p.seo = seoOf(u.seo, p.seo);
        if (u.status != null) setStatus(p, u.status);
        if (u.slug != null) p.slug = checkSlug(u.slug);
      }
      if (p.slug !== oldSlug) {
        await assertSlugFree(tx, storeId, p.slug, id);
        await claimSlug(tx, storeId, p.slug);
        await tx.em.execute(
          `insert into page_redirects (store_id, slug, page_id, created_at) values (?, ?, ?, ?)
           on conflict (store_id, slug) do update set page_id = excluded.page_id, created_at = excluded.created_at`,
          [storeId, oldSlug, id, new Date()],
        );
      }
      p.version += 1;
      p.updatedAt = new Date();
      await tx.em.flush();
      return pageView(p);
    }),
  );
}

export async function deletePage(ctx: Ctx, storeId: string, id: string): Promise<void> {
  await transaction(ctx, async (tx) => {
    tx.em.remove(await findPage(tx, storeId, id, true));
    await tx.em.flush();
  });
}

/** The public view's ETag: the page and its version, known without reading or rendering the body. */
export const pageEtag = (p: Pick<Page, 'id' | 'version'>) => `"${p.id}.${p.version}"`;

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Renders in flight, by page version: views arriving together share one. */
const filling = new Map<string, Promise<string>>();

/**
 * The HTML of a page written before pages stored theirs, rendered in the CPU pool and stored on
 * its first view. A body that cannot be rendered within budget is served as escaped text (and
 * stored so), never as an error; a saturated pool answers 503 and the next view tries again.
 */
function fillHtml(ctx: Ctx, p: Page): Promise<string> {
  const key = `${p.id}.${p.version}`;
  let pending = filling.get(key);
  if (!pending) {
    pending = renderAndStore(ctx, p).finally(() => filling.delete(key));
    filling.set(key, pending);
  }
  return pending;
}

async function renderAndStore(ctx: Ctx, p: Page): Promise<string> {
  let html: string;
  try {
    html = await renderBody(ctx.deps.cpu, p.body, cpuOwner(ctx, p.storeId));
  } catch (err) {
    if (!(err instanceof AppError) || err.code !== 'VALIDATION_FAILED') throw err;
    ctx.deps.log.warn({ pageId: p.id, reason: err.message }, 'pages: a stored body cannot be rendered within budget; serving it as text');
    html = `<pre>${escapeHtml(p.body)}</pre>`;
  }
  // A view may be a query read from a replica: the write is the primary's.
  await primaryEm(ctx).execute('update pages set html = ? where id = ? and version = ? and html is null', [html, p.id, p.version]);
  return html;
}

/**
 * The public view of a published page: its stored HTML, nothing rendered (but a page from before
 * stored HTML, once). A slug the page left behind answers with its current slug and `moved:
 * true`; drafts, unknown slugs and unknown stores are all 404 alike. `html` is a resolver: it runs
 * only when the query selects it, so only such a view fills a missing HTML.
 */
export async function viewPage(ctx: Ctx, storeId: string, slug: string): Promise<PageViewType> {
  const current = await viewBySlug(ctx, storeId, slug);
  if (current) return current;
  const populate = { populate: ['html'] as const };
  const redirect = await ctx.em.findOne(PageRedirect, { storeId, slug });
  const p = redirect ? await ctx.em.findOne(Page, { id: redirect.pageId, storeId, status: 'published' }, populate) : null;
  if (!p) throw notFound('page');
  const page = p;
  const v = pageView(page);
  return newView({ slug: page.slug, moved: true, title: v.title, seo: v.seo, updatedAt: v.updatedAt, etag: pageEtag(page) }, () => page.html ?? fillHtml(ctx, page));
}

function newView(fields: Omit<PageViewType, 'htmlSource' | 'html'>, htmlSource: PageViewType['htmlSource']): PageViewType {
  const view = new PageViewType();
  Object.assign(view, fields);
  view.htmlSource = htmlSource;
  return view;
}

/** Stored HTML of recently viewed pages, by store and slug, with the version it belongs to. */
interface KnownHtml {
  id: string;
  version: number;
  html: string;
}
/** How much HTML (UTF-16 code units) a process keeps for views; least recently viewed goes first. */
const VIEW_CACHE_UNITS = 16 * 1024 * 1024;
const viewCaches = new WeakMap<Deps, { pages: Map<string, KnownHtml>; units: number }>();

function viewCache(deps: Deps) {
  let cache = viewCaches.get(deps);
  if (!cache) viewCaches.set(deps, (cache = { pages: new Map(), units: 0 }));
  return cache;
}

/**
 * A published page by its current slug in one statement. The HTML comes from this process's
 * cache when the row still has the version cached (the statement then leaves it out), so a page
 * viewed often costs a small row, not its HTML, per view; any write changes the version, so a
 * cached HTML can never be served with another version's title or ETag.
 */
async function viewBySlug(ctx: Ctx, storeId: string, slug: string): Promise<PageViewType | null> {
  const cache = viewCache(ctx.deps);
  const key = `${storeId}\u0000${slug}`;
  const known = cache.pages.get(key);
  const [row] = (await ctx.em.execute(
    `select id, slug, title, version, seo, updated_at, html is null as unrendered,
            case when id = ? and version = ? then null else html end as html
       from pages where store_id = ? and slug = ? and status = 'published'`,
    [known?.id ?? '', known?.version ?? -1, storeId, slug],
  )) as Array<{ id: string; slug: string; title: string; version: number; seo: Seo | null; updated_at: Date; unrendered: boolean; html: string | null }>;
  if (!row) return null;
  const fields = {
    slug: row.slug,
    moved: false,
    title: row.title,
    seo: { title: row.seo?.title ?? null, description: row.seo?.description ?? null },
    updatedAt: new Date(row.updated_at).toISOString(),
    etag: pageEtag(row),
  };
  if (row.unrendered) {
    // A page from before stored HTML: rendered once, on the view that selects it.
    return newView(fields, async () => fillHtml(ctx, await ctx.em.findOneOrFail(Page, { id: row.id }, { populate: ['html'] })));
  }
  const html = row.html ?? known!.html;
  cache.pages.delete(key);
  if (known && row.html !== null) cache.units -= known.html.length;
  if (!known || row.html !== null) cache.units += html.length;
  cache.pages.set(key, { id: row.id, version: row.version, html });
  for (const [k, v] of cache.pages) {
    if (cache.units <= VIEW_CACHE_UNITS) break;
    cache.pages.delete(k);
    cache.units -= v.html.length;
  }
  return newView(fields, () => html);
}
