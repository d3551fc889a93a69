import { InventoryLevel } from './inventory.entity.js';
import {
  LEVEL_KEY,
  type InventoryAvailabilityType,
  type InventoryDeltasInput,
  type InventoryDeltasResult,
  type InventoryLevelBatchDeleteInput,
  type InventoryLevelBatchResult,
  type InventoryLevelBatchSetInput,
  type InventoryLevelSetInput,
  type InventoryLevelType,
  type InventoryReceiveInput,
} from './inventory.types.js';
import { levelView, warehouseFor } from './inventory.service.js';
import { deltasApplied, dropEmptyLevel, lockLevels, moveStock, openLevel, type StockLine } from './stock.service.js';
import { lockStockedProducts, stockBySku } from '../products/product.stock.js';
import { AppError, conflict, invalid, notFound } from '../../core/errors.js';
import type { Ctx } from '../../core/context.js';
import { transaction, type TxCtx } from '../../core/tx.js';
import { runBatch } from '../../lib/batch.js';

/**
 * Writes to single levels: opening one with what is received, setting its count, removing an
 * empty one, and many signed deltas at once. Stock still moves only through `moveStock` (locks,
 * movements, product stock, productUpdated); products are locked before their levels.
 */

const noLevel = () => notFound('inventory level');
const keyOf = (warehouseId: string, productId: string) => `${warehouseId}~${productId}`;

function parseKey(key: string): { warehouseId: string; productId: string } {
  const m = LEVEL_KEY.exec(key);
  if (!m) throw noLevel();
  return { warehouseId: m[1], productId: m[2] };
}

async function readLevel(tx: TxCtx, warehouseId: string, productId: string): Promise<InventoryLevelType> {
  const level = await tx.em.findOne(InventoryLevel, { warehouseId, productId }, { refresh: true });
  if (!level) throw noLevel();
  return levelView(level);
}

async function productOfSku(tx: TxCtx, storeId: string, sku: string): Promise<string> {
  const found = await stockBySku(tx, storeId, [sku]);
  if (!found.length) throw invalid('sku', 'no product of this store has this SKU');
  if (found.length > 1) throw invalid('sku', `${found.length} products of this store have this SKU; give productId`);
  return found[0].id;
}

/** Receives `quantity` units of a product into a warehouse, opening its level there when it has none. */
export async function receiveInventory(ctx: Ctx, storeId: string, input: InventoryReceiveInput): Promise<InventoryLevelType> {
  if ((input.productId == null) === (input.sku == null)) throw invalid('productId', 'give exactly one of productId and sku');
  return transaction(ctx, async (tx) => {
    const productId = input.productId ?? (await productOfSku(tx, storeId, input.sku!));
    const [product] = await lockStockedProducts(tx, storeId, [productId]);
    if (!product) throw invalid('productId', 'no such product in this store');
    const warehouse = await warehouseFor(tx, storeId, input.warehouseId);
    if (input.warehouseId && !warehouse.active) throw invalid('warehouseId', 'is inactive: it receives no stock');
    await openLevel(tx, storeId, warehouse.id, product.id);
    if (input.quantity) await moveStock(tx, storeId, [{ productId: product.id, delta: input.quantity, refId: null }], { reason: 'adjustment', warehouseId: warehouse.id, enforce: false });
    return readLevel(tx, warehouse.id, product.id);
  });
}

/** Sets an existing level to `onHand`; the difference is an adjustment movement. Its product is locked first. */
async function setOne(tx: TxCtx, storeId: string, warehouseId: string, productId: string, onHand: number): Promise<InventoryLevelType> {
  const [product] = await lockStockedProducts(tx, storeId, [productId]);
  if (!product) throw noLevel();
  const current = (await lockLevels(tx, storeId, [{ warehouseId, productId }])).get(keyOf(warehouseId, productId));
  if (current === undefined) throw noLevel();
  if (onHand !== current) await moveStock(tx, storeId, [{ productId, delta: onHand - current, refId: null }], { reason: 'adjustment', warehouseId, enforce: false });
  return readLevel(tx, warehouseId, productId);
}

export async function setInventoryLevel(ctx: Ctx, storeId: string, input: InventoryLevelSetInput): Promise<InventoryLevelType> {
  return transaction(ctx, (tx) => setOne(tx, storeId, input.warehouseId, input.productId, input.onHand));
}

/** Removes a level that holds nothing (409 otherwise: its units would vanish from the product's stock without a movement). */
async function deleteOne(tx: TxCtx, storeId: string, warehouseId: string, productId: string): Promise<InventoryLevelType> {
  const [product] = await lockStockedProducts(tx, storeId, [productId]);
  if (!product) throw noLevel();
  const onHand = (await lockLevels(tx, storeId, [{ warehouseId, productId }])).get(keyOf(warehouseId, productId));
  if (onHand === undefined) throw noLevel();
  if (onHand !== 0) throw conflict(`The level holds ${onHand} units of "${product.name}"; set it to 0 first`);
  const view = await readLevel(tx, warehouseId, productId);
  await dropEmptyLevel(tx, storeId, warehouseId, productId);
  return view;
}

