import type { EntityManager } from '@mikro-orm/postgresql';
import { LockMode } from '@mikro-orm/core';
import {
  formatPoNumber,
  PurchaseOrder,
  PurchaseOrderItem,
  PurchaseOrderReceipt,
  PurchaseOrderSend,
  type ReceiptLine,
  type Supplier,
} from './purchase-order.entity.js';
import type {
  PdfFile,
  PurchaseOrderBatchCancelInput,
  PurchaseOrderBatchResult,
  PurchaseOrderBatchSendInput,
  PurchaseOrderCreateInput,
  PurchaseOrderItemInput,
  PurchaseOrderPage,
  PurchaseOrderSendInput,
  PurchaseOrderStatusInput,
  PurchaseOrderType,
  PurchaseOrderUpdateInput,
  SupplierInput,
} from './purchase-order.types.js';
import { assertPdfBudget, pdfEtag, pdfRows, pdfSources, renderPdf } from './purchase-order.pdf.js';
import { enqueueSend } from './purchase-order.queue.js';
import { checkRecipients, limitSend } from './purchase-order.mail.js';
import { Warehouse } from '../inventory/inventory.entity.js';
import { assertSmallJson } from '../inventory/inventory.service.js';
import { defaultWarehouseId, moveStock } from '../inventory/stock.service.js';
import { Product } from '../products/product.entity.js';
import { storeCurrency } from '../stores/currency.js';
import { supplierSnapshot } from './supplier.service.js';
import { AppError, conflict, invalid, notFound } from '../../core/errors.js';
import type { Ctx } from '../../core/context.js';
import { transaction, type TxCtx } from '../../core/tx.js';
import { isCurrency, lineMinor, sumMinor, toMajor, toMinor } from '../../core/money.js';
import { pageLimit } from '../../lib/pagination.js';
import { recordRealtimeEvent } from '../../events/outbox.js';
import { runBatch } from '../../lib/batch.js';
import { cpuOwner } from '../../core/cpu.js';

const FINAL = new Set(['received', 'cancelled']);

interface Loaded {
  po: PurchaseOrder;
  items: PurchaseOrderItem[];
  receipts: PurchaseOrderReceipt[];
  sends: PurchaseOrderSend[];
}

function view({ po, items, receipts, sends }: Loaded): PurchaseOrderType {
  const major = (minor: number) => toMajor(minor, po.currency);
  return {
    id: po.id,
    storeId: po.storeId,
    number: formatPoNumber(po.number),
    status: po.status,
    supplier: { name: po.supplier.name, email: po.supplier.email ?? null, phone: po.supplier.phone ?? null, address: po.supplier.address ?? null, taxId: po.supplier.taxId ?? null },
    supplierId: po.supplierId,
    warehouseId: po.warehouseId,
    currency: po.currency,
    items: items.map((i) => ({
      id: i.id,
      productId: i.productId,
      sku: i.sku,
      name: i.name,
      qtyOrdered: i.qtyOrdered,
      qtyReceived: i.qtyReceived,
      unitCost: major(i.unitCost),
      lineTotal: major(i.lineTotal),
    })),
    subtotal: major(po.subtotal),
    shippingCost: major(po.shippingCost),
    tax: major(po.tax),
    total: major(po.total),
    reference: po.reference,
    notes: po.notes,
    expectedAt: po.expectedAt?.toISOString() ?? null,
    sentAt: po.sentAt?.toISOString() ?? null,
    receivedAt: po.receivedAt?.toISOString() ?? null,
    cancelledAt: po.cancelledAt?.toISOString() ?? null,
    cancelReason: po.cancelReason,
    receipts: receipts.map((r) => ({ id: r.id, at: r.at.toISOString(), warehouseId: r.warehouseId, items: r.items })),
    sends: sends.map((s) => ({ id: s.id, at: s.at.toISOString(), to: s.recipients.join(', '), status: s.status, error: s.error })),
    createdAt: po.createdAt.toISOString(),
    updatedAt: po.updatedAt.toISOString(),
  };
}

