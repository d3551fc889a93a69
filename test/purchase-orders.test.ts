import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PDFParse } from 'pdf-parse';
import { renderPurchaseOrders, type PdfPurchaseOrder } from '../src/domains/purchase-orders/purchase-order.pdf.js';
import { assertProblem, client, memberWithRole, ownerWithStore, startTestService, until, type Api, type TestService } from './helpers.js';
import { startSmtpCapture, tokenFrom, type CapturedMail } from './smtp.js';
import { gqlSubscribe, STORE_EVENTS } from './sse-client.js';

const STORE_LIMIT = 5;
const USER_LIMIT = 8;
let svc: TestService;
let api: Api;
let smtp: Awaited<ReturnType<typeof startSmtpCapture>>;

before(async () => {
  smtp = await startSmtpCapture();
  svc = await startTestService({ SOUK_SMTP_URL: smtp.url, SOUK_PO_SEND_LIMIT_STORE: String(STORE_LIMIT), SOUK_PO_SEND_LIMIT_USER: String(USER_LIMIT) });
  api = client(svc.url);
});
after(async () => {
  await svc.close();
  await smtp.close();
});

type Owner = Awaited<ReturnType<typeof ownerWithStore>>;

const pos = (s: Owner, suffix = '', query = '') => `/v1/finance/purchase-orders${suffix}?storeId=${s.storeId}${query}`;

