import type { EntityManager } from '@mikro-orm/postgresql';
import { Product } from '../products/product.entity.js';
import { productView } from '../products/product.service.js';
import type { ProductType } from '../products/product.types.js';
import type { Order, OrderItem } from '../orders/order.entity.js';
import { storeCurrency } from '../stores/currency.js';
import { conflict } from '../../core/errors.js';
import type { Ctx } from '../../core/context.js';
import type { TxCtx } from '../../core/tx.js';
import { recordEvent } from '../../events/outbox.js';
import { newId } from '../../lib/ids.js';

/**
 * Every stock change goes through here: product rows are locked (in id order, so concurrent
 * writers never deadlock) before their levels are read, a product's row lock guards its levels,
 * `products.stock` stays the sum of the product's levels when the store has warehouses, each
 * change is a movement in the ledger, and each product changed emits one productUpdated.
 */

/** An order holds stock while the kind of its status is one of these (CONTRACT-2 §9). */
export const HOLDING_KINDS: ReadonlySet<string> = new Set(['confirmed', 'other', 'fulfilled']);
export const holdsStock = (kind: string | null | undefined): boolean => kind != null && HOLDING_KINDS.has(kind);

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

interface ProductRow {
  id: string;
  name: string;
  stock: number;
  allow_backorder: boolean;
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

/** Locks the store's products with these ids, in id order; returns the rows found. */
export async function lockProducts(tx: TxCtx, storeId: string, ids: Iterable<string>): Promise<Array<Record<string, unknown> & ProductRow>> {
  const sorted = [...new Set(ids)].sort();
  if (!sorted.length) return [];
  return sqlOf(tx).execute(`select * from products where store_id = ? and id in (?) order by id for update`, [storeId, sorted]);
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
  const rows = await lockProducts(tx, storeId, net.keys());
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
      if (d >= 0 || r.allow_backorder) continue;
      const available = warehouseId ? (levels.get(r.id) ?? 0) : Number(r.stock);
      if (available + d < 0) throw conflict(`Not enough stock of "${r.name}" (${r.id}): ${available} available, ${-d} needed`);
    }
  }
  const changed = rows.filter((r) => net.get(r.id) !== 0);
  const known = new Set(rows.map((r) => r.id));
  const at = new Date();
  if (warehouseId) await addToLevels(tx, storeId, warehouseId, new Map(changed.map((r) => [r.id, net.get(r.id)!])), at);
  await insertMovements(tx, storeId, warehouseId, move.reason, live.filter((l) => known.has(l.productId)), at);
  const after = new Map<string, ProductType>();
  if (!changed.length) return after;
  const updated = await em.execute<Array<Record<string, unknown> & { id: string }>>(
    `update products p set stock = p.stock + v.delta, updated_at = ?
       from (values ${changed.map(() => '(?::text, ?::int)').join(', ')}) v(id, delta)
      where p.id = v.id returning p.*`,
    [at, ...changed.flatMap((r) => [r.id, net.get(r.id)!])],
  );
  const currency = await storeCurrency(tx, storeId);
  const newRows = new Map(updated.map((r) => [r.id, r]));
  for (const old of changed) {
    const previous = productView(em.map(Product, old), currency);
    const view = productView(em.map(Product, newRows.get(old.id)!), currency);
    after.set(old.id, view);
    await recordEvent(tx, { storeId, event: 'productUpdated', record: view, previous });
  }
  return after;
}

/** What an order's stock looks like on each side of a change: its items, or null while it holds none. */
export interface HeldChange {
  orderId: string;
  before: OrderItem[] | null;
  after: OrderItem[] | null;
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

async function statusKinds(tx: TxCtx, ids: string[]): Promise<Map<string, string>> {
  const rows = await sqlOf(tx).execute<Array<{ id: string; kind: string }>>('select id, kind from order_statuses where id in (?)', [[...new Set(ids)]]);
  return new Map(rows.map((r) => [r.id, r.kind]));
}

/** After an order's status or items changed in memory: moves the stock the change implies. */
export async function stockFollowsOrder(tx: TxCtx, order: Order, prior: { statusId: string; items: OrderItem[] }): Promise<void> {
  if (prior.statusId === order.statusId && prior.items === order.items) return;
  const kinds = await statusKinds(tx, [prior.statusId, order.statusId]);
  const before = holdsStock(kinds.get(prior.statusId)) ? prior.items : null;
  const after = holdsStock(kinds.get(order.statusId)) ? order.items : null;
  if (!before && !after) return;
  await stockFollowsOrders(tx, order.storeId, [{ orderId: order.id, before, after }]);
}

/**
 * Every order of a status changes kind at once (its orders move to a status of another kind,
 * or the status's own kind changes): their stock follows, with the orders locked in id order.
 */
export async function stockFollowsStatusKind(tx: TxCtx, storeId: string, statusId: string, fromKind: string | null | undefined, toKind: string): Promise<void> {
  const held = holdsStock(fromKind);
  if (held === holdsStock(toKind)) return;
  const orders = await sqlOf(tx).execute<Array<{ id: string; items: OrderItem[] }>>(
    'select id, items from orders where store_id = ? and status_id = ? order by id for update',
    [storeId, statusId],
  );
  await stockFollowsOrders(tx, storeId, orders.map((o) => ({ orderId: o.id, before: held ? o.items : null, after: held ? null : o.items })));
}

/** Orders moving from a status to another: reads the source's kind first. */
export async function stockFollowsStatusMove(tx: TxCtx, storeId: string, fromStatusId: string, toKind: string): Promise<void> {
  const kinds = await statusKinds(tx, [fromStatusId]);
  await stockFollowsStatusKind(tx, storeId, fromStatusId, kinds.get(fromStatusId), toKind);
}

/** Locks every product the orders name, in id order, before a batch moves them one by one. */
export async function lockProductsOfOrders(tx: TxCtx, storeId: string, orders: Array<Pick<Order, 'items'>>): Promise<void> {
  await lockProducts(tx, storeId, orders.flatMap((o) => o.items.flatMap((i) => (i.productId ? [i.productId] : []))));
}

/**
 * A product's stock set by a product write (create or edit): the default warehouse absorbs the
 * difference and the ledger records it as an adjustment. Events are the product write's own.
 */
export async function stockFollowsProductWrite(tx: TxCtx, product: Pick<Product, 'id' | 'storeId' | 'stock'>, previousStock: number): Promise<void> {
  const delta = product.stock - previousStock;
  if (!delta) return;
  const at = new Date();
  const warehouseId = await defaultWarehouseId(tx, product.storeId);
  if (warehouseId) await addToLevels(tx, product.storeId, warehouseId, new Map([[product.id, delta]]), at);
  await insertMovements(tx, product.storeId, warehouseId, 'adjustment', [{ productId: product.id, delta, refId: null }], at);
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
