import type { EntityManager } from '@mikro-orm/postgresql';
import type { ProductType } from '../products/product.types.js';
import { addToStock, lockStockedProducts } from '../products/product.stock.js';
import type { ProductStockSet } from '../products/product.hooks.js';
import { holdsStock } from '../orders/statuses.js';
import type { OrderBatch, OrderChange, OrderLine, StatusKindMove } from '../orders/order.hooks.js';
import { conflict } from '../../core/errors.js';
import type { Ctx } from '../../core/context.js';
import type { TxCtx } from '../../core/tx.js';
import { newId } from '../../lib/ids.js';

/**
 * Every stock change goes through here: product rows are locked (in id order, so concurrent
 * writers never deadlock) before their levels are read, a product's row lock guards its levels,
 * `products.stock` stays the sum of the product's levels when the store has warehouses, each
 * change is a movement in the ledger, and each product changed emits one productUpdated.
 */

export type StockReason = 'order' | 'purchase_order' | 'adjustment';

/** One movement to write: `delta` units of a product, caused by `refId`. */
export interface StockLine {
  productId: string;
  delta: number;
  refId: string | null;
}

export interface StockMove {
  reason: StockReason;
  /** Where the stock moves; undefined: the store's default warehouse (none when it has no warehouses). */
  warehouseId?: string | null;
  /** Refuse (409) to take a product without `allowBackorder` below zero. */
  enforce: boolean;
}

const sqlOf = (ctx: Ctx) => ctx.em as EntityManager;

/** The store's default warehouse, share-locked so it is not deleted under this transaction. */
export async function defaultWarehouseId(ctx: Ctx, storeId: string): Promise<string | null> {
  const [row] = await sqlOf(ctx).execute<Array<{ id: string }>>('select id from warehouses where store_id = ? and is_default for share', [storeId]);
  return row?.id ?? null;
}

export async function storeHasWarehouses(ctx: Ctx, storeId: string): Promise<boolean> {
  const [row] = await sqlOf(ctx).execute<Array<{ n: number }>>('select count(*)::int as n from warehouses where store_id = ?', [storeId]);
  return row.n > 0;
}

