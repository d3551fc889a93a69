import type { EntityManager } from '@mikro-orm/postgresql';
import { SupplierRecord } from './supplier.entity.js';
import type { Supplier } from './purchase-order.entity.js';
import type { SupplierBatchDeleteInput, SupplierBatchResult, SupplierCreateInput, SupplierRecordPage, SupplierRecordType, SupplierUpdateInput } from './supplier.types.js';
import { assertSmallJson } from '../inventory/inventory.service.js';
import { invalid, notFound } from '../../core/errors.js';
import type { Ctx } from '../../core/context.js';
import { transaction, type TxCtx } from '../../core/tx.js';
import { pageLimit } from '../../lib/pagination.js';
import { runBatch } from '../../lib/batch.js';

export function supplierView(s: SupplierRecord): SupplierRecordType {
  return {
    id: s.id,
    storeId: s.storeId,
    name: s.name,
    code: s.code,
    email: s.email,
    phone: s.phone,
    taxId: s.taxId,
    address: s.address,
    paymentTerms: s.paymentTerms,
    notes: s.notes,
    metadata: s.metadata ?? {},
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
  };
}

async function findSupplier(ctx: Ctx, storeId: string, id: string): Promise<SupplierRecord> {
  const s = await ctx.em.findOne(SupplierRecord, { id, storeId });
  if (!s) throw notFound('supplier');
  return s;
}

/**
 * The supplier block a purchase order keeps, copied from a supplier of the store. Another
 * store's supplier answers like a missing one (400 at `path`), so ids reveal nothing.
 */
export async function supplierSnapshot(ctx: Ctx, storeId: string, id: string, path: string): Promise<Supplier> {
  const s = await ctx.em.findOne(SupplierRecord, { id, storeId });
  if (!s) throw invalid(path, 'no such supplier in this store');
  return { name: s.name, email: s.email, phone: s.phone, address: s.address, taxId: s.taxId };
}

/** Throws 400 at `path` unless `id` is a supplier of the store. */
export async function assertSupplier(ctx: Ctx, storeId: string, id: string, path: string): Promise<void> {
  await supplierSnapshot(ctx, storeId, id, path);
}

function assertJson(input: SupplierCreateInput | SupplierUpdateInput): void {
  assertSmallJson(input.address, 'address');
  assertSmallJson(input.metadata, 'metadata');
}

const OPTIONAL = ['code', 'email', 'phone', 'taxId', 'address', 'paymentTerms', 'notes'] as const;

export async function createSupplier(ctx: Ctx, storeId: string, input: SupplierCreateInput): Promise<SupplierRecordType> {
  assertJson(input);
  return transaction(ctx, async (tx) => {
    const s = tx.em.create(SupplierRecord, { storeId, name: input.name.trim(), metadata: input.metadata ?? {} });
    for (const k of OPTIONAL) if (input[k] != null) (s as any)[k] = input[k];
    await tx.em.flush();
    return supplierView(s);
  });
}

/** A partial update: absent fields are kept, null clears one (name and metadata are never null). */
export async function updateSupplier(ctx: Ctx, storeId: string, id: string, input: SupplierUpdateInput): Promise<SupplierRecordType> {
  assertJson(input);
  return transaction(ctx, async (tx) => {
    const s = await findSupplier(tx, storeId, id);
    if (input.name != null) s.name = input.name.trim();
    for (const k of OPTIONAL) if (input[k] !== undefined) (s as any)[k] = input[k] ?? null;
    if (input.metadata != null) s.metadata = input.metadata;
    s.updatedAt = new Date();
    await tx.em.flush();
    return supplierView(s);
  });
}

export async function getSupplier(ctx: Ctx, storeId: string, id: string): Promise<SupplierRecordType> {
  return supplierView(await findSupplier(ctx, storeId, id));
}

/** Newest first; q matches part of the name, code, email or phone. */
export async function listSuppliers(ctx: Ctx, storeId: string, f: { limit?: number | null; cursor?: string | null; q?: string | null }): Promise<SupplierRecordPage> {
  const limit = pageLimit(f.limit);
  const conditions = ['store_id = ?'];
  const params: unknown[] = [storeId];
  if (f.cursor) {
    conditions.push('id < ?');
    params.push(f.cursor);
  }
  if (f.q) {
    const like = `%${f.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    conditions.push('(name ilike ? or code ilike ? or email ilike ? or phone ilike ?)');
    params.push(like, like, like, like);
  }
  const em = ctx.em as EntityManager;
  const rows = await em.execute<Array<Record<string, unknown>>>(`select * from suppliers where ${conditions.join(' and ')} order by id desc limit ?`, [...params, limit + 1]);
  const found = rows.slice(0, limit).map((r) => em.map(SupplierRecord, r));
  return { data: found.map(supplierView), nextCursor: rows.length > limit ? found[found.length - 1].id : null };
}

/** Purchase orders keep their own copy of the supplier, so deleting one changes no order. */
async function deleteOne(tx: TxCtx, storeId: string, id: string): Promise<SupplierRecordType> {
  const s = await findSupplier(tx, storeId, id);
  const view = supplierView(s);
  tx.em.remove(s);
  await tx.em.flush();
  return view;
}

export async function deleteSupplier(ctx: Ctx, storeId: string, id: string): Promise<boolean> {
  await transaction(ctx, (tx) => deleteOne(tx, storeId, id));
  return true;
}

export async function batchDeleteSuppliers(ctx: Ctx, storeId: string, input: SupplierBatchDeleteInput): Promise<SupplierBatchResult> {
  return runBatch(ctx, input, (tx, id) => deleteOne(tx, storeId, id));
}
