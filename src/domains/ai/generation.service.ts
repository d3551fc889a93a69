import { randomInt, randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Ctx, Deps } from '../../core/context.js';
import { AppError, invalid, notConfigured, notFound } from '../../core/errors.js';
import type { TxCtx } from '../../core/tx.js';
import { recordRealtimeEvent } from '../../events/outbox.js';
import { enqueueInTransaction } from '../../events/queue.js';
import { page, pageLimit } from '../../lib/pagination.js';
import type { ImageProvider } from '../../providers/images.js';
import { AiAsset, AiGeneration, BrandStudio } from './brand-studio.entity.js';
import { ImagePromptTemplate } from './prompt-template.entity.js';
import { checkPropsOffThread, fillPlaceholders, placeholders } from './prompt.js';
import { assetUrl } from './asset-urls.js';
import { type AiGenerationType, type BrandGenerateInput, type ImageKind } from './ai.types.js';
import { cpuOwner } from '../../core/cpu.js';

export const AI_QUEUE = 'ai-generation';
/** Each attempt's time limit. */
export const GENERATION_TIMEOUT_MS = 120_000;
/** Two retries after the first attempt. */
export const RETRY_LIMIT = 2;
export const MAX_ATTEMPTS = RETRY_LIMIT + 1;
/** Unfinished (pending or processing) generations a store may have at once. */
export const MAX_UNFINISHED = 8;
/** Assets are stored in the database; larger images are refused. */
export const MAX_ASSET_BYTES = 8 * 1024 * 1024;
export const PROMPT_MAX = 4000;

export const SIZES: Record<ImageKind, { width: number; height: number }> = {
  logo: { width: 512, height: 512 },
  icon: { width: 256, height: 256 },
  cover: { width: 1536, height: 512 },
  palette: { width: 512, height: 128 },
};

/** Palettes are drawn here whatever the provider: an image model cannot be trusted with exact colours. */
export const PALETTE_PROVIDER = { name: 'local', model: 'souk-palette-1' } as const;

/** What a queued job carries; everything else is read from the generation row. */
export interface GenerationJob {
  generationId: string;
  /** The brief's colours when the palette was asked for: they lead the palette. */
  baseColors?: string[];
}

/** Each running service's configured image provider (set by the AI module); null when `openai` is chosen but not configured. */
export const imageProviders = new WeakMap<Deps, ImageProvider | null>();

/** The provider for new generations; chosen but unconfigured → 503. */
export function requireImageProvider(deps: Deps): ImageProvider {
  const provider = imageProviders.get(deps);
  if (provider) return provider;
  throw notConfigured('The openai image provider', 'SOUK_AI_API_KEY');
}

export function generationView(deps: Deps, g: AiGeneration, assets: AiAsset[], now = Date.now()): AiGenerationType {
  return {
    id: g.id,
    studioId: g.studioId,
    kind: g.kind,
    status: g.status,
    progress: Math.round(g.progress * 1000) / 1000,
    prompt: g.prompt,
    provider: g.provider,
    model: g.model,
    seed: g.seed,
    n: g.n,
    width: g.width,
    height: g.height,
    colors: g.colors,
    attempts: g.attempts,
    assets: [...assets]
      .sort((a, b) => a.position - b.position)
      .map((a) => ({ id: a.id, url: assetUrl(deps.config, a.id, now), sha256: a.sha256, width: a.width, height: a.height, colors: a.colors })),
    error: g.error,
    createdAt: g.createdAt.toISOString(),
    updatedAt: g.updatedAt.toISOString(),
  };
}

/** Views of generations with their assets: two queries, whatever the page size. */
export async function generationViews(ctx: Ctx, generations: AiGeneration[]): Promise<AiGenerationType[]> {
  if (!generations.length) return [];
  const assets = await ctx.em.find(AiAsset, { generationId: { $in: generations.map((g) => g.id) } }, { orderBy: { generationId: 'asc', position: 'asc' } });
  const by = new Map<string, AiAsset[]>();
  for (const a of assets) by.set(a.generationId, [...(by.get(a.generationId) ?? []), a]);
  const now = Date.now();
  return generations.map((g) => generationView(ctx.deps, g, by.get(g.id) ?? [], now));
}

export async function listGenerations(
  ctx: Ctx,
  storeId: string,
  studioId: string,
  args: { limit?: number | null; cursor?: string | null; kind?: string | null; status?: string | null },
) {
  const limit = pageLimit(args.limit);
  const studio = await ctx.em.findOne(BrandStudio, { id: studioId, storeId }, { fields: ['id'] });
  if (!studio) throw notFound('brand studio');
  const rows = await ctx.em.find(
    AiGeneration,
    {
      studioId,
      ...(args.cursor ? { id: { $lt: args.cursor } } : {}),
      ...(args.kind ? { kind: args.kind } : {}),
      ...(args.status ? { status: args.status } : {}),
    },
    { orderBy: { id: 'desc' }, limit: limit + 1 },
  );
  const p = page(rows, limit);
  return { data: await generationViews(ctx, p.data), nextCursor: p.nextCursor };
}

/** The brief's values a template may use when it declares them. */
function briefValues(studio: BrandStudio, kind: ImageKind): Record<string, unknown> {
  return { brandName: studio.brief.brandName, tone: studio.brief.tone, keywords: studio.brief.keywords, colors: studio.brief.colors, kind };
}

const KIND_TEXT: Record<ImageKind, string> = {
  logo: 'A clean, memorable vector logo mark',
  icon: 'A simple, bold app icon, legible at small sizes',
  cover: 'A wide cover banner',
  palette: 'A brand colour palette',
};