async function product(s: Owner, body: Record<string, unknown> = {}) {
  const res = await api('POST', `/v1/stores/${s.storeId}/products`, { token: s.token, body: { name: `P ${Math.random()}`, price: 10, stock: 0, ...body } });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

async function warehouse(s: Owner, body: Record<string, unknown> = {}) {
  const res = await api('POST', `/v1/inventory/warehouses?storeId=${s.storeId}`, { token: s.token, body: { name: 'Main', ...body } });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

async function createPo(s: Owner, body: Record<string, unknown>) {
  const res = await api('POST', pos(s), { token: s.token, body: { supplier: { name: 'Acme', email: 'orders@acme.example' }, ...body } });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

/** Confirms a user's email through the mail the signup sent. */
async function verify(email: string) {
  const res = await api('POST', '/v1/users/auth/verify-email/confirm', { body: { token: tokenFrom(await smtp.waitFor(email, /verify-email/)) } });
  assert.equal(res.status, 200, res.text);
}

const status = (s: Owner, id: string, body: Record<string, unknown>) => api('POST', pos(s, `/${id}/status`), { token: s.token, body });
const stockOf = async (s: Owner, id: string) => (await api('GET', `/v1/stores/${s.storeId}/products/${id}`, { token: s.token })).body.stock;

async function pdfText(bytes: Buffer): Promise<string> {
  const parser = new PDFParse({ data: new Uint8Array(bytes) });
  try {
    return (await parser.getText()).text;
  } finally {
    await parser.destroy();
  }
}

async function getPdf(s: Owner, id: string, headers: Record<string, string> = {}, query = '') {
  const res = await fetch(svc.url + pos(s, `/${id}/pdf`, query), { headers: { authorization: `Bearer ${s.token}`, ...headers } });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

/** The first application/pdf part of a captured MIME message, decoded. */
function pdfAttachment(mail: CapturedMail): { filename: string | null; bytes: Buffer } {
  const part = mail.raw.split(/\r?\n--/).find((p) => /content-type:\s*application\/pdf/i.test(p));
  assert.ok(part, 'the mail carries a PDF part');
  const [head, ...body] = part.split(/\r?\n\r?\n/);
  assert.match(head, /content-transfer-encoding:\s*base64/i);
  const filename = /filename="?([^";\r\n]+)"?/i.exec(head)?.[1] ?? null;
  return { filename, bytes: Buffer.from(body.join('').replace(/\s+/g, ''), 'base64') };
}

describe('purchase orders', () => {
  test('create: numbered per store, totals exact, inputs checked', async () => {
    const s = await ownerWithStore(api);
    const p = await product(s, { sku: 'TEA-1' });
    const po = await createPo(s, {
      items: [
        { productId: p.id, qtyOrdered: 3, unitCost: 19.99 },
        { sku: 'BOX', name: 'Boxes', qtyOrdered: 10, unitCost: 0.1 },
      ],
      shippingCost: 5,
      tax: 2.5,
      reference: 'REF-1',
      expectedAt: '2030-01-15',
    });
    assert.match(po.id, /^po_/);
    assert.equal(po.number, 'PO-000001');
    assert.equal(po.status, 'draft');
    assert.equal(po.currency, 'DZD');
    assert.equal(po.items[0].name, p.name);
    assert.equal(po.items[0].sku, 'TEA-1');
    assert.match(po.items[0].id, /^poi_/);
    assert.equal(po.items[0].lineTotal, 59.97);
    assert.equal(po.items[1].lineTotal, 1);
    assert.equal(po.subtotal, 60.97);
    assert.equal(po.total, 68.47);
    assert.deepEqual(po.receipts, []);
    assert.deepEqual(po.sends, []);
    assert.equal((await createPo(s, { items: [{ name: 'X', qtyOrdered: 1, unitCost: 0 }] })).number, 'PO-000002');
    assert.equal((await createPo(await ownerWithStore(api), { items: [{ name: 'X', qtyOrdered: 1, unitCost: 0 }] })).number, 'PO-000001');

    const item = { name: 'X', qtyOrdered: 1, unitCost: 1 };
    const bad: Array<[Record<string, unknown>, string]> = [
      [{ items: [] }, 'items'],
      [{ items: [{ ...item, qtyOrdered: 0 }] }, 'items.0.qtyOrdered'],
      [{ items: [{ ...item, qtyOrdered: 1_000_001 }] }, 'items.0.qtyOrdered'],
      [{ items: [{ ...item, unitCost: -1 }] }, 'items.0.unitCost'],
      [{ items: [{ ...item, unitCost: 1.001 }] }, 'items.0.unitCost'],
      [{ items: [item, { productId: 'prod_nope', qtyOrdered: 1, unitCost: 1 }] }, 'items.1.productId'],
      [{ items: Array.from({ length: 501 }, () => item) }, 'items'],
      [{ items: [item], supplier: { name: 'A', address: { x: 'y'.repeat(3000) } } }, 'supplier.address'],
      [{ items: [item], warehouseId: 'whs_nope' }, 'warehouseId'],
    ];
    for (const [body, path] of bad) {
      const res = await api('POST', pos(s), { token: s.token, body: { supplier: { name: 'Acme' }, ...body } });
      assertProblem(res, 400, 'VALIDATION_FAILED');
      assert.equal(res.body.errors[0].path, path, res.text);
    }
    assertProblem(await api('POST', pos(s), { token: s.token, body: { items: [item] } }), 400, 'VALIDATION_FAILED');
  });

  test('list filters, PUT partial, transitions and cancel', async () => {
    const s = await ownerWithStore(api);
    const w = await warehouse(s);
    const a = await createPo(s, { supplier: { name: 'Nour Trading' }, items: [{ name: 'X', qtyOrdered: 1, unitCost: 1 }], warehouseId: w.id });
    const b = await createPo(s, { supplier: { name: 'Other' }, items: [{ name: 'Y', qtyOrdered: 2, unitCost: 1 }] });
    const ids = async (query: string) => (await api('GET', pos(s, '', query), { token: s.token })).body.data.map((x: any) => x.id);
    assert.deepEqual(await ids(''), [b.id, a.id]);
    assert.deepEqual(await ids('&q=nour'), [a.id]);
    assert.deepEqual(await ids('&q=PO-000002'), [b.id]);
    assert.deepEqual(await ids('&q=1'), [a.id]);
    assert.deepEqual(await ids(`&warehouseId=${w.id}`), [a.id]);
    assert.deepEqual(await ids('&status=sent'), []);
    assert.deepEqual(await ids('&createdAfter=2999-01-01T00:00:00Z'), []);
    const page = await api('GET', pos(s, '', '&limit=1'), { token: s.token });
    assert.equal(page.body.nextCursor, b.id);
    assert.deepEqual(await ids(`&limit=1&cursor=${page.body.nextCursor}`), [a.id]);

    const put = await api('PUT', pos(s, `/${a.id}`), { token: s.token, body: { notes: 'Deliver at the back', items: [{ name: 'Z', qtyOrdered: 4, unitCost: 2.5 }], tax: 1 } });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.body.notes, 'Deliver at the back');
    assert.equal(put.body.supplier.name, 'Nour Trading');
    assert.deepEqual(put.body.items.map((i: any) => [i.name, i.qtyOrdered, i.lineTotal]), [['Z', 4, 10]]);
    assert.equal(put.body.total, 11);

    const sent = await status(s, a.id, { status: 'sent' });
    assert.equal(sent.status, 200, sent.text);
    assert.equal(sent.body.status, 'sent');
    assert.ok(sent.body.sentAt);
    assertProblem(await api('PUT', pos(s, `/${a.id}`), { token: s.token, body: { items: [{ name: 'Z', qtyOrdered: 1, unitCost: 1 }] } }), 409, 'CONFLICT');
    assertProblem(await api('PUT', pos(s, `/${a.id}`), { token: s.token, body: { currency: 'EUR' } }), 409, 'CONFLICT');
    assert.equal((await api('PUT', pos(s, `/${a.id}`), { token: s.token, body: { reference: 'R2' } })).body.reference, 'R2');
    const back = await status(s, a.id, { status: 'draft' });
    assert.equal(back.body.status, 'draft');
    assert.equal(back.body.sentAt, null);
    assertProblem(await status(s, a.id, { status: 'received' }), 409, 'CONFLICT');
    assertProblem(await status(s, a.id, { status: 'cancelled' }), 400, 'VALIDATION_FAILED');

    const cancelled = await api('POST', pos(s, `/${a.id}/cancel`), { token: s.token, body: { reason: 'Supplier out of stock' } });
    assert.equal(cancelled.status, 200, cancelled.text);
    assert.equal(cancelled.body.status, 'cancelled');
    assert.equal(cancelled.body.cancelReason, 'Supplier out of stock');
    const again = await api('POST', pos(s, `/${a.id}/cancel`), { token: s.token });
    assert.equal(again.status, 200);
    assert.equal(again.body.cancelledAt, cancelled.body.cancelledAt, 'unchanged');
    assertProblem(await api('PUT', pos(s, `/${a.id}`), { token: s.token, body: { notes: 'x' } }), 409, 'CONFLICT');
    assertProblem(await status(s, a.id, { status: 'sent' }), 409, 'CONFLICT');

    const viewer = await memberWithRole(api, s.token, s.storeId, 'viewer');
    assert.equal((await api('GET', pos(s, `/${b.id}`), { token: viewer.token })).status, 200);
    assertProblem(await api('POST', pos(s, `/${b.id}/cancel`), { token: viewer.token }), 403, 'FORBIDDEN');
    assertProblem(await api('GET', pos(s, `/${b.id}`), { token: (await ownerWithStore(api)).token }), 404, 'NOT_FOUND');
  });

  test('receiving adds to warehouse levels with movements and productUpdated; over-receipt is refused', async () => {
    const s = await ownerWithStore(api);
    const tea = await product(s, { stock: 2 });
    const main = await warehouse(s);
    const dock = await warehouse(s, { name: 'Dock' });
    const po = await createPo(s, {
      warehouseId: dock.id,
      items: [
        { productId: tea.id, qtyOrdered: 10, unitCost: 3 },
        { sku: 'LID', name: 'Lids', qtyOrdered: 5, unitCost: 1 },
      ],
    });
    const [teaItem, lidItem] = po.items;
    assert.equal((await status(s, po.id, { status: 'sent' })).status, 200);
    const over = await status(s, po.id, { status: 'partial', items: [{ itemId: teaItem.id, quantity: 11 }] });
    assertProblem(over, 400, 'VALIDATION_FAILED');
    assert.equal(over.body.errors[0].path, 'items.0.quantity');
    assertProblem(await status(s, po.id, { status: 'partial', items: [{ itemId: 'poi_nope', quantity: 1 }] }), 400, 'VALIDATION_FAILED');
    assertProblem(await status(s, po.id, { status: 'partial', items: [{ itemId: teaItem.id, quantity: 6 }, { itemId: teaItem.id, quantity: 5 }] }), 400, 'VALIDATION_FAILED');

    const part = await status(s, po.id, { status: 'partial', items: [{ itemId: teaItem.id, quantity: 4 }] });
    assert.equal(part.status, 200, part.text);
    assert.equal(part.body.status, 'partial');
    assert.equal(part.body.items[0].qtyReceived, 4);
    assert.equal(part.body.receipts.length, 1);
    assert.equal(part.body.receipts[0].warehouseId, dock.id);
    assert.deepEqual(part.body.receipts[0].items, [{ itemId: teaItem.id, quantity: 4 }]);
    assert.equal(await stockOf(s, tea.id), 6);
    assertProblem(await status(s, po.id, { status: 'draft' }), 409, 'CONFLICT');

    // Everything outstanding, into another warehouse.
    const rest = await status(s, po.id, { status: 'received', warehouseId: main.id });
    assert.equal(rest.status, 200, rest.text);
    assert.equal(rest.body.status, 'received');
    assert.ok(rest.body.receivedAt);
    assert.deepEqual(rest.body.receipts[1].items.sort((x: any, y: any) => (x.itemId < y.itemId ? -1 : 1)), [{ itemId: teaItem.id, quantity: 6 }, { itemId: lidItem.id, quantity: 5 }].sort((x, y) => (x.itemId < y.itemId ? -1 : 1)));
    assert.equal(await stockOf(s, tea.id), 12);
    const levels = (await api('GET', `/v1/inventory/levels?storeId=${s.storeId}&productId=${tea.id}`, { token: s.token })).body.data;
    assert.deepEqual(Object.fromEntries(levels.map((l: any) => [l.warehouseId, l.onHand])), { [main.id]: 8, [dock.id]: 4 });
    const ledger = (await api('GET', `/v1/inventory/movements?storeId=${s.storeId}&productId=${tea.id}`, { token: s.token })).body.data;
    assert.deepEqual(ledger.slice(0, 2).map((m: any) => [m.reason, m.delta, m.refId, m.warehouseId]), [['purchase_order', 6, po.id, main.id], ['purchase_order', 4, po.id, dock.id]]);
    const events = (await api('GET', `/v1/stores/${s.storeId}/events?events=productUpdated`, { token: s.token })).body.data.filter((e: any) => e.data.product.id === tea.id);
    assert.deepEqual(events.map((e: any) => [e.data.previous_data.stock, e.data.product.stock]), [[2, 6], [6, 12]]);

    assertProblem(await status(s, po.id, { status: 'received' }), 409, 'CONFLICT');
    assertProblem(await api('POST', pos(s, `/${po.id}/cancel`), { token: s.token }), 409, 'CONFLICT');
    assertProblem(await api('PUT', pos(s, `/${po.id}`), { token: s.token, body: { notes: 'late' } }), 409, 'CONFLICT');
  });

  test('receiving needs an active warehouse of the store', async () => {
    const s = await ownerWithStore(api);
    const po = await createPo(s, { items: [{ name: 'X', qtyOrdered: 1, unitCost: 1 }] });
    await status(s, po.id, { status: 'sent' });
    const none = await status(s, po.id, { status: 'received' });
    assertProblem(none, 400, 'VALIDATION_FAILED');
    assert.equal(none.body.errors[0].path, 'warehouseId');
    const w = await warehouse(s);
    await api('PUT', `/v1/inventory/warehouses/${w.id}?storeId=${s.storeId}`, { token: s.token, body: { active: false } });
    assertProblem(await status(s, po.id, { status: 'received' }), 400, 'VALIDATION_FAILED');
    await api('PUT', `/v1/inventory/warehouses/${w.id}?storeId=${s.storeId}`, { token: s.token, body: { active: true } });
    assert.equal((await status(s, po.id, { status: 'received' })).body.status, 'received');
  });

  test('an open purchase order keeps its warehouse from being deleted', async () => {
    const s = await ownerWithStore(api);
    const w = await warehouse(s);
    const po = await createPo(s, { items: [{ name: 'X', qtyOrdered: 1, unitCost: 1 }], warehouseId: w.id });
    assertProblem(await api('DELETE', `/v1/inventory/warehouses/${w.id}?storeId=${s.storeId}`, { token: s.token }), 409, 'CONFLICT');
    await api('POST', pos(s, `/${po.id}/cancel`), { token: s.token });
    assert.equal((await api('DELETE', `/v1/inventory/warehouses/${w.id}?storeId=${s.storeId}`, { token: s.token })).status, 204);
    assert.equal((await api('GET', pos(s, `/${po.id}`), { token: s.token })).body.warehouseId, null);
  });

  test('20 times at once, two receipts of the same PO never over-receive', async () => {
    const s = await ownerWithStore(api);
    const tea = await product(s);
    await warehouse(s);
    const orders = await Promise.all(Array.from({ length: 20 }, () => createPo(s, { items: [{ productId: tea.id, qtyOrdered: 5, unitCost: 1 }] })));
    await Promise.all(orders.map((po) => status(s, po.id, { status: 'sent' })));
    const runs = await Promise.all(orders.map((po) => Promise.all([status(s, po.id, { status: 'received' }), status(s, po.id, { status: 'received' })])));
    for (const [one, two] of runs) {
      assert.deepEqual([one.status, two.status].sort(), [200, 409], `${one.text} ${two.text}`);
    }
    for (const po of orders) {
      const now = (await api('GET', pos(s, `/${po.id}`), { token: s.token })).body;
      assert.equal(now.items[0].qtyReceived, 5);
      assert.equal(now.receipts.length, 1);
    }
    assert.equal(await stockOf(s, tea.id), 100);
  });

  test(':batchCancel answers the batch envelope; returnPartialSuccess false changes nothing', async () => {
    const s = await ownerWithStore(api);
    const w = await warehouse(s);
    const a = await createPo(s, { items: [{ name: 'X', qtyOrdered: 1, unitCost: 1 }] });
    const b = await createPo(s, { items: [{ name: 'X', qtyOrdered: 1, unitCost: 1 }], warehouseId: w.id });
    await status(s, b.id, { status: 'sent' });
    await status(s, b.id, { status: 'received' });
    const c = await createPo(s, { items: [{ name: 'X', qtyOrdered: 1, unitCost: 1 }] });

    const aborted = await api('POST', pos(s, ':batchCancel'), { token: s.token, body: { ids: [a.id, b.id, c.id], returnPartialSuccess: false, reason: 'closing' } });
    assert.equal(aborted.status, 400, aborted.text);
    assert.equal(aborted.body.code, 'ABORTED');
    assert.deepEqual(aborted.body.failedRequests, { '1': { code: 'CONFLICT', message: aborted.body.failedRequests['1'].message } });
    assert.deepEqual(aborted.body.summary, { total: 3, succeeded: 0, failed: 1 });
    assert.equal((await api('GET', pos(s, `/${a.id}`), { token: s.token })).body.status, 'draft');

    const done = await api('POST', `/v1/finance/purchase-orders%3AbatchCancel?storeId=${s.storeId}`, { token: s.token, body: { ids: [a.id, b.id, 'po_nope', c.id], reason: 'closing' } });
    assert.equal(done.status, 200, done.text);
    assert.deepEqual(done.body.resources.map((p: any) => [p.id, p.status, p.cancelReason]), [[a.id, 'cancelled', 'closing'], [c.id, 'cancelled', 'closing']]);
    assert.deepEqual(Object.fromEntries(Object.entries(done.body.failedRequests).map(([k, v]: [string, any]) => [k, v.code])), { '1': 'CONFLICT', '2': 'NOT_FOUND' });
    assert.deepEqual(done.body.summary, { total: 4, succeeded: 2, failed: 2 });
    assertProblem(await api('POST', pos(s, ':BatchCancel'), { token: s.token, body: { ids: [a.id] } }), 404, 'NOT_FOUND');
  });
});

describe('purchase order PDFs', () => {
  test('a real PDF: Latin and Arabic, digits in order, same bytes and ETag for the same version', async () => {
    const s = await ownerWithStore(api);
    const w = await warehouse(s, { name: 'مستودع الجزائر', address: { line1: '12 rue Didouche', city: 'Alger' } });
    const po = await createPo(s, {
      supplier: { name: 'شركة النور رقم24', email: 'nour@example.com', phone: '+213 555 00 11 22', taxId: 'NIF-77', address: { city: 'وهران' } },
      warehouseId: w.id,
      items: [
        { name: 'Green tea 500g', sku: 'GT-500', qtyOrdered: 12, unitCost: 350 },
        { name: 'أكواب زجاج 24 قطعة', qtyOrdered: 3, unitCost: 1200.5 },
      ],
      notes: 'Livraison avant midi. التسليم قبل الظهر',
      tax: 19,
    });
    const first = await getPdf(s, po.id);
    assert.equal(first.status, 200);
    assert.equal(first.headers.get('content-type'), 'application/pdf');
    assert.match(first.headers.get('content-disposition') ?? '', /^inline; filename="PO-000001\.pdf"$/);
    assert.equal(first.bytes.subarray(0, 5).toString(), '%PDF-');
    const etag = first.headers.get('etag');
    assert.match(etag ?? '', /^"[\w-]+"$/);

    const text = await pdfText(first.bytes);
    for (const expected of ['PO-000001', 'Green tea 500g', 'GT-500', 'nour@example.com', 'Livraison avant midi', 'Total']) assert.ok(text.includes(expected), `missing ${expected} in:\n${text}`);
    // Right-to-left runs are laid out visually (the first logical word at the right) and digits keep their order.
    assert.ok(text.includes('قطعة 24 زجاج أكواب'), text);
    assert.ok(text.includes('24رقم'), text);
    assert.ok(!text.includes('42'), 'digits inside Arabic stay in order');
    assert.ok(text.includes('الجزائر مستودع'), text);

    const second = await getPdf(s, po.id);
    assert.ok(second.bytes.equals(first.bytes), 'the same version renders the same bytes');
    assert.equal(second.headers.get('etag'), etag);
    const cached = await getPdf(s, po.id, { 'if-none-match': etag! });
    assert.equal(cached.status, 304);
    const download = await getPdf(s, po.id, {}, '&download=1');
    assert.match(download.headers.get('content-disposition') ?? '', /^attachment; filename="PO-000001\.pdf"$/);

    await api('PUT', pos(s, `/${po.id}`), { token: s.token, body: { reference: 'R-9' } });
    const changed = await getPdf(s, po.id, { 'if-none-match': etag! });
    assert.equal(changed.status, 200);
    assert.notEqual(changed.headers.get('etag'), etag);
    assert.ok((await pdfText(changed.bytes)).includes('R-9'));
  });

  test(':batchPdf merges the POs in one document with an outline entry and a page group each', async () => {
    const s = await ownerWithStore(api);
    const many = Array.from({ length: 60 }, (_, i) => ({ name: `Item number ${i + 1}`, qtyOrdered: i + 1, unitCost: 1 }));
    const a = await createPo(s, { items: many });
    const b = await createPo(s, { supplier: { name: 'Second supplier' }, items: [{ name: 'Only item', qtyOrdered: 1, unitCost: 1 }] });
    const res = await fetch(svc.url + pos(s, ':batchPdf'), {
      method: 'POST',
      headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ids: [a.id, b.id] }),
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/pdf');
    const bytes = Buffer.from(await res.arrayBuffer());
    const parser = new PDFParse({ data: new Uint8Array(bytes) });
    const result = await parser.getText();
    await parser.destroy();
    assert.equal(result.total, 3, 'two pages for the long PO, one for the other');
    assert.ok(result.pages[0].text.includes('PO-000001') && result.pages[0].text.includes('page 1 of 2'));
    assert.ok(result.pages[1].text.includes('Item number 60') && result.pages[1].text.includes('page 2 of 2'));
    assert.ok(result.pages[2].text.includes('PO-000002') && result.pages[2].text.includes('Only item') && result.pages[2].text.includes('page 1 of 1'));
    const raw = bytes.toString('latin1');
    assert.match(raw, /\/Outlines/);
    assert.match(raw, /\/Title \(PO-000001\)/);
    assert.match(raw, /\/Title \(PO-000002\)/);
    assert.match(raw, /\/PageLabels/);
    assert.match(raw, /\/P \(PO-000002 \)/);

    const missing = await api('POST', pos(s, ':batchPdf'), { token: s.token, body: { ids: [a.id, 'po_nope'] } });
    assertProblem(missing, 404, 'NOT_FOUND');
  });

  test(':batchPdf over the size budget (item rows of all the ids) is refused with 422 naming the limit, before anything renders', async () => {
    const s = await ownerWithStore(api);
    const full = Array.from({ length: 500 }, (_, i) => ({ name: `منتج رقم ${i + 1}`, qtyOrdered: 1, unitCost: 1 }));
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await createPo(s, { items: full })).id);
    const res = await api('POST', pos(s, ':batchPdf'), { token: s.token, body: { ids } });
    assertProblem(res, 422, 'LIMIT_EXCEEDED');
    assert.match(res.body.detail, /at most 2000 item rows; these 5 purchase orders have 2500/);
    assert.deepEqual(res.body.errors, [{ path: 'ids', message: 'hold 2500 item rows, over the limit of 2000' }]);
    const one = await getPdf(s, ids[0]);
    assert.equal(one.status, 200, 'a single full purchase order is within budget');
  });
});

