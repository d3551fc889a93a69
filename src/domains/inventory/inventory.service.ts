import type { EntityManager } from '@mikro-orm/postgresql';
import { LockMode, UniqueConstraintViolationException } from '@mikro-orm/core';
import { InventoryLevel, InventoryMovement, Warehouse } from './inventory.entity.js';
import type {
  InventoryAdjustInput,
  InventoryLevelPage,
  InventoryLevelType,
  InventoryMovementPage,
  InventoryMovementType,
  WarehouseBatchDeleteInput,
  WarehouseBatchResult,
  WarehouseCreateInput,
  WarehousePage,
  WarehouseType,
  WarehouseUpdateInput,
} from './inventory.types.js';
import { defaultWarehouseId, moveStock, seedFirstWarehouse } from './stock.service.js';
import { lockStockedProducts } from '../products/product.stock.js';
import { AppError, conflict, invalid, notFound } from '../../core/errors.js';
import type { Ctx } from '../../core/context.js';
import { transaction, type TxCtx } from '../../core/tx.js';
import { page, pageLimit } from '../../lib/pagination.js';
import { runBatch } from '../../lib/batch.js';
import { slugify } from '../../lib/slug.js';

/** Free-form JSON blocks (addresses) are kept small. */
export const MAX_ADDRESS_BYTES = 2048;

export function assertSmallJson(value: unknown, path: string, max = MAX_ADDRESS_BYTES): void {
  if (value != null && Buffer.byteLength(JSON.stringify(value)) > max) throw invalid(path, `must be at most ${max} bytes of JSON`);
}

export function warehouseView(w: Warehouse): WarehouseType {
  return {
    id: w.id,
    storeId: w.storeId,
    name: w.name,
    code: w.code,
    email: w.email,
    address: w.address,
    active: w.active,
    isDefault: w.isDefault,
    metadata: w.metadata,
    createdAt: w.createdAt.toISOString(),
    updatedAt: w.updatedAt.toISOString(),
  };
}

/** Warehouse writes of a store take turns: "first warehouse" and "one default" hold under concurrency. */
async function lockWarehouses(tx: TxCtx, storeId: string): Promise<void> {
  await (tx.em as EntityManager).execute('select pg_advisory_xact_lock(hashtextextended(?, 0))', [`warehouses:${storeId}`]);
}

const uniqueCode = <T>(p: Promise<T>) =>
  p.catch((err) => {
    if (err instanceof UniqueConstraintViolationException) throw conflict('The code is taken in this store');
    throw err;
  });

async function freeCode(tx: TxCtx, storeId: string, name: string): Promise<string> {
  const base = slugify(name).toUpperCase().slice(0, 40);
  const taken = new Set((await tx.em.find(Warehouse, { storeId, code: { $like: `${base}%` } }, { fields: ['id', 'code'] })).map((w) => w.code));
  if (!taken.has(base)) return base;
  for (let i = 2; ; i++) if (!taken.has(`${base}-${i}`)) return `${base}-${i}`;
}

async function assertCodeFree(tx: TxCtx, storeId: string, code: string, exceptId?: string): Promise<void> {
  const other = await tx.em.findOne(Warehouse, { storeId, code });
  if (other && other.id !== exceptId) throw conflict(`The code "${code}" is taken in this store`);
}

export async function listWarehouses(ctx: Ctx, storeId: string, args: { limit?: number | null; cursor?: string | null; active?: boolean | null }): Promise<WarehousePage> {
  const limit = pageLimit(args.limit);
  const where: Record<string, unknown> = { storeId };
  if (args.cursor) where.id = { $lt: args.cursor };
  if (args.active != null) where.active = args.active;
  const rows = await ctx.em.find(Warehouse, where, { orderBy: { id: 'desc' }, limit: limit + 1 });
  const p = page(rows, limit);
  return { data: p.data.map(warehouseView), nextCursor: p.nextCursor };
}

