import { LockMode } from '@mikro-orm/core';
import { TemplateComponent, MARKETPLACE_POLICIES, SHARED_POLICIES } from './component.entity.js';
import type { ForkInput, TemplateComponentInput, TemplateComponentPage, TemplateComponentType, TemplateComponentUpdateInput } from './component.types.js';
import { checkSchemasOffThread, type SchemaCheck } from './json-schema.js';
import type { Ctx } from '../../core/context.js';
import { AppError, notFound } from '../../core/errors.js';
import { holdsPermission } from '../../core/policy.js';
import { transaction } from '../../core/tx.js';
import { page, pageLimit } from '../../lib/pagination.js';
import { jsonBytes, stableJson } from '../../lib/json.js';
import { cpuOwner } from '../../core/cpu.js';

/** A schema or default document may hold up to 64 KiB of JSON. */
const MAX_DOCUMENT = 64 * 1024;

export function componentView(c: TemplateComponent, sourceVersion: number | null): TemplateComponentType {
  return {
    id: c.id,
    storeId: c.storeId,
    title: c.title,
    subtitle: c.subtitle,
    body: c.body,
    category: c.category,
    tags: c.tags,
    imageUrl: c.imageUrl,
    code: c.code,
    propsSchema: c.propsSchema,
    slotsSchema: c.slotsSchema,
    propsDefault: c.propsDefault,
    slotsDefault: c.slotsDefault,
    policy: c.policy,
    parentId: c.parentId,
    parentVersion: c.parentVersion,
    version: c.version,
    updateAvailable: c.parentId !== null && sourceVersion !== null && sourceVersion > (c.parentVersion ?? 0),
    createdAt: c.createdAt.toISOString(),
    updatedAt: c.updatedAt.toISOString(),
  };
}

/** Views with `updateAvailable`, reading every source's version in one query. */
async function views(ctx: Ctx, rows: TemplateComponent[]): Promise<TemplateComponentType[]> {
  const parentIds = [...new Set(rows.map((r) => r.parentId).filter((id): id is string => !!id))];
  const versions = new Map<string, number>();
  if (parentIds.length) {
    const parents = await ctx.em.find(TemplateComponent, { id: { $in: parentIds } }, { fields: ['id', 'version'] });
    for (const p of parents) versions.set(p.id, p.version);
  }
  return rows.map((r) => componentView(r, r.parentId ? (versions.get(r.parentId) ?? null) : null));
}

function checkSize(value: unknown, path: string) {
  if (value !== null && value !== undefined && jsonBytes(value) > MAX_DOCUMENT) {
    throw new AppError('VALIDATION_FAILED', `${path}: must be at most ${MAX_DOCUMENT} bytes of JSON`, [{ path, message: `must be at most ${MAX_DOCUMENT} bytes of JSON` }]);
  }
}

/** Schemas must compile and defaults validate against them, whichever of them changed. */
async function checkDocuments(ctx: Ctx, c: Pick<TemplateComponent, 'storeId' | 'propsSchema' | 'slotsSchema' | 'propsDefault' | 'slotsDefault'>): Promise<void> {
  for (const [value, path] of [
    [c.propsSchema, 'propsSchema'],
    [c.slotsSchema, 'slotsSchema'],
    [c.propsDefault, 'propsDefault'],
    [c.slotsDefault, 'slotsDefault'],
  ] as const) checkSize(value, path);
  const checks: SchemaCheck[] = [{ schema: c.propsSchema, schemaPath: 'propsSchema', value: { data: c.propsDefault, path: 'propsDefault' } }];
  if (c.slotsSchema) checks.push({ schema: c.slotsSchema, schemaPath: 'slotsSchema', value: c.slotsDefault ? { data: c.slotsDefault, path: 'slotsDefault' } : undefined });
  await checkSchemasOffThread(ctx.deps.cpu, checks, cpuOwner(ctx, c.storeId));
}

const identity = (c: Pick<TemplateComponent, 'code' | 'propsSchema' | 'slotsSchema'>) => stableJson([c.code, c.propsSchema, c.slotsSchema]);

