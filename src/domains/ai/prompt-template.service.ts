import { LockMode } from '@mikro-orm/core';
import type { Ctx } from '../../core/context.js';
import { invalid, notFound } from '../../core/errors.js';
import { transaction } from '../../core/tx.js';
import { page, pageLimit } from '../../lib/pagination.js';
import { ImagePromptTemplate } from './prompt-template.entity.js';
import { checkPropsOffThread } from './prompt.js';
import type { ImagePromptTemplateCreateInput, ImagePromptTemplateType, ImagePromptTemplateUpdateInput } from './ai.types.js';
import { cpuOwner } from '../../core/cpu.js';

/** Schemas and default props are small documents. */
const JSON_MAX = 16 * 1024;

export function templateView(t: ImagePromptTemplate): ImagePromptTemplateType {
  return {
    id: t.id,
    storeId: t.storeId,
    name: t.name,
    description: t.description,
    prompt: t.prompt,
    tags: t.tags,
    propsSchema: t.propsSchema,
    props: t.props,
    previewImageUrl: t.previewImageUrl,
    createdAt: t.createdAt.toISOString(),
    updatedAt: t.updatedAt.toISOString(),
  };
}

function sized(value: Record<string, unknown>, path: string): Record<string, unknown> {
  if (Buffer.byteLength(JSON.stringify(value)) > JSON_MAX) throw invalid(path, `must be at most ${JSON_MAX / 1024} KiB of JSON`);
  return value;
}

/** The rules of a template as a whole: placeholders declared, schema compiles, default props valid. */
function check(ctx: Ctx, storeId: string | null, t: { prompt: string; propsSchema: Record<string, unknown>; props: Record<string, unknown> }): Promise<void> {
  return checkPropsOffThread(ctx.deps.cpu, { schema: t.propsSchema, schemaPath: 'propsSchema', prompt: t.prompt, values: [t.props], prefix: 'props', defaults: true }, cpuOwner(ctx, storeId));
}

const tags = (list: string[]) => [...new Set(list.map((t) => t.trim()).filter(Boolean))];

/** `storeId` null: the platform's templates. The resolver's policy already decided who may call. */
async function findTemplate(ctx: Ctx, storeId: string | null, id: string, lock = false): Promise<ImagePromptTemplate> {
  const t = await ctx.em.findOne(ImagePromptTemplate, { id, storeId }, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
  if (!t) throw notFound('prompt template');
  return t;
}

export async function listTemplates(ctx: Ctx, storeId: string | null, args: { limit?: number | null; cursor?: string | null; tag?: string | null; q?: string | null }) {
  const limit = pageLimit(args.limit);
  const q = args.q?.trim();
  const rows = await ctx.em.find(
    ImagePromptTemplate,
    {
      storeId,
      ...(args.cursor ? { id: { $lt: args.cursor } } : {}),
      ...(args.tag ? { tags: { $contains: [args.tag] } } : {}),
      ...(q ? { name: { $ilike: `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%` } } : {}),
    },
    { orderBy: { id: 'desc' }, limit: limit + 1 },
  );
  const p = page(rows, limit);
  return { data: p.data.map(templateView), nextCursor: p.nextCursor };
}

export async function getTemplate(ctx: Ctx, storeId: string | null, id: string): Promise<ImagePromptTemplateType> {
  return templateView(await findTemplate(ctx, storeId, id));
}

export async function createTemplate(ctx: Ctx, storeId: string | null, input: ImagePromptTemplateCreateInput): Promise<ImagePromptTemplateType> {
  const fields = {
    prompt: input.prompt,
    propsSchema: sized(input.propsSchema ?? {}, 'propsSchema'),
    props: sized(input.props ?? {}, 'props'),
  };
  await check(ctx, storeId, fields);
  return transaction(ctx, async (tx) => {
    const t = tx.em.create(ImagePromptTemplate, {
      storeId,
      name: input.name.trim(),
      description: input.description ?? null,
      tags: tags(input.tags ?? []),
      previewImageUrl: input.previewImageUrl ?? null,
      ...fields,
    });
    await tx.em.flush();
    return templateView(t);
  });
}

export async function updateTemplate(ctx: Ctx, storeId: string | null, id: string, input: ImagePromptTemplateUpdateInput): Promise<ImagePromptTemplateType> {
  return transaction(ctx, async (tx) => {
    // Locked: two concurrent edits (a prompt, a schema) must not each pass against the other's old half.
    const t = await findTemplate(tx, storeId, id, true);
    if (input.name != null) t.name = input.name.trim();
    if (input.description !== undefined) t.description = input.description;
    if (input.tags != null) t.tags = tags(input.tags);
    if (input.previewImageUrl !== undefined) t.previewImageUrl = input.previewImageUrl;
    if (input.prompt != null) t.prompt = input.prompt;
    if (input.propsSchema != null) t.propsSchema = sized(input.propsSchema, 'propsSchema');
    if (input.props != null) t.props = sized(input.props, 'props');
    // The merged template must hold together: a new prompt against the old schema, and so on.
    await check(tx, storeId, t);
    t.updatedAt = new Date();
    await tx.em.flush();
    return templateView(t);
  });
}

export async function deleteTemplate(ctx: Ctx, storeId: string | null, id: string): Promise<void> {
  await transaction(ctx, async (tx) => {
    tx.em.remove(await findTemplate(tx, storeId, id));
    await tx.em.flush();
  });
}