/** The prompt without a template: the kind, then the brief. */
export function defaultPrompt(studio: BrandStudio, kind: ImageKind): string {
  const b = studio.brief;
  const parts = [`${KIND_TEXT[kind]} for the brand "${b.brandName}"`];
  if (b.tone) parts.push(`tone: ${b.tone}`);
  if (b.keywords.length) parts.push(`keywords: ${b.keywords.join(', ')}`);
  if (b.colors.length) parts.push(`colours: ${b.colors.join(', ')}`);
  return `${parts.join('; ')}.`;
}

/** A platform template or one of this store's; anything else → 400. */
async function findTemplate(ctx: Ctx, storeId: string, id: string): Promise<ImagePromptTemplate> {
  const t = await ctx.em.findOne(ImagePromptTemplate, { id });
  if (!t || (t.storeId !== null && t.storeId !== storeId)) throw invalid('generate.promptTemplateId', 'is not a prompt template of the platform or of this store');
  return t;
}

/** The prompt of each kind, placeholders filled: generate.props over the template's props over the brief. */
export async function resolvePrompts(ctx: Ctx, studio: BrandStudio, g: BrandGenerateInput): Promise<Map<ImageKind, string>> {
  const kinds = g.kinds as ImageKind[];
  const out = new Map<ImageKind, string>();
  if (!g.promptTemplateId) {
    if (g.props != null) throw invalid('generate.props', 'needs a promptTemplateId');
    for (const k of kinds) out.set(k, defaultPrompt(studio, k));
    return out;
  }
  const t = await findTemplate(ctx, studio.storeId, g.promptTemplateId);
  const used = placeholders(t.prompt);
  const values = kinds.map((k) => {
    const fromBrief = Object.fromEntries(Object.entries(briefValues(studio, k)).filter(([name]) => used.includes(name)));
    return { ...fromBrief, ...t.props, ...(g.props ?? {}) };
  });
  await checkPropsOffThread(ctx.deps.cpu, { schema: t.propsSchema, schemaPath: 'generate.promptTemplateId', values, prefix: 'generate.props' }, cpuOwner(ctx, studio.storeId));
  for (const [i, k] of kinds.entries()) {
    const prompt = fillPlaceholders(t.prompt, values[i]).trim();
    if (!prompt) throw invalid('generate.props', 'would leave the prompt empty');
    if (prompt.length > PROMPT_MAX) throw invalid('generate.props', `would make the prompt longer than ${PROMPT_MAX} characters`);
    out.set(k, prompt);
  }
  return out;
}

/**
 * Queues one generation per kind in the caller's transaction. The store row is locked first,
 * so concurrent requests count unfinished generations one after the other; the daily counter
 * is a conditional upsert. Either limit → 422 and nothing is queued.
 */
export async function queueGenerations(tx: TxCtx, studio: BrandStudio, g: BrandGenerateInput): Promise<AiGeneration[]> {
  const prompts = await resolvePrompts(tx, studio, g);
  const provider = requireImageProvider(tx.deps);
  const kinds = g.kinds as ImageKind[];
  const em = tx.em as EntityManager;
  // NO KEY UPDATE, as every store lock: commits that check a foreign key to the store (KEY SHARE) never wait for it.
  await em.execute('select id from stores where id = ? for no key update', [studio.storeId]);
  const [{ n: unfinished }] = await em.execute<Array<{ n: number }>>(
    `select count(*)::int as n from ai_generations where store_id = ? and status in ('pending','processing')`,
    [studio.storeId],
  );
  if (unfinished + kinds.length > MAX_UNFINISHED) {
    throw new AppError('LIMIT_EXCEEDED', `This store has ${unfinished} unfinished generations; at most ${MAX_UNFINISHED} may wait or run at once`);
  }
  const quota = tx.deps.config.aiDailyQuota;
  const [used] =
    kinds.length > quota
      ? []
      : await em.execute<Array<{ generations: number }>>(
          `insert into ai_usage (store_id, day, generations) values (?, (now() at time zone 'utc')::date, ?)
           on conflict (store_id, day) do update set generations = ai_usage.generations + excluded.generations
           where ai_usage.generations + excluded.generations <= ?
           returning generations`,
          [studio.storeId, kinds.length, quota],
        );
  if (!used) throw new AppError('LIMIT_EXCEEDED', `This store reached its daily quota of ${quota} generations (it resets at 00:00 UTC)`);
  const seed = g.seed ?? randomInt(0, 2 ** 31 - 1);
  const n = g.n ?? 1;
  const generations = kinds.map((kind) => {
    const source = kind === 'palette' ? PALETTE_PROVIDER : provider;
    return em.create(AiGeneration, {
      storeId: studio.storeId,
      studioId: studio.id,
      kind,
      prompt: prompts.get(kind)!,
      provider: source.name,
      model: source.model,
      seed,
      n,
      ...SIZES[kind],
      jobId: randomUUID(),
    });
  });
  await em.flush();
  await enqueueInTransaction(
    tx,
    AI_QUEUE,
    generations.map((gen) => ({
      id: gen.jobId!,
      data: { generationId: gen.id, ...(gen.kind === 'palette' ? { baseColors: studio.brief.colors } : {}) } satisfies GenerationJob,
    })),
  );
  for (const gen of generations) await emitGeneration(tx, studio.storeId, generationView(tx.deps, gen, []));
  return generations;
}

/** Progress reaches realtime subscribers that name `aiGenerationUpdated`; never webhooks. */
export async function emitGeneration(tx: TxCtx, storeId: string, view: AiGenerationType): Promise<void> {
  await recordRealtimeEvent(tx, { storeId, event: 'aiGenerationUpdated', data: { store_id: storeId, generation: view } });
}
