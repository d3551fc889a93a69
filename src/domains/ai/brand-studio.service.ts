import { LockMode } from '@mikro-orm/core';
import type { Ctx } from '../../core/context.js';
import { invalid, notFound } from '../../core/errors.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import { lockStore, transaction, type TxCtx } from '../../core/tx.js';
import { page, pageLimit } from '../../lib/pagination.js';
import { AiAsset, AiGeneration, BrandStudio, type BrandBrief, type BrandPrimaries } from './brand-studio.entity.js';
import { queueGenerations } from './generation.service.js';
import { type BrandBriefInput, type BrandPrimariesInput, type BrandStudioCreateInput, type BrandStudioType, type BrandStudioUpdateInput } from './ai.types.js';

export function studioView(s: BrandStudio): BrandStudioType {
  return {
    id: s.id,
    storeId: s.storeId,
    name: s.name,
    brief: { ...s.brief },
    primaries: { ...s.primaries },
    status: s.status,
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
  };
}

const lower = (colors: string[]) => colors.map((c) => c.toLowerCase());
const words = (list: string[]) => [...new Set(list.map((w) => w.trim()).filter(Boolean))];

/** The given fields of the brief replace the stored ones. */
function mergeBrief(base: BrandBrief, input: BrandBriefInput): BrandBrief {
  return {
    brandName: input.brandName != null ? input.brandName.trim() : base.brandName,
    tone: input.tone !== undefined ? (input.tone?.trim() || null) : base.tone,
    keywords: input.keywords != null ? words(input.keywords) : base.keywords,
    colors: input.colors != null ? lower(input.colors) : base.colors,
  };
}

async function findStudio(ctx: Ctx, storeId: string, id: string, lock = false): Promise<BrandStudio> {
  const s = await ctx.em.findOne(BrandStudio, { id, storeId }, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
  if (!s) throw notFound('brand studio');
  return s;
}

/**
 * The studio, locked for a change of its own columns: the store row first (every store write's
 * first lock), then the studio FOR NO KEY UPDATE. Writers of one studio wait for each other; the
 * generation worker's commit, whose deferred foreign-key checks take KEY SHARE on the studio after
 * it took the store's event sequence, is never blocked by it (a FOR UPDATE here closed that cycle
 * and answered 409 to sequential clients while earlier generations ran).
 */
async function lockedStudio(tx: TxCtx, storeId: string, id: string): Promise<BrandStudio> {
  await lockStore(tx, storeId);
  const rows = await (tx.em as EntityManager).execute('select id from ai_brand_studios where id = ? and store_id = ? for no key update', [id, storeId]);
  if (!rows.length) throw notFound('brand studio');
  return tx.em.findOneOrFail(BrandStudio, { id, storeId }, { refresh: true });
}

export async function listStudios(ctx: Ctx, storeId: string, args: { limit?: number | null; cursor?: string | null; status?: string | null }) {
  const limit = pageLimit(args.limit);
  const rows = await ctx.em.find(
    BrandStudio,
    { storeId, ...(args.cursor ? { id: { $lt: args.cursor } } : {}), ...(args.status ? { status: args.status } : {}) },
    { orderBy: { id: 'desc' }, limit: limit + 1 },
  );
  const p = page(rows, limit);
  return { data: p.data.map(studioView), nextCursor: p.nextCursor };
}

export async function getStudio(ctx: Ctx, storeId: string, id: string): Promise<BrandStudioType> {
  return studioView(await findStudio(ctx, storeId, id));
}

/** Creates a studio and, with `generate`, queues its first generations in the same transaction. */
export async function createStudio(ctx: Ctx, storeId: string, input: BrandStudioCreateInput): Promise<BrandStudioType> {
  return transaction(ctx, async (tx) => {
    const name = input.name.trim();
    const studio = tx.em.create(BrandStudio, {
      storeId,
      name,
      brief: mergeBrief({ brandName: name, tone: null, keywords: [], colors: [] }, input.brief ?? {}),
      primaries: { logo: null, icon: null, cover: null, palette: null },
      status: input.status ?? 'draft',
    });
    await tx.em.flush();
    if (input.generate) await queueGenerations(tx, studio, input.generate);
    return studioView(studio);
  });
}

export async function updateStudio(ctx: Ctx, storeId: string, id: string, input: BrandStudioUpdateInput): Promise<BrandStudioType> {
  return transaction(ctx, async (tx) => {
    const studio = await lockedStudio(tx, storeId, id);
    const before = JSON.stringify(studioView(studio));
    if (input.name != null) studio.name = input.name.trim();
    if (input.brief != null) studio.brief = mergeBrief(studio.brief, input.brief);
    if (input.status != null) studio.status = input.status;
    if (JSON.stringify(studioView(studio)) !== before) {
      studio.updatedAt = new Date();
      await tx.em.flush();
    }
    // Generated from the brief as it stands after this update.
    if (input.generate) await queueGenerations(tx, studio, input.generate);
    return studioView(studio);
  });
}

/** Deletes the studio with its generations and assets; jobs still queued for it find nothing to do. */
export async function deleteStudio(ctx: Ctx, storeId: string, id: string): Promise<void> {
  await transaction(ctx, async (tx) => {
    tx.em.remove(await findStudio(tx, storeId, id, true));
    await tx.em.flush();
  });
}

const IMAGE_PRIMARIES = ['logo', 'icon', 'cover'] as const;

/**
 * Picks the studio's primaries: logo, icon and cover must be assets of this studio's completed
 * generations of that kind (anything else → 400 at the field); the palette is a list of colours.
 */
export async function setPrimaries(ctx: Ctx, storeId: string, id: string, input: BrandPrimariesInput): Promise<BrandStudioType> {
  return transaction(ctx, async (tx) => {
    const studio = await lockedStudio(tx, storeId, id);
    const next: BrandPrimaries = { ...studio.primaries };
    const picked = IMAGE_PRIMARIES.filter((k) => typeof input[k] === 'string');
    const assets = picked.length ? await tx.em.find(AiAsset, { id: { $in: picked.map((k) => input[k] as string) } }) : [];
    const generations = assets.length
      ? await tx.em.find(AiGeneration, { id: { $in: [...new Set(assets.map((a) => a.generationId))] } }, { fields: ['id', 'status'] })
      : [];
    const completed = new Set(generations.filter((g) => g.status === 'completed').map((g) => g.id));
    for (const kind of IMAGE_PRIMARIES) {
      const value = input[kind];
      if (value === undefined) continue;
      if (value === null) {
        next[kind] = null;
        continue;
      }
      const asset = assets.find((a) => a.id === value);
      if (!asset || asset.studioId !== studio.id) throw invalid(kind, 'is not an asset of this studio');
      if (!completed.has(asset.generationId)) throw invalid(kind, 'is not an asset of a completed generation');
      if (asset.kind !== kind) throw invalid(kind, `is a ${asset.kind} asset, not a ${kind}`);
      next[kind] = asset.id;
    }
    if (input.palette !== undefined) next.palette = input.palette === null ? null : lower(input.palette);
    if (JSON.stringify(next) !== JSON.stringify(studio.primaries)) {
      studio.primaries = next;
      studio.updatedAt = new Date();
      await tx.em.flush();
    }
    return studioView(studio);
  });
}
