import type { EntityManager } from '@mikro-orm/postgresql';
import { LockMode } from '@mikro-orm/core';
import { PurchaseReceipt, type PurchaseReceiptLineRow } from './purchase-receipt.entity.js';
import { PurchaseOrderItem } from './purchase-order.entity.js';
import type { PurchaseReceiptCreateInput, PurchaseReceiptLineInput, PurchaseReceiptPage, PurchaseReceiptType } from './purchase-receipt.types.js';
import { findPurchaseOrder, receiveInto } from './purchase-order.service.js';
import { assertSupplier } from './supplier.service.js';
import { AppError, conflict, invalid, notFound } from '../../core/errors.js';
import type { Ctx } from '../../core/context.js';
import { transaction } from '../../core/tx.js';
import { lineMinor, sumMinor, toMajor, toMinor } from '../../core/money.js';
import { pageLimit } from '../../lib/pagination.js';

/**
 * Purchase receipts: goods received against a purchase order, line by line. A receipt is a
 * draft until posted; posting receives its lines through the order's own receiving (levels,
 * movements, productUpdated, the order's status) in one transaction. Received stock is final
 * on Souk, as a received order is, so a posted receipt is neither voided nor deleted.
 */

export function receiptView(r: PurchaseReceipt): PurchaseReceiptType {
  const major = (minor: number) => toMajor(minor, r.currency);
  return {
    id: r.id,
    storeId: r.storeId,
    purchaseOrderId: r.purchaseOrderId,
    supplierId: r.supplierId,
    warehouseId: r.warehouseId,
    status: r.status,
    reference: r.reference,
    notes: r.notes,
    currency: r.currency,
    totalCost: major(r.totalCost),
    lines: r.lines.map((l, i) => ({
      lineNo: i + 1,
      itemId: l.itemId,
      poLineIndex: l.position,
      productId: l.productId,
      sku: l.sku,
      qtyReceived: l.qtyReceived,
      unitCost: major(l.unitCost),
      lineTotal: major(lineMinor(l.unitCost, l.qtyReceived)),
    })),
    receivedAt: r.receivedAt.toISOString(),
    postedAt: r.postedAt?.toISOString() ?? null,
    voidedAt: r.voidedAt?.toISOString() ?? null,
    poReceiptId: r.poReceiptId,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  };
}