/** Items, receipts and sends of many POs: three queries, whatever the count. */
async function loadChildren(ctx: Ctx, pos: PurchaseOrder[]): Promise<Loaded[]> {
  if (!pos.length) return [];
  const ids = pos.map((p) => p.id);
  const [items, receipts, sends] = await Promise.all([
    ctx.em.find(PurchaseOrderItem, { purchaseOrderId: { $in: ids } }, { orderBy: { purchaseOrderId: 'asc', position: 'asc' } }),
    ctx.em.find(PurchaseOrderReceipt, { purchaseOrderId: { $in: ids } }, { orderBy: { at: 'asc', id: 'asc' } }),
    ctx.em.find(PurchaseOrderSend, { purchaseOrderId: { $in: ids } }, { orderBy: { at: 'asc', id: 'asc' } }),
  ]);
  const of = <T extends { purchaseOrderId: string }>(rows: T[], id: string) => rows.filter((r) => r.purchaseOrderId === id);
  return pos.map((po) => ({ po, items: of(items, po.id), receipts: of(receipts, po.id), sends: of(sends, po.id) }));
}

async function viewOf(ctx: Ctx, po: PurchaseOrder): Promise<PurchaseOrderType> {
  return view((await loadChildren(ctx, [po]))[0]);
}

/**
 * Every change of a PO reaches realtime subscribers that name `purchaseOrderUpdated`
 * (CONTRACT-2 §1), recorded in the write's transaction; never webhooks.
 */
async function emitted(tx: TxCtx, v: PurchaseOrderType): Promise<PurchaseOrderType> {
  await recordRealtimeEvent(tx, { storeId: v.storeId, event: 'purchaseOrderUpdated', data: { store_id: v.storeId, purchaseOrder: v } });
  return v;
}

/** The PO as it now is, published: for every write that changed it. */
export async function publishPurchaseOrder(tx: TxCtx, po: PurchaseOrder): Promise<PurchaseOrderType> {
  return emitted(tx, await viewOf(tx, po));
}