export async function deleteInventoryLevel(ctx: Ctx, storeId: string, warehouseId: string, productId: string): Promise<void> {
  await transaction(ctx, (tx) => deleteOne(tx, storeId, warehouseId, productId));
}

/** Every product a batch names, locked up front in id order, so concurrent batches never deadlock. */
const lockBatchProducts = (storeId: string, ids: string[]) => async (tx: TxCtx) => {
  await lockStockedProducts(tx, storeId, ids.flatMap((id) => LEVEL_KEY.exec(id)?.[2] ?? []));
};

export async function batchSetInventoryLevels(ctx: Ctx, storeId: string, input: InventoryLevelBatchSetInput): Promise<InventoryLevelBatchResult> {
  return runBatch(
    ctx,
    input,
    (tx, id) => {
      const { warehouseId, productId } = parseKey(id);
      return setOne(tx, storeId, warehouseId, productId, input.onHand);
    },
    lockBatchProducts(storeId, input.ids),
  );
}

export async function batchDeleteInventoryLevels(ctx: Ctx, storeId: string, input: InventoryLevelBatchDeleteInput): Promise<InventoryLevelBatchResult> {
  return runBatch(
    ctx,
    input,
    (tx, id) => {
      const { warehouseId, productId } = parseKey(id);
      return deleteOne(tx, storeId, warehouseId, productId);
    },
    lockBatchProducts(storeId, input.ids),
  );
}

/**
 * Applies signed deltas to existing levels in one transaction, all or none, in order: each is
 * a movement (reason `adjustment`, refId the key); a level of a product without
 * `allowBackorder` never goes below zero (409 at `deltas.{i}`, the first delta that would take
 * it there). With a key already applied in the store nothing moves again.
 */
export async function applyInventoryDeltas(ctx: Ctx, storeId: string, input: InventoryDeltasInput): Promise<InventoryDeltasResult> {
  const keys = [...new Map(input.deltas.map((d) => [keyOf(d.warehouseId, d.productId), { warehouseId: d.warehouseId, productId: d.productId }])).values()];
  return transaction(ctx, async (tx) => {
    const levels = async () => Promise.all(keys.map((k) => readLevel(tx, k.warehouseId, k.productId)));
    if (input.key && (await deltasApplied(tx, storeId, input.key))) return { levels: await levels(), replayed: true };
    const products = new Map((await lockStockedProducts(tx, storeId, keys.map((k) => k.productId))).map((p) => [p.id, p]));
    const balance = await lockLevels(tx, storeId, keys);
    const byWarehouse = new Map<string, StockLine[]>();
    input.deltas.forEach((d, i) => {
      const product = products.get(d.productId);
      if (!product) throw invalid(`deltas.${i}.productId`, 'no such product in this store');
      const key = keyOf(d.warehouseId, d.productId);
      const before = balance.get(key);
      if (before === undefined) throw invalid(`deltas.${i}`, 'the product has no level in this warehouse (receive into it first)');
      const after = before + d.delta;
      if (d.delta < 0 && after < 0 && !product.allowBackorder) {
        const message = `would take "${product.name}" (${product.id}) in ${d.warehouseId} to ${after}: ${before} on hand`;
        throw new AppError('CONFLICT', `deltas.${i}: ${message}; nothing was applied`, [{ path: `deltas.${i}`, message }]);
      }
      balance.set(key, after);
      const lines = byWarehouse.get(d.warehouseId) ?? [];
      lines.push({ productId: d.productId, delta: d.delta, refId: input.key ?? null });
      byWarehouse.set(d.warehouseId, lines);
    });
    for (const [warehouseId, lines] of [...byWarehouse].sort(([a], [b]) => (a < b ? -1 : 1))) {
      await moveStock(tx, storeId, lines, { reason: 'adjustment', warehouseId, enforce: false });
    }
    return { levels: await levels(), replayed: false };
  });
}

export const MAX_AVAILABILITY_SKUS = 200;

/** What the store holds of each SKU: its products' stock (the sum of their levels), never below 0; an unknown SKU is 0. */
export async function inventoryAvailability(ctx: Ctx, storeId: string, skus: string[]): Promise<InventoryAvailabilityType[]> {
  const wanted = [...new Set(skus)];
  if (!wanted.length || wanted.length > MAX_AVAILABILITY_SKUS || wanted.some((s) => !s)) throw invalid('skus', `must hold 1 to ${MAX_AVAILABILITY_SKUS} SKUs`);
  const held = new Map<string, number>();
  for (const p of await stockBySku(ctx, storeId, wanted)) held.set(p.sku, (held.get(p.sku) ?? 0) + p.stock);
  return wanted.map((sku) => ({ sku, available: Math.max(0, held.get(sku) ?? 0) }));
}