export async function findWarehouse(ctx: Ctx, storeId: string, id: string, lock = false): Promise<Warehouse> {
  const w = await ctx.em.findOne(Warehouse, { id, storeId }, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
  if (!w) throw notFound('warehouse');
  return w;
}

export async function getWarehouse(ctx: Ctx, storeId: string, id: string): Promise<WarehouseType> {
  return warehouseView(await findWarehouse(ctx, storeId, id));
}

/** Makes `w` the store's only default. */
async function makeDefault(tx: TxCtx, w: Warehouse): Promise<void> {
  const others = await tx.em.find(Warehouse, { storeId: w.storeId, isDefault: true, id: { $ne: w.id } }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  for (const o of others) {
    o.isDefault = false;
    o.updatedAt = new Date();
  }
  // The partial unique index allows one default: clear the old one before setting the new.
  await tx.em.flush();
  w.isDefault = true;
}

export async function createWarehouse(ctx: Ctx, storeId: string, input: WarehouseCreateInput): Promise<WarehouseType> {
  assertSmallJson(input.address, 'address');
  return uniqueCode(
    transaction(ctx, async (tx) => {
      await lockWarehouses(tx, storeId);
      if (input.code) await assertCodeFree(tx, storeId, input.code);
      const code = input.code ?? (await freeCode(tx, storeId, input.name));
      const first = (await tx.em.count(Warehouse, { storeId })) === 0;
      const w = tx.em.create(Warehouse, {
        storeId,
        name: input.name.trim(),
        code,
        email: input.email ?? null,
        address: input.address ?? null,
        active: input.active ?? true,
        metadata: input.metadata ?? {},
      });
      if (first) w.isDefault = true;
      else if (input.isDefault) await makeDefault(tx, w);
      await tx.em.flush();
      if (first) await seedFirstWarehouse(tx, storeId, w.id);
      return warehouseView(w);
    }),
  );
}

export async function updateWarehouse(ctx: Ctx, storeId: string, id: string, input: WarehouseUpdateInput): Promise<WarehouseType> {
  assertSmallJson(input.address, 'address');
  return uniqueCode(
    transaction(ctx, async (tx) => {
      await lockWarehouses(tx, storeId);
      const w = await findWarehouse(tx, storeId, id, true);
      if (input.isDefault === false && w.isDefault) throw invalid('isDefault', 'the default warehouse changes by making another warehouse the default');
      if (input.code != null && input.code !== w.code) {
        await assertCodeFree(tx, storeId, input.code, id);
        w.code = input.code;
      }
      if (input.name != null) w.name = input.name.trim();
      if (input.email !== undefined) w.email = input.email ?? null;
      if (input.address !== undefined) w.address = input.address ?? null;
      if (input.active != null) w.active = input.active;
      if (input.metadata != null) w.metadata = input.metadata;
      if (input.isDefault && !w.isDefault) await makeDefault(tx, w);
      w.updatedAt = new Date();
      await tx.em.flush();
      return warehouseView(w);
    }),
  );
}

/** 409 while it holds stock or an open purchase order awaits it; a deleted default passes to the oldest other warehouse. */
async function deleteOne(tx: TxCtx, storeId: string, id: string): Promise<WarehouseType> {
  const w = await findWarehouse(tx, storeId, id, true);
  const em = tx.em as EntityManager;
  const [stock] = await em.execute<Array<{ n: number }>>('select count(*)::int as n from inventory_levels where warehouse_id = ? and on_hand <> 0', [id]);
  if (stock.n) throw conflict(`The warehouse holds stock of ${stock.n} products; move or adjust it first`);
  const [open] = await em.execute<Array<{ n: number }>>(`select count(*)::int as n from purchase_orders where warehouse_id = ? and status in ('draft','sent','partial')`, [id]);
  if (open.n) throw conflict(`${open.n} open purchase orders await this warehouse`);
  const view = warehouseView(w);
  const wasDefault = w.isDefault;
  tx.em.remove(w);
  await tx.em.flush();
  if (wasDefault) {
    const [next] = await tx.em.find(Warehouse, { storeId }, { orderBy: { active: 'desc', createdAt: 'asc', id: 'asc' }, limit: 1 });
    if (next) {
      next.isDefault = true;
      next.updatedAt = new Date();
      await tx.em.flush();
    }
  }
  return view;
}

export async function deleteWarehouse(ctx: Ctx, storeId: string, id: string): Promise<void> {
  await transaction(ctx, async (tx) => {
    await lockWarehouses(tx, storeId);
    await deleteOne(tx, storeId, id);
  });
}

export async function batchDeleteWarehouses(ctx: Ctx, storeId: string, input: WarehouseBatchDeleteInput): Promise<WarehouseBatchResult> {
  return runBatch(ctx, input, (tx, id) => deleteOne(tx, storeId, id), (tx) => lockWarehouses(tx, storeId));
}

export const levelView = (l: InventoryLevel): InventoryLevelType => ({
  warehouseId: l.warehouseId,
  productId: l.productId,
  onHand: l.onHand,
  updatedAt: l.updatedAt.toISOString(),
});

const movementView = (m: InventoryMovement): InventoryMovementType => ({
  id: m.id,
  productId: m.productId,
  warehouseId: m.warehouseId,
  delta: m.delta,
  reason: m.reason,
  refId: m.refId,
  createdAt: m.createdAt.toISOString(),
});

/** Levels by warehouse then product; the cursor is the last row's `warehouseId/productId`. */
export async function listLevels(
  ctx: Ctx,
  storeId: string,
  args: { productId?: string | null; warehouseId?: string | null; limit?: number | null; cursor?: string | null },
): Promise<InventoryLevelPage> {
  const limit = pageLimit(args.limit);
  const where: Record<string, unknown> = { storeId };
  if (args.productId) where.productId = args.productId;
  if (args.warehouseId) where.warehouseId = args.warehouseId;
  if (args.cursor) {
    const [w, p] = args.cursor.split('/');
    if (!w || !p) throw invalid('cursor', 'is not a cursor of this list');
    where.$or = [{ warehouseId: { $gt: w } }, { warehouseId: w, productId: { $gt: p } }];
  }
  const rows = await ctx.em.find(InventoryLevel, where, { orderBy: { warehouseId: 'asc', productId: 'asc' }, limit: limit + 1 });
  const data = rows.slice(0, limit);
  const last = data[data.length - 1];
  return { data: data.map(levelView), nextCursor: rows.length > limit ? `${last.warehouseId}/${last.productId}` : null };
}

export async function listMovements(
  ctx: Ctx,
  storeId: string,
  args: { productId?: string | null; warehouseId?: string | null; limit?: number | null; cursor?: string | null },
): Promise<InventoryMovementPage> {
  const limit = pageLimit(args.limit);
  const where: Record<string, unknown> = { storeId };
  if (args.productId) where.productId = args.productId;
  if (args.warehouseId) where.warehouseId = args.warehouseId;
  if (args.cursor) where.id = { $lt: args.cursor };
  const rows = await ctx.em.find(InventoryMovement, where, { orderBy: { id: 'desc' }, limit: limit + 1 });
  const p = page(rows, limit);
  return { data: p.data.map(movementView), nextCursor: p.nextCursor };
}

/** The named warehouse of the store (400 at `warehouseId` when it has none such), else its default (409 without warehouses). */
export async function warehouseFor(tx: TxCtx, storeId: string, warehouseId: string | null | undefined): Promise<{ id: string; active: boolean }> {
  if (warehouseId) {
    const w = await tx.em.findOne(Warehouse, { id: warehouseId, storeId });
    if (!w) throw invalid('warehouseId', 'no such warehouse in this store');
    return { id: w.id, active: w.active };
  }
  const id = await defaultWarehouseId(tx, storeId);
  if (!id) throw new AppError('CONFLICT', 'This store has no warehouses; set the product stock instead');
  return { id, active: true };
}

/** Counts a product in a warehouse (an `adjustment` movement); needs a store with warehouses. */
export async function adjustInventory(ctx: Ctx, storeId: string, input: InventoryAdjustInput): Promise<InventoryLevelType> {
  if ((input.delta == null) === (input.onHand == null)) throw invalid('delta', 'give exactly one of delta and onHand');
  return transaction(ctx, async (tx) => {
    const [product] = await lockStockedProducts(tx, storeId, [input.productId]);
    if (!product) throw invalid('productId', 'no such product in this store');
    const warehouseId = (await warehouseFor(tx, storeId, input.warehouseId)).id;
    const current = (await tx.em.findOne(InventoryLevel, { warehouseId, productId: product.id }))?.onHand ?? 0;
    const delta = input.delta ?? input.onHand! - current;
    await moveStock(tx, storeId, [{ productId: product.id, delta, refId: null }], { reason: 'adjustment', warehouseId, enforce: false });
    const level = await tx.em.findOne(InventoryLevel, { warehouseId, productId: product.id }, { refresh: true });
    return level ? levelView(level) : { warehouseId, productId: product.id, onHand: 0, updatedAt: new Date().toISOString() };
  });
}