async function findReceipt(ctx: Ctx, storeId: string, id: string, lock = false): Promise<PurchaseReceipt> {
  const r = await ctx.em.findOne(PurchaseReceipt, { id, storeId }, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
  if (!r) throw notFound('purchase receipt');
  return r;
}

/** The order item a line names: by id, position, or a productId or SKU only one item has. */
function itemOf(items: PurchaseOrderItem[], line: PurchaseReceiptLineInput, i: number): PurchaseOrderItem {
  const path = `lines.${i}`;
  if (line.itemId) {
    const item = items.find((it) => it.id === line.itemId);
    if (!item) throw invalid(`${path}.itemId`, 'is not an item of this purchase order');
    return item;
  }
  if (line.poLineIndex != null) {
    const item = items.find((it) => it.position === line.poLineIndex);
    if (!item) throw invalid(`${path}.poLineIndex`, `the purchase order has ${items.length} items`);
    return item;
  }
  const [field, matches] = line.productId
    ? ['productId', items.filter((it) => it.productId === line.productId)]
    : line.sku
      ? ['sku', items.filter((it) => it.sku === line.sku)]
      : ['itemId', []];
  if (matches.length === 1) return matches[0];
  if (field === 'itemId') throw invalid(`${path}.itemId`, 'give itemId, poLineIndex, productId or sku');
  throw invalid(`${path}.${field}`, matches.length ? 'names several items of this purchase order: give poLineIndex' : 'is not on this purchase order');
}

export async function createPurchaseReceipt(ctx: Ctx, storeId: string, input: PurchaseReceiptCreateInput): Promise<PurchaseReceiptType> {
  return transaction(ctx, async (tx) => {
    const po = await findPurchaseOrder(tx, storeId, input.purchaseOrderId).catch((err) => {
      throw err instanceof AppError && err.code === 'NOT_FOUND' ? invalid('purchaseOrderId', 'no such purchase order in this store') : err;
    });
    if (po.status === 'received' || po.status === 'cancelled') throw conflict(`A ${po.status} purchase order cannot receive goods`);
    if (input.supplierId) {
      await assertSupplier(tx, storeId, input.supplierId, 'supplierId');
      if (po.supplierId && po.supplierId !== input.supplierId) throw invalid('supplierId', "is not the purchase order's supplier");
    }
    const items = await tx.em.find(PurchaseOrderItem, { purchaseOrderId: po.id }, { orderBy: { position: 'asc' } });
    const wanted = new Map<string, number>();
    const lines: PurchaseReceiptLineRow[] = input.lines.map((line, i) => {
      const item = itemOf(items, line, i);
      // Checked again when posting, under the order's lock: other receipts may post first.
      const total = (wanted.get(item.id) ?? 0) + line.qtyReceived;
      const outstanding = item.qtyOrdered - item.qtyReceived;
      if (total > outstanding) throw invalid(`lines.${i}.qtyReceived`, `over-receipt: ${outstanding} of this item outstanding`);
      wanted.set(item.id, total);
      const unitCost = line.unitCost != null ? toMinor(line.unitCost, po.currency, `lines.${i}.unitCost`) : item.unitCost;
      if (unitCost < 0) throw invalid(`lines.${i}.unitCost`, 'must be 0 or more');
      return { itemId: item.id, position: item.position, productId: item.productId, sku: item.sku, qtyReceived: line.qtyReceived, unitCost };
    });
    const r = tx.em.create(PurchaseReceipt, {
      storeId,
      purchaseOrderId: po.id,
      supplierId: input.supplierId ?? po.supplierId,
      warehouseId: input.warehouseId ?? null,
      reference: input.reference || null,
      notes: input.notes || null,
      lines,
      currency: po.currency,
      totalCost: sumMinor(lines.map((l) => lineMinor(l.unitCost, l.qtyReceived))),
      receivedAt: input.receivedAt ?? new Date(),
    });
    await tx.em.flush();
    return receiptView(r);
  });
}

/** Posting twice answers the posted receipt unchanged; a voided one cannot post (409). */
export async function postPurchaseReceipt(ctx: Ctx, storeId: string, id: string): Promise<PurchaseReceiptType> {
  return transaction(ctx, async (tx) => {
    const r = await findReceipt(tx, storeId, id, true);
    if (r.status === 'posted') return receiptView(r);
    if (r.status === 'voided') throw conflict('A voided purchase receipt cannot be posted');
    const poReceipt = await receiveInto(tx, storeId, r.purchaseOrderId, {
      items: r.lines.map((l) => ({ itemId: l.itemId, quantity: l.qtyReceived })),
      warehouseId: r.warehouseId,
    }).catch((err) => {
      throw relabel(err);
    });
    const now = new Date();
    r.status = 'posted';
    r.postedAt = now;
    r.updatedAt = now;
    r.poReceiptId = poReceipt.id;
    r.warehouseId = poReceipt.warehouseId;
    await tx.em.flush();
    return receiptView(r);
  });
}

/** Receiving names `items.N.quantity`; a receipt's caller gave `lines.N.qtyReceived`. */
function relabel(err: unknown): unknown {
  if (!(err instanceof AppError) || err.code !== 'VALIDATION_FAILED' || !err.errors) return err;
  // An itemId refused here is an item the order no longer has (a draft's items were replaced).
  const path = (p: string) => p.replace(/^items\.(\d+)\.quantity$/, 'lines.$1.qtyReceived').replace(/^items\.(\d+)\.itemId$/, 'lines.$1');
  const errors = err.errors.map((e) => ({ ...e, path: path(e.path) }));
  return new AppError(err.code, errors.map((e) => `${e.path}: ${e.message}`).join('; '), errors, err.headers, err.details);
}

/** A draft becomes voided (it never moved stock); voiding again changes nothing; a posted receipt is final (409). */
export async function voidPurchaseReceipt(ctx: Ctx, storeId: string, id: string): Promise<PurchaseReceiptType> {
  return transaction(ctx, async (tx) => {
    const r = await findReceipt(tx, storeId, id, true);
    if (r.status === 'voided') return receiptView(r);
    if (r.status === 'posted') throw conflict('A posted purchase receipt cannot be voided: received stock is final; correct it with a stock adjustment');
    const now = new Date();
    r.status = 'voided';
    r.voidedAt = now;
    r.updatedAt = now;
    await tx.em.flush();
    return receiptView(r);
  });
}

/** Drafts only: a posted or voided receipt is the record of what happened (409). */
export async function deletePurchaseReceipt(ctx: Ctx, storeId: string, id: string): Promise<boolean> {
  return transaction(ctx, async (tx) => {
    const r = await findReceipt(tx, storeId, id, true);
    if (r.status !== 'draft') throw conflict(`A ${r.status} purchase receipt cannot be deleted`);
    tx.em.remove(r);
    await tx.em.flush();
    return true;
  });
}

export async function getPurchaseReceipt(ctx: Ctx, storeId: string, id: string): Promise<PurchaseReceiptType> {
  return receiptView(await findReceipt(ctx, storeId, id));
}

export interface PurchaseReceiptFilter {
  limit?: number | null;
  cursor?: string | null;
  purchaseOrderId?: string | null;
  supplierId?: string | null;
  status?: string | null;
}

/** Newest first. */
export async function listPurchaseReceipts(ctx: Ctx, storeId: string, f: PurchaseReceiptFilter): Promise<PurchaseReceiptPage> {
  const limit = pageLimit(f.limit);
  const conditions = ['store_id = ?'];
  const params: unknown[] = [storeId];
  for (const [column, value] of [['id <', f.cursor], ['purchase_order_id =', f.purchaseOrderId], ['supplier_id =', f.supplierId], ['status =', f.status]] as const) {
    if (!value) continue;
    conditions.push(`${column} ?`);
    params.push(value);
  }
  const em = ctx.em as EntityManager;
  const rows = await em.execute<Array<Record<string, unknown>>>(`select * from purchase_receipts where ${conditions.join(' and ')} order by id desc limit ?`, [...params, limit + 1]);
  const found = rows.slice(0, limit).map((r) => em.map(PurchaseReceipt, r));
  return { data: found.map(receiptView), nextCursor: rows.length > limit ? found[found.length - 1].id : null };
}