async function insertMovements(tx: TxCtx, storeId: string, warehouseId: string | null, reason: StockReason, lines: StockLine[], at: Date): Promise<void> {
  if (!lines.length) return;
  await sqlOf(tx).execute(
    `insert into inventory_movements (id, store_id, product_id, warehouse_id, delta, reason, ref_id, created_at) values ${lines.map(() => '(?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
    lines.flatMap((l) => [newId('ine'), storeId, l.productId, warehouseId, l.delta, reason, l.refId, at]),
  );
}

async function addToLevels(tx: TxCtx, storeId: string, warehouseId: string, deltas: Map<string, number>, at: Date): Promise<void> {
  if (!deltas.size) return;
  const entries = [...deltas];
  await sqlOf(tx).execute(
    `insert into inventory_levels (warehouse_id, product_id, store_id, on_hand, updated_at) values ${entries.map(() => '(?, ?, ?, ?, ?)').join(', ')}
     on conflict (warehouse_id, product_id) do update set on_hand = inventory_levels.on_hand + excluded.on_hand, updated_at = excluded.updated_at`,
    entries.flatMap(([productId, delta]) => [warehouseId, productId, storeId, delta, at]),
  );
}

/**
 * Moves stock: locks the products, checks the floor, updates levels and products, writes the
 * movements and emits productUpdated per product. Lines naming products the store no longer
 * has are skipped. Returns the products as they are now.
 */
export async function moveStock(tx: TxCtx, storeId: string, lines: StockLine[], move: StockMove): Promise<Map<string, ProductType>> {
  const live = lines.filter((l) => l.delta !== 0);
  const net = new Map<string, number>();
  for (const l of live) net.set(l.productId, (net.get(l.productId) ?? 0) + l.delta);
  const rows = await lockStockedProducts(tx, storeId, net.keys());
  if (!rows.length) return new Map();
  const em = sqlOf(tx);
  const warehouseId = move.warehouseId === undefined ? await defaultWarehouseId(tx, storeId) : move.warehouseId;
  const levels = new Map<string, number>();
  if (warehouseId) {
    const found = await em.execute<Array<{ product_id: string; on_hand: number }>>(
      'select product_id, on_hand from inventory_levels where warehouse_id = ? and product_id in (?) order by product_id for update',
      [warehouseId, rows.map((r) => r.id)],
    );
    for (const l of found) levels.set(l.product_id, l.on_hand);
  }
  if (move.enforce) {
    for (const r of rows) {
      const d = net.get(r.id)!;
      if (d >= 0 || r.allowBackorder) continue;
      const available = warehouseId ? (levels.get(r.id) ?? 0) : r.stock;
      if (available + d < 0) throw conflict(`Not enough stock of "${r.name}" (${r.id}): ${available} available, ${-d} needed`);
    }
  }
  const changed = rows.filter((r) => net.get(r.id) !== 0);
  const known = new Set(rows.map((r) => r.id));
  const at = new Date();
  if (warehouseId) await addToLevels(tx, storeId, warehouseId, new Map(changed.map((r) => [r.id, net.get(r.id)!])), at);
  await insertMovements(tx, storeId, warehouseId, move.reason, live.filter((l) => known.has(l.productId)), at);
  return addToStock(tx, storeId, new Map(changed.map((r) => [r.id, net.get(r.id)!])), at);
}

/** What an order's stock looks like on each side of a change: its items, or null while it holds none. */
export interface HeldChange {
  orderId: string;
  before: readonly OrderLine[] | null;
  after: readonly OrderLine[] | null;
}

/** Gives back what the orders held and takes what they hold now, per product, in one move. */
export async function stockFollowsOrders(tx: TxCtx, storeId: string, changes: HeldChange[]): Promise<void> {
  const lines: StockLine[] = [];
  for (const c of changes) {
    const delta = new Map<string, number>();
    for (const i of c.before ?? []) if (i.productId) delta.set(i.productId, (delta.get(i.productId) ?? 0) + i.quantity);
    for (const i of c.after ?? []) if (i.productId) delta.set(i.productId, (delta.get(i.productId) ?? 0) - i.quantity);
    for (const [productId, d] of delta) if (d) lines.push({ productId, delta: d, refId: c.orderId });
  }
  if (lines.length) await moveStock(tx, storeId, lines, { reason: 'order', enforce: true });
}

/** The order domain's `beforeOrderChange`: moves the stock the change implies (409 when short). */
export async function stockFollowsOrderChange(tx: TxCtx, c: OrderChange): Promise<void> {
  const before = holdsStock(c.fromKind) ? c.itemsBefore : null;
  const after = holdsStock(c.toKind) ? c.itemsAfter : null;
  if (!before && !after) return;
  await stockFollowsOrders(tx, c.storeId, [{ orderId: c.orderId, before, after }]);
}

/**
 * The order domain's `beforeStatusKindMove`: every order of a status changes kind at once, and
 * their stock follows (the orders locked in id order, read only when holding changes).
 */
export async function stockFollowsStatusKind(tx: TxCtx, move: StatusKindMove): Promise<void> {
  const held = holdsStock(move.fromKind);
  if (held === holdsStock(move.toKind)) return;
  const orders = await move.orders();
  await stockFollowsOrders(tx, move.storeId, orders.map((o) => ({ orderId: o.id, before: held ? o.items : null, after: held ? null : o.items })));
}

/** The order domain's `beforeOrderBatch`: every product the batch may move, locked up front in id order. */
export async function lockProductsOfOrders(tx: TxCtx, batch: OrderBatch): Promise<void> {
  await lockStockedProducts(tx, batch.storeId, batch.orders.flatMap((o) => o.items.flatMap((i) => (i.productId ? [i.productId] : []))));
}

/**
 * A product's stock set by a product write (create or edit): the default warehouse absorbs the
 * difference and the ledger records it as an adjustment. Events are the product write's own.
 */
export async function stockFollowsProductWrite(tx: TxCtx, set: ProductStockSet): Promise<void> {
  const delta = set.stock - set.previousStock;
  if (!delta) return;
  const at = new Date();
  const warehouseId = await defaultWarehouseId(tx, set.storeId);
  if (warehouseId) await addToLevels(tx, set.storeId, warehouseId, new Map([[set.productId, delta]]), at);
  await insertMovements(tx, set.storeId, warehouseId, 'adjustment', [{ productId: set.productId, delta, refId: null }], at);
}

/**
 * A store's first warehouse takes the stock its products already have (not a stock change, so
 * no movement). The products are locked first: an order moving stock meanwhile commits before.
 */
export async function seedFirstWarehouse(tx: TxCtx, storeId: string, warehouseId: string): Promise<void> {
  await sqlOf(tx).execute('select id from products where store_id = ? order by id for update', [storeId]);
  await sqlOf(tx).execute(
    `insert into inventory_levels (warehouse_id, product_id, store_id, on_hand, updated_at)
     select ?, id, store_id, stock, ? from products where store_id = ? and stock <> 0`,
    [warehouseId, new Date(), storeId],
  );
}

/** A level's current count, row-locked; undefined when the product has none in the warehouse. Lock its product first. */
export async function lockLevels(tx: TxCtx, storeId: string, keys: ReadonlyArray<{ warehouseId: string; productId: string }>): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  if (!keys.length) return found;
  const rows = await sqlOf(tx).execute<Array<{ warehouse_id: string; product_id: string; on_hand: number }>>(
    `select warehouse_id, product_id, on_hand from inventory_levels where store_id = ? and (warehouse_id, product_id) in (${keys.map(() => '(?, ?)').join(', ')})
      order by warehouse_id, product_id for update`,
    [storeId, ...keys.flatMap((k) => [k.warehouseId, k.productId])],
  );
  for (const r of rows) found.set(`${r.warehouse_id}~${r.product_id}`, r.on_hand);
  return found;
}

/** Opens an empty level (no stock change, so no movement); an existing one stays as it is. */
export async function openLevel(tx: TxCtx, storeId: string, warehouseId: string, productId: string): Promise<void> {
  await sqlOf(tx).execute(
    'insert into inventory_levels (warehouse_id, product_id, store_id, on_hand, updated_at) values (?, ?, ?, 0, ?) on conflict (warehouse_id, product_id) do nothing',
    [warehouseId, productId, storeId, new Date()],
  );
}

/** Removes an empty level (the caller checked it holds nothing under its lock): no stock changes. */
export async function dropEmptyLevel(tx: TxCtx, storeId: string, warehouseId: string, productId: string): Promise<void> {
  await sqlOf(tx).execute('delete from inventory_levels where store_id = ? and warehouse_id = ? and product_id = ? and on_hand = 0', [storeId, warehouseId, productId]);
}

/** Whether deltas under this key were already applied in the store (their movements carry it as refId). */
export async function deltasApplied(tx: TxCtx, storeId: string, key: string): Promise<boolean> {
  // Requests with the same key take turns, so the second sees the first's movements once it commits.
  await sqlOf(tx).execute('select pg_advisory_xact_lock(hashtextextended(?, 0))', [`inventory-deltas:${storeId}:${key}`]);
  const [row] = await sqlOf(tx).execute<Array<{ n: number }>>(
    `select count(*)::int as n from (select 1 from inventory_movements where store_id = ? and ref_id = ? and reason = 'adjustment' limit 1) m`,
    [storeId, key],
  );
  return row.n > 0;
}