export async function listComponents(
  ctx: Ctx,
  storeId: string | null | undefined,
  f: { limit?: number | null; cursor?: string | null; policy?: string | null; category?: string | null; q?: string | null },
): Promise<TemplateComponentPage> {
  const limit = pageLimit(f.limit);
  const where: Record<string, unknown> = storeId ? { storeId } : { policy: { $in: MARKETPLACE_POLICIES } };
  if (f.policy) {
    if (!storeId && !MARKETPLACE_POLICIES.includes(f.policy)) return { data: [], nextCursor: null };
    where.policy = f.policy;
  }
  if (f.category) where.category = f.category;
  if (f.cursor) where.id = { $lt: f.cursor };
  if (f.q) {
    const like = `%${f.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    where.$or = [{ title: { $ilike: like } }, { subtitle: { $ilike: like } }, { category: { $ilike: like } }];
  }
  const rows = await ctx.em.find(TemplateComponent, where, { orderBy: { id: 'desc' }, limit: limit + 1 });
  const p = page(rows, limit);
  return { data: await views(ctx, p.data), nextCursor: p.nextCursor };
}

async function findInStore(ctx: Ctx, storeId: string, id: string): Promise<TemplateComponent> {
  const c = await ctx.em.findOne(TemplateComponent, { id, storeId });
  if (!c) throw notFound('template component');
  return c;
}

/** With a store: that store's entry. Without: an entry shared by link or in the marketplace. */
export async function getComponent(ctx: Ctx, storeId: string | null | undefined, id: string): Promise<TemplateComponentType> {
  const c = storeId ? await findInStore(ctx, storeId, id) : await ctx.em.findOne(TemplateComponent, { id, policy: { $in: SHARED_POLICIES } });
  if (!c) throw notFound('template component');
  return (await views(ctx, [c]))[0];
}

export async function createComponent(ctx: Ctx, storeId: string, input: TemplateComponentInput): Promise<TemplateComponentType> {
  return transaction(ctx, async (tx) => {
    const c = tx.em.create(TemplateComponent, { storeId, ...fieldsOf(input) });
    await checkDocuments(tx, c);
    await tx.em.flush();
    return componentView(c, null);
  });
}

function fieldsOf(input: TemplateComponentInput) {
  return {
    title: input.title.trim(),
    code: input.code,
    subtitle: input.subtitle ?? null,
    body: input.body ?? null,
    category: input.category ?? null,
    tags: input.tags ?? [],
    imageUrl: input.imageUrl ?? null,
    propsSchema: input.propsSchema ?? {},
    slotsSchema: input.slotsSchema ?? null,
    propsDefault: input.propsDefault ?? {},
    slotsDefault: input.slotsDefault ?? null,
    policy: input.policy ?? 'private',
  };
}

/** PUT replaces every field, PATCH the given ones; `version` follows code and schemas either way. */
export async function updateComponent(
  ctx: Ctx,
  storeId: string,
  id: string,
  input: TemplateComponentUpdateInput | TemplateComponentInput,
  mode: 'patch' | 'replace',
): Promise<TemplateComponentType> {
  return transaction(ctx, async (tx) => {
    const c = await tx.em.findOne(TemplateComponent, { id, storeId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!c) throw notFound('template component');
    const before = identity(c);
    if (mode === 'replace') {
      Object.assign(c, fieldsOf(input as TemplateComponentInput));
    } else {
      const p = input as TemplateComponentUpdateInput;
      if (p.title != null) c.title = p.title.trim();
      if (p.code != null) c.code = p.code;
      if (p.policy != null) c.policy = p.policy;
      if (p.propsSchema !== undefined) c.propsSchema = p.propsSchema ?? {};
      if (p.propsDefault !== undefined) c.propsDefault = p.propsDefault ?? {};
      if (p.tags !== undefined) c.tags = p.tags ?? [];
      for (const key of ['subtitle', 'body', 'category', 'imageUrl', 'slotsSchema', 'slotsDefault'] as const) {
        if (p[key] !== undefined) (c as unknown as Record<string, unknown>)[key] = p[key];
      }
    }
    await checkDocuments(tx, c);
    if (identity(c) !== before) c.version += 1;
    c.updatedAt = new Date();
    await tx.em.flush();
    return (await views(tx, [c]))[0];
  });
}

export async function deleteComponent(ctx: Ctx, storeId: string, id: string): Promise<void> {
  await transaction(ctx, async (tx) => {
    tx.em.remove(await findInStore(tx, storeId, id));
    await tx.em.flush();
  });
}

/**
 * A private copy in `storeId` pointing back at its source. The source is readable when it is
 * shared (unlisted, public, deprecated) or belongs to a store the caller may read.
 */
export async function forkComponent(ctx: Ctx, storeId: string, id: string, input: ForkInput): Promise<TemplateComponentType> {
  return transaction(ctx, async (tx) => {
    const source = await tx.em.findOne(TemplateComponent, { id });
    if (!source || (!SHARED_POLICIES.includes(source.policy) && !(await holdsPermission(tx, source.storeId, 'store.read')))) throw notFound('template component');
    const fork = tx.em.create(TemplateComponent, {
      storeId,
      title: input.title?.trim() || source.title,
      subtitle: source.subtitle,
      body: source.body,
      category: source.category,
      tags: [...source.tags],
      imageUrl: source.imageUrl,
      code: source.code,
      propsSchema: source.propsSchema,
      slotsSchema: source.slotsSchema,
      propsDefault: source.propsDefault,
      slotsDefault: source.slotsDefault,
      policy: 'private',
      parentId: source.id,
      parentVersion: source.version,
    });
    await tx.em.flush();
    return componentView(fork, source.version);
  });
}