export async function findPurchaseOrder(ctx: Ctx, storeId: string, id: string, lock = false): Promise<PurchaseOrder> {
  const po = await ctx.em.findOne(PurchaseOrder, { id, storeId }, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
  if (!po) throw notFound('purchase order');
  return po;
}

function parseInstant(value: string, path: string): Date {
  const d = new Date(value);
  if (!/^\d{4}-\d\d-\d\d/.test(value) || Number.isNaN(d.getTime())) throw invalid(path, 'must be an ISO 8601 date or date-time');
  return d;
}

function supplierOf(input: SupplierInput, path: string): Supplier {
  assertSmallJson(input.address, `${path}.address`);
  return {
    name: input.name.trim(),
    email: input.email ?? null,
    phone: input.phone ?? null,
    address: input.address ?? null,
    taxId: input.taxId ?? null,
  };
}

async function assertWarehouse(ctx: Ctx, storeId: string, id: string, path: string): Promise<Warehouse> {
  const w = await ctx.em.findOne(Warehouse, { id, storeId });
  if (!w) throw invalid(path, 'no such warehouse in this store');
  return w;
}

interface ItemDraft {
  productId: string | null;
  sku: string | null;
  name: string;
  qtyOrdered: number;
  unitCost: number;
  lineTotal: number;
}

/** Names and SKUs default to the product's; one query for every product named. */
async function resolveItems(ctx: Ctx, storeId: string, currency: string, items: PurchaseOrderItemInput[]): Promise<ItemDraft[]> {
  const ids = [...new Set(items.map((i) => i.productId).filter((id): id is string => !!id))];
  const products = ids.length ? await ctx.em.find(Product, { storeId, id: { $in: ids } }) : [];
  const byId = new Map(products.map((p) => [p.id, p]));
  return items.map((item, i) => {
    const product = item.productId ? byId.get(item.productId) : undefined;
    if (item.productId && !product) throw invalid(`items.${i}.productId`, 'no such product in this store');
    const name = item.name?.trim() || product?.name || item.sku;
    if (!name) throw invalid(`items.${i}.name`, 'is required without a productId or sku');
    const unitCost = toMinor(item.unitCost, currency, `items.${i}.unitCost`);
    return {
      productId: item.productId ?? null,
      sku: item.sku ?? product?.sku ?? null,
      name,
      qtyOrdered: item.qtyOrdered,
      unitCost,
      lineTotal: lineMinor(unitCost, item.qtyOrdered),
    };
  });
}

function replaceItems(tx: TxCtx, po: PurchaseOrder, drafts: ItemDraft[]): PurchaseOrderItem[] {
  return drafts.map((d, position) => tx.em.create(PurchaseOrderItem, { purchaseOrderId: po.id, position, ...d }));
}

function retotal(po: PurchaseOrder, items: Array<{ lineTotal: number }>): void {
  po.subtotal = sumMinor(items.map((i) => i.lineTotal));
  po.total = sumMinor([po.subtotal, po.shippingCost, po.tax]);
}

/** The next number of the store's sequence; the counter row serializes concurrent creates. */
async function nextNumber(tx: TxCtx, storeId: string): Promise<number> {
  const [row] = await (tx.em as EntityManager).execute<Array<{ last: number }>>(
    `insert into purchase_order_counters (store_id, last) values (?, 1)
     on conflict (store_id) do update set last = purchase_order_counters.last + 1 returning last`,
    [storeId],
  );
  return row.last;
}

export async function createPurchaseOrder(ctx: Ctx, storeId: string, input: PurchaseOrderCreateInput): Promise<PurchaseOrderType> {
  if (input.currency != null && !isCurrency(input.currency)) throw invalid('currency', 'must be an ISO 4217 currency code');
  if (input.supplier && input.supplierId) throw invalid('supplierId', 'give supplier or supplierId, not both');
  if (!input.supplier && !input.supplierId) throw invalid('supplier', 'is required without a supplierId');
  const given = input.supplier ? supplierOf(input.supplier, 'supplier') : null;
  return transaction(ctx, async (tx) => {
    const supplier = given ?? (await supplierSnapshot(tx, storeId, input.supplierId!, 'supplierId'));
    const currency = input.currency ?? (await storeCurrency(tx, storeId));
    if (input.warehouseId) await assertWarehouse(tx, storeId, input.warehouseId, 'warehouseId');
    const drafts = await resolveItems(tx, storeId, currency, input.items);
    const po = tx.em.create(PurchaseOrder, {
      storeId,
      number: await nextNumber(tx, storeId),
      supplier,
      supplierId: given ? null : input.supplierId!,
      warehouseId: input.warehouseId ?? null,
      currency,
      subtotal: 0,
      shippingCost: toMinor(input.shippingCost ?? 0, currency, 'shippingCost'),
      tax: toMinor(input.tax ?? 0, currency, 'tax'),
      total: 0,
      reference: input.reference || null,
      notes: input.notes || null,
      expectedAt: input.expectedAt ?? null,
    });
    const items = replaceItems(tx, po, drafts);
    retotal(po, items);
    await tx.em.flush();
    return emitted(tx, view({ po, items, receipts: [], sends: [] }));
  });
}

export interface PurchaseOrderFilter {
  limit?: number | null;
  cursor?: string | null;
  status?: string | null;
  q?: string | null;
  warehouseId?: string | null;
  createdAfter?: string | null;
  createdBefore?: string | null;
}

export async function listPurchaseOrders(ctx: Ctx, storeId: string, f: PurchaseOrderFilter): Promise<PurchaseOrderPage> {
  const limit = pageLimit(f.limit);
  const conditions = ['store_id = ?'];
  const params: unknown[] = [storeId];
  if (f.cursor) {
    conditions.push('id < ?');
    params.push(f.cursor);
  }
  if (f.status) {
    conditions.push('status = ?');
    params.push(f.status);
  }
  if (f.warehouseId) {
    conditions.push('warehouse_id = ?');
    params.push(f.warehouseId);
  }
  if (f.createdAfter) {
    conditions.push('created_at >= ?');
    params.push(parseInstant(f.createdAfter, 'createdAfter'));
  }
  if (f.createdBefore) {
    conditions.push('created_at < ?');
    params.push(parseInstant(f.createdBefore, 'createdBefore'));
  }
  if (f.q) {
    const like = `%${f.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const number = /^(?:po-?)?0*(\d{1,9})$/i.exec(f.q.trim());
    conditions.push(`(supplier->>'name' ilike ?${number ? ' or number = ?' : ''})`);
    params.push(like, ...(number ? [Number(number[1])] : []));
  }
  const rows = await (ctx.em as EntityManager).execute<Array<Record<string, unknown>>>(
    `select * from purchase_orders where ${conditions.join(' and ')} order by id desc limit ?`,
    [...params, limit + 1],
  );
  const pos = rows.slice(0, limit).map((r) => (ctx.em as EntityManager).map(PurchaseOrder, r));
  const data = (await loadChildren(ctx, pos)).map(view);
  return { data, nextCursor: rows.length > limit ? pos[pos.length - 1].id : null };
}

export async function getPurchaseOrder(ctx: Ctx, storeId: string, id: string): Promise<PurchaseOrderType> {
  return viewOf(ctx, await findPurchaseOrder(ctx, storeId, id));
}

const finalConflict = (po: PurchaseOrder) => conflict(`A ${po.status} purchase order cannot change`);

/** PUT: a partial update. Items and currency change only in draft; received and cancelled are final. */
export async function updatePurchaseOrder(ctx: Ctx, storeId: string, id: string, input: PurchaseOrderUpdateInput): Promise<PurchaseOrderType> {
  if (input.currency != null && !isCurrency(input.currency)) throw invalid('currency', 'must be an ISO 4217 currency code');
  const supplier = input.supplier ? supplierOf(input.supplier, 'supplier') : null;
  return transaction(ctx, async (tx) => {
    const po = await findPurchaseOrder(tx, storeId, id, true);
    if (FINAL.has(po.status)) throw finalConflict(po);
    if ((input.items || input.currency != null) && po.status !== 'draft') throw conflict('Items and currency change only while the purchase order is a draft');
    let items = await tx.em.find(PurchaseOrderItem, { purchaseOrderId: po.id }, { orderBy: { position: 'asc' } });
    const from = po.currency;
    const to = input.currency ?? from;
    // Amounts kept across a currency change keep their face value, re-expressed in the new minor unit.
    const reexpress = (minor: number, path: string) => (to === from ? minor : toMinor(toMajor(minor, from), to, path));
    if (input.items) {
      const drafts = await resolveItems(tx, storeId, to, input.items);
      for (const old of items) tx.em.remove(old);
      await tx.em.flush();
      items = replaceItems(tx, po, drafts);
    } else if (to !== from) {
      items.forEach((item, i) => {
        item.unitCost = reexpress(item.unitCost, `items.${i}.unitCost`);
        item.lineTotal = lineMinor(item.unitCost, item.qtyOrdered);
      });
    }
    po.currency = to;
    po.shippingCost = input.shippingCost != null ? toMinor(input.shippingCost, to, 'shippingCost') : reexpress(po.shippingCost, 'shippingCost');
    po.tax = input.tax != null ? toMinor(input.tax, to, 'tax') : reexpress(po.tax, 'tax');
    if (supplier) po.supplier = supplier;
    if (input.warehouseId !== undefined) {
      if (input.warehouseId) await assertWarehouse(tx, storeId, input.warehouseId, 'warehouseId');
      po.warehouseId = input.warehouseId ?? null;
    }
    if (input.reference !== undefined) po.reference = input.reference || null;
    if (input.notes !== undefined) po.notes = input.notes || null;
    if (input.expectedAt !== undefined) po.expectedAt = input.expectedAt;
    retotal(po, items);
    po.updatedAt = new Date();
    await tx.em.flush();
    return publishPurchaseOrder(tx, po);
  });
}

/** The warehouse a receipt goes to: the one named, else the PO's, else the store's default; active. */
async function receivingWarehouse(tx: TxCtx, po: PurchaseOrder, requested: string | null | undefined): Promise<string> {
  const id = requested ?? po.warehouseId ?? (await defaultWarehouseId(tx, po.storeId));
  const w = id ? await tx.em.findOne(Warehouse, { id, storeId: po.storeId }) : null;
  if (!w || !w.active) throw invalid('warehouseId', 'receiving needs an active warehouse of the store');
  return w.id;
}

/**
 * Receives quantities (default: everything outstanding) under the PO's row lock, so two
 * concurrent receipts of the same PO never exceed what was ordered. Stock goes to the
 * warehouse's levels with purchase_order movements and productUpdated per product.
 */
async function receive(tx: TxCtx, po: PurchaseOrder, input: ReceiveInput): Promise<PurchaseOrderReceipt> {
  const items = await tx.em.find(PurchaseOrderItem, { purchaseOrderId: po.id }, { orderBy: { position: 'asc' } });
  const byId = new Map(items.map((i) => [i.id, i]));
  const wanted = new Map<string, number>();
  if (input.items) {
    input.items.forEach((line, i) => {
      const item = byId.get(line.itemId);
      if (!item) throw invalid(`items.${i}.itemId`, 'is not an item of this purchase order');
      const total = (wanted.get(item.id) ?? 0) + line.quantity;
      const outstanding = item.qtyOrdered - item.qtyReceived;
      if (total > outstanding) throw invalid(`items.${i}.quantity`, `over-receipt: ${outstanding} of this item outstanding`);
      wanted.set(item.id, total);
    });
  } else {
    for (const item of items) if (item.qtyOrdered > item.qtyReceived) wanted.set(item.id, item.qtyOrdered - item.qtyReceived);
  }
  if (!wanted.size) throw invalid('items', 'nothing is outstanding');
  const warehouseId = await receivingWarehouse(tx, po, input.warehouseId);
  const now = new Date();
  const lines: ReceiptLine[] = [...wanted].map(([itemId, quantity]) => ({ itemId, quantity }));
  for (const { itemId, quantity } of lines) byId.get(itemId)!.qtyReceived += quantity;
  const receipt = tx.em.create(PurchaseOrderReceipt, { purchaseOrderId: po.id, warehouseId, items: lines, at: now });
  po.status = items.every((i) => i.qtyReceived >= i.qtyOrdered) ? 'received' : 'partial';
  if (po.status === 'received') po.receivedAt = now;
  po.updatedAt = now;
  await tx.em.flush();
  const stock = lines.flatMap(({ itemId, quantity }) => {
    const productId = byId.get(itemId)!.productId;
    return productId ? [{ productId, delta: quantity, refId: po.id }] : [];
  });
  await moveStock(tx, po.storeId, stock, { reason: 'purchase_order', warehouseId, enforce: false });
  return receipt;
}

type ReceiveInput = Pick<PurchaseOrderStatusInput, 'items' | 'warehouseId'>;
const receivable = (po: PurchaseOrder) => po.status === 'sent' || po.status === 'partial';

/**
 * Receiving inside the caller's transaction (a purchase receipt's posting): the same checks,
 * stock moves and events as `POST /{id}/status`, under the PO's row lock.
 */
export async function receiveInto(tx: TxCtx, storeId: string, id: string, input: ReceiveInput): Promise<PurchaseOrderReceipt> {
  const po = await findPurchaseOrder(tx, storeId, id, true);
  if (!receivable(po)) throw conflict(`A ${po.status} purchase order cannot receive goods`);
  const receipt = await receive(tx, po, input);
  await publishPurchaseOrder(tx, po);
  return receipt;
}

export async function setPurchaseOrderStatus(ctx: Ctx, storeId: string, id: string, input: PurchaseOrderStatusInput): Promise<PurchaseOrderType> {
  return transaction(ctx, async (tx) => {
    const po = await findPurchaseOrder(tx, storeId, id, true);
    const refuse = () => conflict(`A ${po.status} purchase order cannot become ${input.status}`);
    switch (input.status) {
      case 'sent':
        if (po.status === 'sent') return viewOf(tx, po);
        if (po.status !== 'draft') throw refuse();
        po.status = 'sent';
        po.sentAt = new Date();
        po.updatedAt = new Date();
        break;
      case 'draft': {
        if (po.status === 'draft') return viewOf(tx, po);
        if (po.status !== 'sent') throw refuse();
        const received = await tx.em.count(PurchaseOrderItem, { purchaseOrderId: po.id, qtyReceived: { $gt: 0 } });
        if (received) throw conflict('A purchase order with received items cannot return to draft');
        po.status = 'draft';
        po.sentAt = null;
        po.updatedAt = new Date();
        break;
      }
      default:
        if (!receivable(po)) throw refuse();
        await receive(tx, po, input);
    }
    await tx.em.flush();
    return publishPurchaseOrder(tx, po);
  });
}

async function cancelOne(tx: TxCtx, storeId: string, id: string, reason: string | null | undefined): Promise<PurchaseOrderType> {
  const po = await findPurchaseOrder(tx, storeId, id, true);
  if (po.status === 'received') throw finalConflict(po);
  if (po.status !== 'cancelled') {
    po.status = 'cancelled';
    po.cancelledAt = new Date();
    po.cancelReason = reason?.trim() || null;
    po.updatedAt = new Date();
    await tx.em.flush();
    return publishPurchaseOrder(tx, po);
  }
  return viewOf(tx, po);
}

/** Already cancelled: unchanged; received: 409. Received stock stays where it is. */
export async function cancelPurchaseOrder(ctx: Ctx, storeId: string, id: string, reason: string | null | undefined): Promise<PurchaseOrderType> {
  return transaction(ctx, (tx) => cancelOne(tx, storeId, id, reason));
}

export async function batchCancelPurchaseOrders(ctx: Ctx, storeId: string, input: PurchaseOrderBatchCancelInput): Promise<PurchaseOrderBatchResult> {
  return runBatch(ctx, input, (tx, id) => cancelOne(tx, storeId, id, input.reason));
}

/** Queues a mailing of the PDF (a draft becomes sent); the durable job settles it in `sends`. */
async function sendOne(tx: TxCtx, storeId: string, id: string, input: PurchaseOrderSendInput): Promise<PurchaseOrderType> {
  const po = await findPurchaseOrder(tx, storeId, id, true);
  if (FINAL.has(po.status)) throw finalConflict(po);
  const to = input.to?.length ? input.to : po.supplier.email ? [po.supplier.email] : [];
  if (!to.length) throw invalid('to', 'the supplier has no email: give the recipients');
  const cc = input.cc ?? [];
  await checkRecipients(tx, po, { to, cc });
  limitSend(tx, storeId);
  const now = new Date();
  if (po.status === 'draft') {
    po.status = 'sent';
    po.sentAt = now;
    po.updatedAt = now;
  }
  const send = tx.em.create(PurchaseOrderSend, {
    purchaseOrderId: po.id,
    recipients: to,
    cc,
    subject: input.subject ?? null,
    message: input.message ?? null,
    at: now,
  });
  await tx.em.flush();
  await enqueueSend(tx, send.id);
  return publishPurchaseOrder(tx, po);
}

export async function sendPurchaseOrder(ctx: Ctx, storeId: string, id: string, input: PurchaseOrderSendInput): Promise<PurchaseOrderType> {
  return transaction(ctx, (tx) => sendOne(tx, storeId, id, input));
}

export async function batchSendPurchaseOrders(ctx: Ctx, storeId: string, input: PurchaseOrderBatchSendInput): Promise<PurchaseOrderBatchResult> {
  return runBatch(ctx, input, (tx, id) => sendOne(tx, storeId, id, {}));
}

const pdfFile = (bytes: Buffer, filename: string, download: string | null | undefined): PdfFile => ({
  filename,
  contentType: 'application/pdf',
  etag: pdfEtag(bytes),
  disposition: download === '1' || download === 'true' ? 'attachment' : 'inline',
  content: bytes.toString('base64'),
});

export async function purchaseOrderPdf(ctx: Ctx, storeId: string, id: string, download?: string | null): Promise<PdfFile> {
  const po = await findPurchaseOrder(ctx, storeId, id);
  const sources = await pdfSources(ctx.em as EntityManager, storeId, [po]);
  return pdfFile(await renderPdf(ctx.deps.cpu, sources, cpuOwner(ctx, storeId)), `${formatPoNumber(po.number)}.pdf`, download);
}

/** One merged document; any id that is not a PO of the store fails the whole call (404). */
export async function purchaseOrdersPdf(ctx: Ctx, storeId: string, ids: string[], download?: string | null): Promise<PdfFile> {
  const unique = [...new Set(ids)];
  const found = await ctx.em.find(PurchaseOrder, { storeId, id: { $in: unique } });
  const byId = new Map(found.map((p) => [p.id, p]));
  const missing = unique.findIndex((id) => !byId.has(id));
  if (missing !== -1) throw new AppError('NOT_FOUND', `No such purchase order: ${unique[missing]}`, [{ path: `ids.${ids.indexOf(unique[missing])}`, message: 'no such purchase order' }]);
  const pos = unique.map((id) => byId.get(id)!);
  // The budget is checked on a count, before any item is loaded.
  assertPdfBudget(await pdfRows(ctx.em as EntityManager, unique), pos.length);
  const sources = await pdfSources(ctx.em as EntityManager, storeId, pos);
  const name = pos.length === 1 ? formatPoNumber(pos[0].number) : `purchase-orders-${pos.length}`;
  return pdfFile(await renderPdf(ctx.deps.cpu, sources, cpuOwner(ctx, storeId)), `${name}.pdf`, download);
}