describe('sending purchase orders', () => {
  test('/send queues a durable job that mails the PDF and records the outcome', async () => {
    const s = await ownerWithStore(api);
    await verify(s.email);
    const supplier = `supplier-${Date.now()}@example.com`;
    const po = await createPo(s, { supplier: { name: 'Mail Supplier', email: supplier }, items: [{ name: 'Jasmine tea', sku: 'JT-1', qtyOrdered: 7, unitCost: 2 }] });
    const sent = await api('POST', pos(s, `/${po.id}/send`), { token: s.token, body: { cc: [s.email.toUpperCase()], message: 'Please confirm the delivery date.' } });
    assert.equal(sent.status, 202, sent.text);
    assert.equal(sent.body.status, 'sent');
    assert.equal(sent.body.sends.length, 1);
    assert.deepEqual([sent.body.sends[0].status, sent.body.sends[0].to, sent.body.sends[0].error], ['queued', supplier, null]);

    const mail = await smtp.waitFor(supplier);
    assert.ok(mail.to.includes(s.email.toLowerCase()));
    assert.match(mail.text, /Please confirm the delivery date\./);
    assert.match(mail.raw, /Subject: Purchase order PO-000001/);
    const attachment = pdfAttachment(mail);
    assert.equal(attachment.filename, 'PO-000001.pdf');
    const text = await pdfText(attachment.bytes);
    for (const expected of ['PO-000001', 'Jasmine tea', 'JT-1', 'Mail Supplier']) assert.ok(text.includes(expected), `missing ${expected}`);

    let settled: any;
    for (let i = 0; i < 50; i++) {
      settled = (await api('GET', pos(s, `/${po.id}`), { token: s.token })).body.sends[0];
      if (settled.status !== 'queued') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(settled.status, 'sent');

    // Again to a verified member: the PO stays sent, a second send is recorded.
    const editor = await memberWithRole(api, s.token, s.storeId, 'editor');
    await verify(editor.user.email);
    const again = await api('POST', pos(s, `/${po.id}/send`), { token: s.token, body: { to: editor.user.email } });
    assert.equal(again.status, 202, again.text);
    assert.equal(again.body.sends.length, 2);
    await smtp.waitFor(editor.user.email);
  });

  test('no recipient → 400; final → 409; :batchSend answers 202 with the envelope', async () => {
    const s = await ownerWithStore(api);
    const anonymous = await createPo(s, { supplier: { name: 'No email' }, items: [{ name: 'X', qtyOrdered: 1, unitCost: 1 }] });
    const res = await api('POST', pos(s, `/${anonymous.id}/send`), { token: s.token });
    assertProblem(res, 400, 'VALIDATION_FAILED');
    assert.equal(res.body.errors[0].path, 'to');
    const gone = await createPo(s, { items: [{ name: 'X', qtyOrdered: 1, unitCost: 1 }] });
    await api('POST', pos(s, `/${gone.id}/cancel`), { token: s.token });
    assertProblem(await api('POST', pos(s, `/${gone.id}/send`), { token: s.token }), 409, 'CONFLICT');

    const email = `batch-${Date.now()}@example.com`;
    const ok = await createPo(s, { supplier: { name: 'Batch', email }, items: [{ name: 'X', qtyOrdered: 1, unitCost: 1 }] });
    const batch = await api('POST', pos(s, ':batchSend'), { token: s.token, body: { ids: [ok.id, anonymous.id, gone.id] } });
    assert.equal(batch.status, 202, batch.text);
    assert.deepEqual(batch.body.resources.map((p: any) => [p.id, p.status, p.sends[0].status]), [[ok.id, 'sent', 'queued']]);
    assert.deepEqual(Object.fromEntries(Object.entries(batch.body.failedRequests).map(([k, v]: [string, any]) => [k, v.code])), { '1': 'VALIDATION_FAILED', '2': 'CONFLICT' });
    assert.deepEqual(batch.body.summary, { total: 3, succeeded: 1, failed: 2 });
    const mail = await smtp.waitFor(email);
    assert.ok((await pdfText(pdfAttachment(mail).bytes)).includes('PO-000003'));
  });
});

describe('purchaseOrderUpdated on the realtime channel', () => {
  test('create, update, status, send (and its outcome), cancel each reach a graphql-sse subscriber that names it', async () => {
    const s = await ownerWithStore(api);
    const sub = gqlSubscribe(svc.url, s.token, STORE_EVENTS, { storeId: s.storeId, events: ['purchaseOrderUpdated'] });
    const unnamed = gqlSubscribe(svc.url, s.token, STORE_EVENTS, { storeId: s.storeId });
    try {
      await Promise.all([sub.connected, unnamed.connected]);
      const events = () => sub.events();
      const po = await createPo(s, { items: [{ name: 'X', qtyOrdered: 2, unitCost: 1 }] });
      assert.equal((await api('PUT', pos(s, `/${po.id}`), { token: s.token, body: { notes: 'by Friday' } })).status, 200);
      assert.equal((await status(s, po.id, { status: 'sent' })).status, 200);
      assert.equal((await status(s, po.id, { status: 'sent' })).status, 200, 'unchanged: no event');
      assert.equal((await status(s, po.id, { status: 'draft' })).status, 200);
      assert.equal((await api('POST', pos(s, `/${po.id}/send`), { token: s.token })).status, 202);
      // The worker takes queued sends one at a time: earlier tests' sends may be ahead of this one.
      await until('the send settles', async () => events().some((e) => e.data.purchaseOrder.sends[0]?.status === 'sent'), 60_000);
      assert.equal((await api('POST', pos(s, `/${po.id}/cancel`), { token: s.token, body: { reason: 'late' } })).status, 200);
      await until('seven events', async () => events().length >= 7);
      const got = events();
      assert.ok(got.every((e) => e.event === 'purchaseOrderUpdated' && e.storeId === s.storeId && e.data.store_id === s.storeId && e.data.purchaseOrder.id === po.id));
      assert.deepEqual(
        got.map((e) => [e.data.purchaseOrder.status, e.data.purchaseOrder.notes, e.data.purchaseOrder.sends.map((x: any) => x.status).join()]),
        [
          ['draft', null, ''],
          ['draft', 'by Friday', ''],
          ['sent', 'by Friday', ''],
          ['draft', 'by Friday', ''],
          ['sent', 'by Friday', 'queued'],
          ['sent', 'by Friday', 'sent'],
          ['cancelled', 'by Friday', 'sent'],
        ],
      );
      assert.deepEqual(unnamed.results, [], 'only subscribers that name it');
    } finally {
      sub.close();
      unnamed.close();
    }
  });
});

describe('sending purchase orders is no mail relay', () => {
  const item = { items: [{ name: 'X', qtyOrdered: 1, unitCost: 1 }] };
  const send = (s: Owner, id: string, body: Record<string, unknown> = {}) => api('POST', pos(s, `/${id}/send`), { token: s.token, body });

  test('recipients: the supplier and verified emails of store members only; anything else → 400 at its path, nothing queued', async () => {
    const s = await ownerWithStore(api);
    const unverified = await memberWithRole(api, s.token, s.storeId, 'viewer');
    const outsider = await ownerWithStore(api);
    await verify(outsider.email);
    const po = await createPo(s, item);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ to: ['victim@example.net'] }, 'to.0'],
      [{ cc: ['victim@example.net'] }, 'cc.0'],
      [{ to: ['orders@acme.example', 'victim@example.net'] }, 'to.1'],
      [{ cc: [unverified.user.email] }, 'cc.0'],
      [{ to: [s.email] }, 'to.0'],
      [{ to: [outsider.email] }, 'to.0'],
    ];
    for (const [body, path] of cases) {
      const res = await send(s, po.id, body);
      assertProblem(res, 400, 'VALIDATION_FAILED');
      assert.equal(res.body.errors[0].path, path, JSON.stringify(body));
    }
    const shown = (await api('GET', pos(s, `/${po.id}`), { token: s.token })).body;
    assert.deepEqual([shown.status, shown.sends], ['draft', []]);
    // The owner's own address once verified; the supplier's in any case.
    await verify(s.email);
    const ok = await send(s, po.id, { to: ['ORDERS@acme.example'], cc: [s.email] });
    assert.equal(ok.status, 202, ok.text);
    await smtp.waitFor('orders@acme.example');
    const refused = ['victim@example.net', unverified.user.email, outsider.email].map((e) => e.toLowerCase());
    assert.deepEqual(smtp.mails.filter((m) => /^Subject: Purchase order/m.test(m.raw) && m.to.some((t) => refused.includes(t))), []);
  });

  test('the platform frames subject and message: one header line, the text quoted, no HTML', async () => {
    const s = await ownerWithStore(api);
    const email = `framed-${Date.now()}@example.com`;
    const po = await createPo(s, { supplier: { name: 'Framed', email }, ...item });
    const res = await send(s, po.id, {
      subject: 'Urgent\r\nBcc: victim@example.net\r\nContent-Type: text/html',
      message: '<a href="https://phish.example">Reset your password</a>\nSecond line\u0007',
    });
    assert.equal(res.status, 202, res.text);
    const mail = await smtp.waitFor(email);
    assert.deepEqual(mail.to, [email]);
    const subject = /^Subject: (.*(?:\r?\n[ \t].*)*)/m.exec(mail.raw)![1].replace(/\r?\n[ \t]/g, ' ');
    assert.match(subject, /^Purchase order PO-\d{6} from Test Store: Urgent Bcc: victim@example\.net Content-Type: text\/html$/);
    assert.doesNotMatch(mail.raw, /^Bcc:/im);
    assert.doesNotMatch(mail.raw, /^Content-Type: text\/html/im);
    assert.match(mail.text, /Test Store sent you purchase order PO-\d{6} through Souk/);
    assert.match(mail.text, /Message from Test Store:\r?\n> <a href="https:\/\/phish\.example">Reset your password<\/a>\r?\n> Second line\r?\n/);
    assert.match(mail.text, /Souk sent this email on behalf of Test Store/);
    assert.ok(!mail.text.includes('\u0007'));
  });

  test(`at most ${STORE_LIMIT} sends per store and ${USER_LIMIT} per user an hour: 30 parallel sends → ${STORE_LIMIT} accepted, the rest 429 with Retry-After`, async () => {
    const s = await ownerWithStore(api);
    const list = await Promise.all(Array.from({ length: 30 }, () => createPo(s, item)));
    const answers = await Promise.all(list.map((po) => send(s, po.id)));
    const accepted = answers.filter((r) => r.status === 202);
    assert.equal(accepted.length, STORE_LIMIT, answers.map((r) => r.status).join(','));
    for (const r of answers.filter((x) => x.status !== 202)) {
      assertProblem(r, 429, 'RATE_LIMITED');
      assert.ok(Number(r.headers.get('retry-after')) >= 1, 'Retry-After in seconds');
    }
    const queued = (await Promise.all(list.map((po) => api('GET', pos(s, `/${po.id}`), { token: s.token })))).filter((r) => r.body.sends.length);
    assert.equal(queued.length, STORE_LIMIT, 'refused sends left nothing behind');
    // :batchSend counts each PO: over the limit they fail in the envelope.
    const batch = await api('POST', pos(s, ':batchSend'), { token: s.token, body: { ids: list.slice(0, 2).map((p) => p.id) } });
    assert.equal(batch.status, 202, batch.text);
    assert.deepEqual(Object.values(batch.body.failedRequests).map((f: any) => f.code), ['RATE_LIMITED', 'RATE_LIMITED']);

    // The same user's second store: the user's own limit is what remains.
    const res = await api('POST', '/v1/stores', { token: s.token, body: { name: 'Second' } });
    const second = { ...s, storeId: res.body.id };
    const more = await Promise.all(Array.from({ length: 6 }, () => createPo(second, item)));
    const statuses = (await Promise.all(more.map((po) => send(second, po.id)))).map((r) => r.status);
    assert.equal(statuses.filter((x) => x === 202).length, USER_LIMIT - STORE_LIMIT, statuses.join(','));
    assert.equal(statuses.filter((x) => x === 429).length, 6 - (USER_LIMIT - STORE_LIMIT));
  });
});

test('a document reads back its own letters whatever the process rendered before (ظ then ط share a shape)', async () => {
  const at = new Date(0);
  const doc = (supplier: string, item: string) =>
    renderPurchaseOrders('Store', [
      {
        po: { number: 1, status: 'draft', currency: 'DZD', supplier: { name: supplier }, createdAt: at, updatedAt: at, expectedAt: null, reference: null, notes: null, subtotal: 100, shippingCost: 0, tax: 0, total: 100 },
        items: [{ sku: 'S', name: item, qtyOrdered: 1, qtyReceived: 0, unitCost: 100, lineTotal: 100 }],
        warehouse: null,
      } as unknown as PdfPurchaseOrder,
    ]);
  assert.match(await pdfText(await doc('نظر', 'حظ')), /نظر/);
  const text = await pdfText(await doc('قطعة', 'قطعة 24'));
  assert.ok(text.includes('قطعة'), text);
});
