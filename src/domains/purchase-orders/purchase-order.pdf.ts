import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { formatPoNumber, type PurchaseOrder, type PurchaseOrderItem } from './purchase-order.entity.js';
import { Warehouse } from '../inventory/inventory.entity.js';
import { asBuffer, cpuTask, type CpuOwner, type CpuPool, type OverBudget } from '../../core/cpu.js';
import { AppError } from '../../core/errors.js';
import { toMajor } from '../../core/money.js';
import { drawLine, drawText, textHeight, wrapText } from '../../lib/pdf-text.js';

/**
 * Purchase order documents: A4, DejaVu Sans embedded (Latin and Arabic), right-to-left runs
 * ordered by lib/pdf-text. Nothing depends on the clock or on randomness: the creation date is
 * the PO's creation, the modification date its last change, so one PO version is one byte
 * sequence and one ETag.
 */

const require = createRequire(import.meta.url);

/**
 * The fonts are parsed once per process and handed to every document (pdfkit takes a fontkit
 * font as is); each document still embeds its own subset. Parsing them per document cost more
 * than the rendering.
 */
let fonts: { regular: PDFKit.Mixins.PDFFontSource; bold: PDFKit.Mixins.PDFFontSource } | null = null;
function loadFonts() {
  if (fonts) return fonts;
  // pdfkit's own fontkit, whichever copy it resolves. Loaded on first use, as pdfkit is: together
  // they are a tenth of the service's start-up.
  const fontkit = createRequire(require.resolve('pdfkit'))('fontkit') as { create(data: Buffer): PDFKit.Mixins.PDFFontSource };
  fonts = {
    regular: fontkit.create(readFileSync(require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf'))),
    bold: fontkit.create(readFileSync(require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf'))),
  };
  return fonts;
}

/**
 * A document rendered once per pool thread before its first real one's deadline counts: loading
 * pdfkit and the fonts, reading the fonts' shaping tables and compiling the layout code make a
 * thread's first document cost four times the next.
 */
export async function loadPdfKit(): Promise<void> {
  const at = new Date(0);
  const po = { number: 1, status: 'draft', currency: 'DZD', supplier: { name: 'مورد Supplier' }, createdAt: at, updatedAt: at, expectedAt: at, reference: 'R', notes: 'ملاحظة note', subtotal: 100, shippingCost: 0, tax: 0, total: 100 } as PdfPo;
  await renderPurchaseOrders('متجر Store', [{ po, items: [{ sku: 'S', name: 'منتج Product', qtyOrdered: 1, qtyReceived: 0, unitCost: 100, lineTotal: 100 }], warehouse: null }]);
}

const formatters = new Map<string, Intl.NumberFormat>();
/** An amount as text, e.g. "DZD 1,200.50"; one formatter per currency (building one is slow). */
function money(minor: number, currency: string): string {
  let f = formatters.get(currency);
  if (!f) formatters.set(currency, (f = new Intl.NumberFormat('en', { style: 'currency', currency })));
  return f.format(toMajor(minor, currency));
}

export interface PdfWarehouse {
  name: string;
  code: string;
  address: Record<string, unknown> | null;
}

/** What a document shows of a PO and its items: plain data, as it crosses to a worker thread. */
export type PdfPo = Pick<
  PurchaseOrder,
  'number' | 'status' | 'currency' | 'supplier' | 'createdAt' | 'updatedAt' | 'expectedAt' | 'reference' | 'notes' | 'subtotal' | 'shippingCost' | 'tax' | 'total'
>;
export type PdfItem = Pick<PurchaseOrderItem, 'sku' | 'name' | 'qtyOrdered' | 'qtyReceived' | 'unitCost' | 'lineTotal'>;

export interface PdfPurchaseOrder {
  po: PdfPo;
  items: PdfItem[];
  warehouse: PdfWarehouse | null;
}

const MARGIN = 40;
const PAGE = { width: 595.28, height: 841.89 };
const CONTENT = PAGE.width - 2 * MARGIN;
const BOTTOM = PAGE.height - MARGIN - 24;
const GREY = '#555555';

const STATUS_LABEL: Record<string, string> = { draft: 'Draft', sent: 'Sent', partial: 'Partially received', received: 'Received', cancelled: 'Cancelled' };

const day = (d: Date | null) => (d ? d.toISOString().slice(0, 10) : '');

/** A free-form address object as lines: its text values in order, other values as key: value. */
function addressLines(address: Record<string, unknown> | null): string[] {
  if (!address) return [];
  return Object.entries(address).flatMap(([key, value]) => {
    if (value == null || value === '') return [];
    if (typeof value === 'string' || typeof value === 'number') return [String(value)];
    return [`${key}: ${JSON.stringify(value)}`];
  });
}

interface Column {
  title: string;
  width: number;
  align: 'left' | 'right' | 'auto';
  cell: (item: PdfItem, index: number) => string;
}

function columns(currency: string): Column[] {
  return [
    { title: '#', width: 22, align: 'right', cell: (_, i) => String(i + 1) },
    { title: 'SKU', width: 72, align: 'left', cell: (it) => it.sku ?? '' },
    { title: 'Item', width: 171, align: 'auto', cell: (it) => it.name },
    { title: 'Qty', width: 44, align: 'right', cell: (it) => String(it.qtyOrdered) },
    { title: 'Received', width: 52, align: 'right', cell: (it) => String(it.qtyReceived) },
    { title: 'Unit cost', width: 72, align: 'right', cell: (it) => money(it.unitCost, currency) },
    { title: 'Total', width: 82, align: 'right', cell: (it) => money(it.lineTotal, currency) },
  ];
}

const CELL_PAD = 4;

function tableHeader(doc: PDFKit.PDFDocument, cols: Column[], y: number): number {
  doc.font('bold').fontSize(9).fillColor('black');
  let x = MARGIN;
  for (const c of cols) {
    drawLine(doc, c.title, x + CELL_PAD, y + 4, c.width - 2 * CELL_PAD, c.align === 'auto' ? 'left' : c.align);
    x += c.width;
  }
  const h = doc.currentLineHeight() + 8;
  doc.moveTo(MARGIN, y + h).lineTo(MARGIN + CONTENT, y + h).lineWidth(0.8).stroke('#000000');
  doc.font('regular');
  return y + h + 2;
}

/** Two labelled blocks side by side; returns the y below the taller. */
function blocks(doc: PDFKit.PDFDocument, y: number, left: { title: string; lines: string[] }, right: { title: string; lines: string[] }): number {
  const half = CONTENT / 2 - 10;
  let bottom = y;
  for (const [x, block] of [[MARGIN, left], [MARGIN + CONTENT / 2 + 10, right]] as const) {
    doc.font('bold').fontSize(10).fillColor(GREY);
    drawLine(doc, block.title, x, y, half, 'left');
    doc.font('regular').fontSize(10).fillColor('black');
    let cy = y + doc.currentLineHeight() + 4;
    for (const line of block.lines) cy += drawText(doc, line, x, cy, half);
    bottom = Math.max(bottom, cy);
  }
  return bottom + 14;
}

function renderOne(doc: PDFKit.PDFDocument, storeName: string, { po, items, warehouse }: PdfPurchaseOrder): void {
  const number = formatPoNumber(po.number);
  let y = MARGIN;
  doc.font('bold').fontSize(20).fillColor('black');
  drawLine(doc, 'Purchase order', MARGIN, y, CONTENT / 2, 'left');
  drawLine(doc, number, MARGIN + CONTENT / 2, y, CONTENT / 2, 'right');
  y += doc.currentLineHeight() + 6;
  doc.font('regular').fontSize(10).fillColor(GREY);
  const meta = [`Status: ${STATUS_LABEL[po.status] ?? po.status}`, `Date: ${day(po.createdAt)}`];
  if (po.expectedAt) meta.push(`Expected: ${day(po.expectedAt)}`);
  if (po.reference) meta.push(`Reference: ${po.reference}`);
  for (const line of meta) {
    drawLine(doc, line, MARGIN, y, CONTENT, 'left');
    y += doc.currentLineHeight() + 2;
  }
  y += 14;

  const s = po.supplier;
  const supplier = [s.name, ...(s.email ? [s.email] : []), ...(s.phone ? [s.phone] : []), ...addressLines(s.address), ...(s.taxId ? [`Tax ID: ${s.taxId}`] : [])];
  const shipTo = warehouse ? [`${warehouse.name} (${warehouse.code})`, ...addressLines(warehouse.address)] : [];
  y = blocks(doc, y, { title: 'Buyer', lines: [storeName, ...shipTo.map((l, i) => (i === 0 ? `Ship to: ${l}` : l))] }, { title: 'Supplier', lines: supplier });

  const cols = columns(po.currency);
  y = tableHeader(doc, cols, y);
  doc.fontSize(9);
  items.forEach((item, index) => {
    const cells = cols.map((c) => ({ c, lines: wrapText(doc, c.cell(item, index), c.width - 2 * CELL_PAD) }));
    const step = doc.currentLineHeight() + 2;
    const h = Math.max(...cells.map((x) => x.lines.length)) * step + 6;
    if (y + h > BOTTOM) {
      doc.addPage();
      y = tableHeader(doc, cols, MARGIN);
      doc.fontSize(9);
    }
    let x = MARGIN;
    for (const { c, lines } of cells) {
      lines.forEach((line, i) => drawLine(doc, line, x + CELL_PAD, y + 3 + i * step, c.width - 2 * CELL_PAD, c.align));
      x += c.width;
    }
    y += h;
    doc.moveTo(MARGIN, y).lineTo(MARGIN + CONTENT, y).lineWidth(0.3).stroke('#bbbbbb');
  });

  const totals: Array<[string, number]> = [
    ['Subtotal', po.subtotal],
    ['Shipping', po.shippingCost],
    ['Tax', po.tax],
    ['Total', po.total],
  ];
  doc.fontSize(10);
  const rowH = doc.currentLineHeight() + 4;
  if (y + 10 + totals.length * rowH > BOTTOM) {
    doc.addPage();
    y = MARGIN;
  }
  y += 10;
  for (const [label, minor] of totals) {
    doc.font(label === 'Total' ? 'bold' : 'regular');
    drawLine(doc, label, MARGIN + CONTENT - 260, y, 130, 'left');
    drawLine(doc, money(minor, po.currency), MARGIN + CONTENT - 130, y, 130 - CELL_PAD, 'right');
    y += rowH;
  }
  doc.font('regular');

  if (po.notes) {
    y += 14;
    const h = textHeight(doc, po.notes, CONTENT) + doc.currentLineHeight() + 4;
    if (y + h > BOTTOM) {
      doc.addPage();
      y = MARGIN;
    }
    doc.font('bold').fillColor(GREY);
    drawLine(doc, 'Notes', MARGIN, y, CONTENT, 'left');
    doc.font('regular').fillColor('black');
    y += doc.currentLineHeight() + 4;
    drawText(doc, po.notes, MARGIN, y, CONTENT);
  }
}

/**
 * One document holding every PO given, each starting on a new page, with an outline entry and
 * a page-label range of its own ("PO-000042 1", "PO-000042 2", ...) and a footer numbering its
 * pages.
 */
export async function renderPurchaseOrders(storeName: string, list: PdfPurchaseOrder[]): Promise<Buffer> {
  const PDFDocument = require('pdfkit') as typeof import('pdfkit');
  const { regular, bold } = loadFonts();
  // fontkit keeps each glyph it made, with the code points of the text it was first made from;
  // pdfkit writes those as the document's ToUnicode. Arabic letters that share a shape (ط and ظ)
  // would then read back as another document's letter: each document starts the cache afresh.
  for (const font of [regular, bold]) (font as unknown as { _glyphs: Record<number, unknown> })._glyphs = {};
  const created = new Date(Math.min(...list.map((x) => x.po.createdAt.getTime())));
  const modified = new Date(Math.max(...list.map((x) => x.po.updatedAt.getTime())));
  const title = list.length === 1 ? `Purchase order ${formatPoNumber(list[0].po.number)}` : `Purchase orders (${list.length})`;
  const doc = new PDFDocument({
    size: 'A4',
    margin: MARGIN,
    bufferPages: true,
    autoFirstPage: false,
    displayTitle: true,
    info: { Title: title, Author: storeName, Producer: 'Souk', Creator: 'Souk', CreationDate: created, ModDate: modified },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const ended = new Promise<void>((resolve, reject) => {
    doc.on('end', resolve);
    doc.on('error', reject);
  });
  doc.registerFont('regular', regular);
  doc.registerFont('bold', bold);

  const groups: Array<{ number: string; first: number; count: number }> = [];
  for (const entry of list) {
    const first = doc.bufferedPageRange().count;
    doc.addPage();
    doc.outline.addItem(formatPoNumber(entry.po.number));
    renderOne(doc, storeName, entry);
    groups.push({ number: formatPoNumber(entry.po.number), first, count: doc.bufferedPageRange().count - first });
  }

  for (const g of groups) {
    for (let i = 0; i < g.count; i++) {
      doc.switchToPage(g.first + i);
      doc.font('regular').fontSize(8).fillColor(GREY);
      drawLine(doc, `${storeName} · ${g.number} · page ${i + 1} of ${g.count}`, MARGIN, PAGE.height - MARGIN, CONTENT, 'center');
    }
  }
  // Page labels: one numbered range per PO, prefixed with its number.
  const labels = doc.ref({ Nums: groups.flatMap((g) => [g.first, { S: 'D', P: new String(`${g.number} `), St: 1 }]) });
  labels.end('');
  (doc as unknown as { _root: { data: Record<string, unknown> } })._root.data.PageLabels = labels;
  doc.end();
  await ended;
  return Buffer.concat(chunks);
}

export interface PdfSources {
  storeName: string;
  list: PdfPurchaseOrder[];
}

const plainPo = (po: PurchaseOrder): PdfPo => ({
  number: po.number,
  status: po.status,
  currency: po.currency,
  supplier: po.supplier,
  createdAt: po.createdAt,
  updatedAt: po.updatedAt,
  expectedAt: po.expectedAt,
  reference: po.reference,
  notes: po.notes,
  subtotal: po.subtotal,
  shippingCost: po.shippingCost,
  tax: po.tax,
  total: po.total,
});

interface ItemRow {
  purchase_order_id: string;
  sku: string | null;
  name: string;
  qty_ordered: number;
  qty_received: number;
  unit_cost: string;
  line_total: string;
}

/**
 * What the PDF of these POs needs, in the order given. Items are read as plain rows, not
 * entities: a document may hold thousands, and hydrating them would cost the event loop more
 * than the query.
 */
export async function pdfSources(em: EntityManager, storeId: string, pos: PurchaseOrder[]): Promise<PdfSources> {
  const [store] = await em.execute<Array<{ name: string }>>('select name from stores where id = ?', [storeId]);
  const ids = pos.map((p) => p.id);
  const rows = await em.execute<ItemRow[]>(
    `select purchase_order_id, sku, name, qty_ordered, qty_received, unit_cost, line_total from purchase_order_items
      where purchase_order_id in (?) order by purchase_order_id, position`,
    [ids],
  );
  const items = new Map<string, PdfItem[]>(ids.map((id) => [id, []]));
  for (const r of rows) {
    items.get(r.purchase_order_id)!.push({ sku: r.sku, name: r.name, qtyOrdered: r.qty_ordered, qtyReceived: r.qty_received, unitCost: Number(r.unit_cost), lineTotal: Number(r.line_total) });
  }
  const warehouseIds = [...new Set(pos.map((p) => p.warehouseId).filter((w): w is string => !!w))];
  const warehouses = warehouseIds.length ? await em.find(Warehouse, { id: { $in: warehouseIds } }) : [];
  return {
    storeName: store?.name ?? '',
    list: pos.map((po) => {
      const w = warehouses.find((x) => x.id === po.warehouseId);
      return { po: plainPo(po), items: items.get(po.id)!, warehouse: w ? { name: w.name, code: w.code, address: w.address } : null };
    }),
  };
}

/**
 * The size budget of one document, in item rows (each PO's items together): a merged PDF of up
 * to 4 full POs of 500 items. Rendering costs about 2 ms a row (Arabic text is shaped per cell).
 */
export const PDF_MAX_ROWS = 2_000;

/** How long a document may render: generous for its size (its deadline, not its expected time). */
export const pdfTimeLimitMs = (rows: number) => 5_000 + 5 * rows;

/** Item rows of these POs, counted in the database before any is loaded. */
export async function pdfRows(em: EntityManager, ids: string[]): Promise<number> {
  const [row] = await em.execute<Array<{ n: number }>>('select count(*)::int as n from purchase_order_items where purchase_order_id in (?)', [ids]);
  return row?.n ?? 0;
}

/** A document of more rows than the budget → 422 naming the limit, before anything is rendered. */
export function assertPdfBudget(rows: number, count: number): void {
  if (rows <= PDF_MAX_ROWS) return;
  const detail = `A PDF holds at most ${PDF_MAX_ROWS} item rows; ${count === 1 ? 'this purchase order has' : `these ${count} purchase orders have`} ${rows}`;
  throw new AppError('LIMIT_EXCEEDED', `${detail}${count > 1 ? ': ask for fewer ids per document' : ''}`, [{ path: 'ids', message: `hold ${rows} item rows, over the limit of ${PDF_MAX_ROWS}` }]);
}

export const RENDER_PDF = cpuTask<PdfSources, Uint8Array>('purchase-orders.pdf');

export const renderPdfTask = ({ storeName, list }: PdfSources): Promise<Uint8Array> => renderPurchaseOrders(storeName, list);

const OVER: Record<OverBudget, string> = {
  time: 'took longer than its time limit to render',
  depth: 'could not be laid out',
  memory: 'needed more memory than a document may use',
};

/**
 * The document, rendered off the event loop within its budget. A request (its `owner`) waits a
 * short while for a thread (then 503); a queue job (no owner) waits as long as a job may.
 */
export async function renderPdf(cpu: CpuPool, sources: PdfSources, owner: CpuOwner | null): Promise<Buffer> {
  const rows = sources.list.reduce((n, x) => n + x.items.length, 0);
  assertPdfBudget(rows, sources.list.length);
  const bytes = await cpu.run(RENDER_PDF, sources, {
    timeoutMs: pdfTimeLimitMs(rows),
    overBudget: (reason) => new AppError('LIMIT_EXCEEDED', `The PDF ${OVER[reason]}: ask for fewer purchase orders or items per document`),
    ...(owner ? { owner } : { queueWaitMs: 120_000 }),
  });
  return asBuffer(bytes);
}

/** A strong ETag of the bytes. */
export const pdfEtag = (bytes: Buffer) => `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"`;
