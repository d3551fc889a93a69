import type { EntityManager } from '@mikro-orm/postgresql';
import type { Ctx } from '../../core/context.js';
import type { TxCtx } from '../../core/tx.js';
import { recordEvent } from '../../events/outbox.js';
import { storeCurrency } from '../stores/currency.js';
import { Product } from './product.entity.js';
import { productView } from './product.service.js';
import type { ProductType } from './product.types.js';

/**
 * What the inventory domain may do to products: lock them and move their `stock` column. The
 * rows and their `productUpdated` events stay the product domain's.
 */

/** A product as stock moves see it. */
export interface StockedProduct {
  id: string;
  name: string;
  stock: number;
  allowBackorder: boolean;
}

const sql = (tx: TxCtx) => tx.em as EntityManager;

/** Locks the store's products with these ids, in id order (so concurrent writers never deadlock); returns those found. */
export async function lockStockedProducts(tx: TxCtx, storeId: string, ids: Iterable<string>): Promise<StockedProduct[]> {
  const sorted = [...new Set(ids)].sort();
  if (!sorted.length) return [];
  const rows = await sql(tx).execute<Array<{ id: string; name: string; stock: number; allow_backorder: boolean }>>(
    'select id, name, stock, allow_backorder from products where store_id = ? and id in (?) order by id for update',
    [storeId, sorted],
  );
  return rows.map((r) => ({ id: r.id, name: r.name, stock: Number(r.stock), allowBackorder: r.allow_backorder }));
}

/**
 * Adds each delta to its (locked) product's stock in one statement and records one
 * `productUpdated` per product with its previous state. Returns the products as they are now.
 */
export async function addToStock(tx: TxCtx, storeId: string, deltas: ReadonlyMap<string, number>, at: Date): Promise<Map<string, ProductType>> {
  const changed = [...deltas].filter(([, d]) => d !== 0);
  const after = new Map<string, ProductType>();
  if (!changed.length) return after;
  const em = sql(tx);
  const rows = await em.execute<Array<Record<string, unknown> & { id: string; old_stock: number; old_updated_at: Date }>>(
    `update products p set stock = p.stock + v.delta, updated_at = ?
       from (values ${changed.map(() => '(?::text, ?::int)').join(', ')}) v(id, delta) join products o on o.id = v.id
      where p.id = v.id and p.store_id = ?
      returning p.*, o.stock as old_stock, o.updated_at as old_updated_at`,
    [at, ...changed.flatMap(([id, d]) => [id, d]), storeId],
  );
  const currency = await storeCurrency(tx, storeId);
  for (const { old_stock, old_updated_at, ...row } of rows.sort((a, b) => (a.id < b.id ? -1 : 1))) {
    const view = productView(em.map(Product, row), currency);
    const previous = { ...view, stock: Number(old_stock), updatedAt: new Date(old_updated_at).toISOString() };
    after.set(row.id, view);
    await recordEvent(tx, { storeId, event: 'productUpdated', record: view, previous });
  }
  return after;
}

/** The store's products carrying these SKUs (a SKU may be on several products, or none). */
export async function stockBySku(ctx: Ctx, storeId: string, skus: readonly string[]): Promise<Array<{ id: string; sku: string; stock: number }>> {
  if (!skus.length) return [];
  const rows = await (ctx.em as EntityManager).execute<Array<{ id: string; sku: string; stock: number }>>('select id, sku, stock from products where store_id = ? and sku in (?) order by id', [storeId, [...new Set(skus)]]);
  return rows.map((r) => ({ id: r.id, sku: r.sku, stock: Number(r.stock) }));
}
