import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from './helpers.js';
import { assertFeeefProblem, feeefStore } from './feeef-helpers.js';

// Feeef's SDK (feeef.js 0.12.12) against /feeef/v1: finance.suppliers, a purchase order created
// by supplierId, and finance.purchaseReceipts (create a draft, post through the order's
// receiving, void, delete), each call in the SDK's own request shape.

let svc: TestService;
before(async () => {
  svc = await startTestService();
});
after(() => svc.close());

async function v1(token: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${svc.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, data: (await res.json().catch(() => null)) as any };
}

test('suppliers: create, find, list with q, update, delete; another store cannot see them', async () => {
  const { ff, storeId } = await feeefStore(svc.url);
  // create(data): POST /finance/suppliers with projectId in the body.
  const created = await ff.post('/finance/suppliers', { projectId: storeId, name: 'ACME Trading', code: 'AC', email: 'sales@acme.example', phone: '+213555000111', taxId: 'NIF-1', address: { city: 'Oran' }, paymentTerms: 'net 30', metadata: { tier: 'a' } });
  assert.equal(created.status, 201, created.text);
  const s = created.data;
  assert.match(s.id, /^sup_/);
  assert.equal(s.projectId, storeId);
  assert.deepEqual([s.name, s.code, s.email, s.phone, s.taxId, s.paymentTerms], ['ACME Trading', 'AC', 'sales@acme.example', '+213555000111', 'NIF-1', 'net 30']);
  assert.deepEqual(s.address, { city: 'Oran' });
  assert.deepEqual(s.metadata, { tier: 'a' });
  const other = (await ff.post('/finance/suppliers', { projectId: storeId, name: 'Bolt Works' })).data;
  assertFeeefProblem(await ff.post('/finance/suppliers', { projectId: storeId }), 400, 'VALIDATION_FAILED');
  assertFeeefProblem(await ff.post('/finance/suppliers', { projectId: storeId, name: 'X', rating: 5 }), 400, 'VALIDATION_FAILED');

  // find({id, params: {projectId}}): GET /finance/suppliers/{id}?by=id&projectId=
  const found = await ff.get(`/finance/suppliers/${s.id}`, { by: 'id', projectId: storeId });
  assert.equal(found.status, 200, found.text);
  assert.equal(found.data.name, 'ACME Trading');
  // listSuppliers({projectId, page, limit, params}) and suppliers.list: the page envelope.
  const list = await ff.get('/finance/suppliers', { page: 1, limit: 10, projectId: storeId });
  assert.equal(list.status, 200, list.text);
  assert.deepEqual(list.data.data.map((x: any) => x.id), [other.id, s.id]);
  assert.equal(list.data.meta.total, 2);
  const q = await ff.get('/finance/suppliers', { projectId: storeId, q: 'acme' });
  assert.deepEqual(q.data.data.map((x: any) => x.id), [s.id]);

  // update({id, data, params}): PUT, a partial change; null clears.
  const put = await ff.put(`/finance/suppliers/${s.id}`, { phone: null, notes: 'calls before 10' }, { projectId: storeId });
  assert.equal(put.status, 200, put.text);
  assert.equal(put.data.phone, null);
  assert.equal(put.data.notes, 'calls before 10');
  assert.equal(put.data.email, 'sales@acme.example');

  const stranger = await feeefStore(svc.url);
  assertFeeefProblem(await stranger.ff.get(`/finance/suppliers/${s.id}`, { by: 'id' }), 404, 'NOT_FOUND');
  assertFeeefProblem(await stranger.ff.get(`/finance/suppliers/${s.id}`, { by: 'id', projectId: stranger.storeId }), 404, 'NOT_FOUND');
  assertFeeefProblem(await stranger.ff.put(`/finance/suppliers/${s.id}`, { name: 'Mine' }, { projectId: stranger.storeId }), 404, 'NOT_FOUND');
  assertFeeefProblem(await stranger.ff.delete(`/finance/suppliers/${s.id}`, { by: 'id' }), 404, 'NOT_FOUND');
  assert.deepEqual((await stranger.ff.get('/finance/suppliers', { projectId: stranger.storeId })).data.data, []);

  // delete({id, params}): DELETE ?by=id → 204.
  assert.equal((await ff.delete(`/finance/suppliers/${other.id}`, { by: 'id', projectId: storeId })).status, 204);
  assertFeeefProblem(await ff.get(`/finance/suppliers/${other.id}`, { by: 'id', projectId: storeId }), 404, 'NOT_FOUND');
});

test('suppliers:batchDelete answers the batch envelope; another store’s supplier is a failure; false aborts all', async () => {
  const { ff, storeId } = await feeefStore(svc.url);
  const a = (await ff.post('/finance/suppliers', { projectId: storeId, name: 'A' })).data;
  const b = (await ff.post('/finance/suppliers', { projectId: storeId, name: 'B' })).data;
  const stranger = await feeefStore(svc.url);
  const theirs = (await stranger.ff.post('/finance/suppliers', { projectId: stranger.storeId, name: 'Theirs' })).data;
  // deleteMany({projectId, names, returnPartialSuccess}): POST /finance/suppliers:batchDelete
  const aborted = await ff.post('/finance/suppliers:batchDelete', { projectId: storeId, names: [a.id, theirs.id], returnPartialSuccess: false });
  assert.equal(aborted.status, 400, aborted.text);
  assert.equal(aborted.data.code, 'ABORTED');
  assert.equal(aborted.data.failedRequests['1'].code, 'NOT_FOUND');
  assert.equal((await ff.get(`/finance/suppliers/${a.id}`, { by: 'id' })).status, 200);
  const partial = await ff.post('/finance/suppliers:batchDelete', { projectId: storeId, names: [`projects/${storeId}/suppliers/${a.id}`, theirs.id, b.id], returnPartialSuccess: true });
  assert.equal(partial.status, 200, partial.text);
  assert.deepEqual(partial.data.summary, { total: 3, succeeded: 2, failed: 1 });
  assert.deepEqual(partial.data.resources.map((x: any) => x.id), [a.id, b.id]);
  assert.deepEqual(Object.keys(partial.data.failedRequests), ['1']);
  assert.deepEqual((await ff.get('/finance/suppliers', { projectId: storeId })).data.data, []);
  assert.equal((await stranger.ff.get(`/finance/suppliers/${theirs.id}`, { by: 'id' })).status, 200);
});

test('a purchase order created by supplierId copies the supplier; another store’s supplier is a 400 like a missing one', async () => {
  const { ff, storeId, token } = await feeefStore(svc.url);
  const p = (await ff.post('/products', { storeId, name: 'Screw', price: 2, stock: 0 })).data;
  const s = (await ff.post('/finance/suppliers', { projectId: storeId, name: 'ACME', email: 'po@acme.example', phone: '0555', taxId: 'T-9', address: { line1: '1 Rue' } })).data;
  // purchaseOrders.create({projectId, supplierId, items, ...})
  const po = await ff.post('/finance/purchase-orders', { projectId: storeId, supplierId: s.id, reference: 'R-7', items: [{ sku: 'SCR', productId: p.id, qtyOrdered: 4, unitCost: 2.5 }] });
  assert.equal(po.status, 201, po.text);
  assert.equal(po.data.supplierId, s.id);
  assert.deepEqual(po.data.supplier, { name: 'ACME', email: 'po@acme.example', phone: '0555', address: { line1: '1 Rue' }, taxId: 'T-9' });
  assert.equal(po.data.subtotal, 10);
  // /v1 keeps its shape: the supplier block, no supplierId field.
  const v1po = await v1(token, 'GET', `/v1/finance/purchase-orders/${po.data.id}?storeId=${storeId}`);
  assert.equal(v1po.status, 200);
  assert.equal(v1po.data.supplier.name, 'ACME');
  assert.equal('supplierId' in v1po.data, false);
  // Editing or deleting the supplier leaves the order's copy as it was.
  await ff.put(`/finance/suppliers/${s.id}`, { name: 'ACME Renamed' });
  assert.equal((await ff.delete(`/finance/suppliers/${s.id}`, { by: 'id' })).status, 204);
  assert.equal((await ff.get(`/finance/purchase-orders/${po.data.id}`, { by: 'id' })).data.supplier.name, 'ACME');

  const missing = await ff.post('/finance/purchase-orders', { projectId: storeId, supplierId: 'sup_00000000000000000000000000', items: [{ productId: p.id, qtyOrdered: 1, unitCost: 1 }] });
  assertFeeefProblem(missing, 400, 'VALIDATION_FAILED');
  const stranger = await feeefStore(svc.url);
  const theirs = (await stranger.ff.post('/finance/suppliers', { projectId: stranger.storeId, name: 'Theirs' })).data;
  const cross = await ff.post('/finance/purchase-orders', { projectId: storeId, supplierId: theirs.id, items: [{ productId: p.id, qtyOrdered: 1, unitCost: 1 }] });
  assertFeeefProblem(cross, 400, 'VALIDATION_FAILED');
  assert.deepEqual(cross.data.errors.map((e: any) => [e.path, e.message]), [['supplierId', 'no such supplier in this store']]);
  assert.deepEqual(missing.data.errors, cross.data.errors);
  // /v1 takes the optional supplierId too, with the same answer.
  const v1cross = await v1(token, 'POST', `/v1/finance/purchase-orders?storeId=${storeId}`, { supplierId: theirs.id, items: [{ productId: p.id, qtyOrdered: 1, unitCost: 1 }] });
  assert.equal(v1cross.status, 400);
  assert.deepEqual(v1cross.data.errors.map((e: any) => e.path), ['supplierId']);
  const neither = await v1(token, 'POST', `/v1/finance/purchase-orders?storeId=${storeId}`, { items: [{ productId: p.id, qtyOrdered: 1, unitCost: 1 }] });
  assert.equal(neither.status, 400);
  assert.deepEqual(neither.data.errors.map((e: any) => e.path), ['supplier']);
});

test('purchase receipts: a draft moves nothing; post receives through the order (stock, movements, partial then received); over-receipt 400', async () => {
  const { ff, storeId } = await feeefStore(svc.url);
  const w = (await ff.post('/inventory/warehouses', { projectId: storeId, name: 'Main', code: 'M' })).data;
  const p1 = (await ff.post('/products', { storeId, name: 'Nut', sku: 'NUT', price: 1, stock: 0 })).data;
  const p2 = (await ff.post('/products', { storeId, name: 'Bolt', sku: 'BOLT', price: 1, stock: 0 })).data;
  const s = (await ff.post('/finance/suppliers', { projectId: storeId, name: 'ACME' })).data;
  const po = (await ff.post('/finance/purchase-orders', { projectId: storeId, supplierId: s.id, items: [{ sku: 'NUT', productId: p1.id, qtyOrdered: 10, unitCost: 1.25, warehouseId: w.id }, { sku: 'BOLT', productId: p2.id, qtyOrdered: 5, unitCost: 2 }] })).data;
  assert.equal((await ff.post(`/finance/purchase-orders/${po.id}/send`, null, { projectId: storeId })).status, 200);

  // purchaseReceipts.create({projectId, supplierId, purchaseOrderId, warehouseId, lines}).
  const created = await ff.post('/finance/purchase-receipts', {
    projectId: storeId,
    supplierId: s.id,
    purchaseOrderId: po.id,
    warehouseId: w.id,
    reference: 'GRN-1',
    lines: [
      { sku: 'NUT', productId: p1.id, variantPath: '', batch: null, qtyReceived: 4, unitCost: 1.25, poLineIndex: 0 },
      { sku: 'BOLT', qtyReceived: 5, unitCost: 2 },
    ],
  });
  assert.equal(created.status, 201, created.text);
  const r = created.data;
  assert.match(r.id, /^prc_/);
  assert.deepEqual([r.status, r.isPosted, r.postedAt, r.supplierId, r.purchaseOrderId, r.projectId, r.totalCost], ['draft', false, null, s.id, po.id, storeId, 15]);
  assert.deepEqual(r.lines.map((l: any) => [l.lineNo, l.sku, l.productId, l.qtyReceived, l.unitCost, l.lineTotal, l.poLineIndex, l.purchaseReceiptId]), [
    [1, 'NUT', p1.id, 4, 1.25, 5, 0, r.id],
    [2, 'BOLT', p2.id, 5, 2, 10, 1, r.id],
  ]);
  assert.equal((await ff.get(`/products/${p1.id}`)).data.stock, 0);
  assert.equal((await ff.get(`/finance/purchase-orders/${po.id}`, { by: 'id' })).data.status, 'sent');

  // Over-receipt is refused at create, per item, summing the lines.
  const over = await ff.post('/finance/purchase-receipts', { projectId: storeId, supplierId: s.id, purchaseOrderId: po.id, lines: [{ sku: 'NUT', qtyReceived: 6, unitCost: 1 }, { sku: 'NUT', qtyReceived: 5, unitCost: 1 }] });
  assertFeeefProblem(over, 400, 'VALIDATION_FAILED');
  assert.deepEqual(over.data.errors.map((e: any) => e.path), ['lines.1.qtyReceived']);
  assertFeeefProblem(await ff.post('/finance/purchase-receipts', { projectId: storeId, supplierId: s.id, lines: [{ sku: 'NUT', qtyReceived: 1, unitCost: 1 }] }), 400, 'VALIDATION_FAILED');
  assertFeeefProblem(await ff.post('/finance/purchase-receipts', { projectId: storeId, supplierId: s.id, purchaseOrderId: po.id, lines: [{ sku: 'NOPE', qtyReceived: 1, unitCost: 1 }] }), 400, 'VALIDATION_FAILED');

  // A second draft for the rest of the nuts; posting the first leaves the order partial.
  const rest = (await ff.post('/finance/purchase-receipts', { projectId: storeId, supplierId: s.id, purchaseOrderId: po.id, lines: [{ sku: 'NUT', qtyReceived: 6, unitCost: 1.25, poLineIndex: 0 }] })).data;
  // post({projectId, id}): POST /{id}/post with a null body.
  const posted = await ff.post(`/finance/purchase-receipts/${r.id}/post`, null, { projectId: storeId });
  assert.equal(posted.status, 200, posted.text);
  assert.equal(posted.data.status, 'posted');
  assert.equal(posted.data.isPosted, true);
  assert.equal(typeof posted.data.postedAt, 'string');
  assert.equal(posted.data.lines[0].inventoryObjectId, `${w.id}~${p1.id}`);
  assert.equal((await ff.get(`/products/${p1.id}`)).data.stock, 4);
  assert.equal((await ff.get(`/products/${p2.id}`)).data.stock, 5);
  const partial = (await ff.get(`/finance/purchase-orders/${po.id}`, { by: 'id' })).data;
  assert.equal(partial.status, 'partial');
  assert.deepEqual(partial.items.map((i: any) => i.qtyReceived), [4, 5]);
  assert.equal(partial.receipts.length, 1);
  assert.equal(partial.receipts[0].id, posted.data.poReceiptId);
  const moves = (await ff.get('/inventory/movements', { projectId: storeId, productId: p1.id })).data.data;
  assert.deepEqual(moves.map((m: any) => [m.quantityDelta, m.reason, m.correlationRef, m.warehouseId]), [[4, 'purchase_order', po.id, w.id]]);
  // Posting again changes nothing.
  const again = await ff.post(`/finance/purchase-receipts/${r.id}/post`, null, { projectId: storeId });
  assert.equal(again.status, 200, again.text);
  assert.equal(again.data.postedAt, posted.data.postedAt);
  assert.equal((await ff.get(`/products/${p1.id}`)).data.stock, 4);

  // A draft that no longer fits what is outstanding is refused when posted (400), and nothing moves.
  const extra = (await ff.post('/finance/purchase-receipts', { projectId: storeId, supplierId: s.id, purchaseOrderId: po.id, lines: [{ sku: 'NUT', qtyReceived: 3, unitCost: 1.25 }] })).data;
  assert.equal((await ff.post(`/finance/purchase-receipts/${rest.id}/post`, null, { projectId: storeId })).data.status, 'posted');
  assert.equal((await ff.get(`/finance/purchase-orders/${po.id}`, { by: 'id' })).data.status, 'received');
  assert.equal((await ff.get(`/products/${p1.id}`)).data.stock, 10);
  const late = await ff.post(`/finance/purchase-receipts/${extra.id}/post`, null, { projectId: storeId });
  assertFeeefProblem(late, 409, 'CONFLICT');
  assert.equal((await ff.get(`/finance/purchase-receipts/${extra.id}`, { by: 'id' })).data.status, 'draft');
  assert.equal((await ff.get(`/products/${p1.id}`)).data.stock, 10);

  // list and find read back the SDK's fields.
  const list = await ff.get('/finance/purchase-receipts', { projectId: storeId, purchaseOrderId: po.id });
  assert.equal(list.status, 200, list.text);
  assert.deepEqual(list.data.data.map((x: any) => x.id), [extra.id, rest.id, r.id]);
  assert.deepEqual((await ff.get('/finance/purchase-receipts', { projectId: storeId, status: 'posted' })).data.data.map((x: any) => x.id), [rest.id, r.id]);
  const stranger = await feeefStore(svc.url);
  assertFeeefProblem(await stranger.ff.get(`/finance/purchase-receipts/${r.id}`, { by: 'id' }), 404, 'NOT_FOUND');
  assertFeeefProblem(await stranger.ff.post(`/finance/purchase-receipts/${extra.id}/post`, null, { projectId: stranger.storeId }), 404, 'NOT_FOUND');
});

test('purchase receipts: over-receipt when posting is a 400 that moves nothing; void a draft; posted cannot be voided or deleted; delete a draft', async () => {
  const { ff, storeId } = await feeefStore(svc.url);
  const p = (await ff.post('/products', { storeId, name: 'Washer', sku: 'W', price: 1, stock: 0 })).data;
  const s0 = (await ff.post('/finance/suppliers', { projectId: storeId, name: 'Early' })).data;
  const early = (await ff.post('/finance/purchase-orders', { projectId: storeId, supplierId: s0.id, items: [{ productId: p.id, qtyOrdered: 1, unitCost: 1 }] })).data;
  await ff.post(`/finance/purchase-orders/${early.id}/send`, null, { projectId: storeId });
  const homeless = (await ff.post('/finance/purchase-receipts', { projectId: storeId, supplierId: s0.id, purchaseOrderId: early.id, lines: [{ productId: p.id, qtyReceived: 1, unitCost: 1 }] })).data;
  // Posting needs an active warehouse, as receiving does: the store has none yet.
  const nowhere = await ff.post(`/finance/purchase-receipts/${homeless.id}/post`, null, { projectId: storeId });
  assertFeeefProblem(nowhere, 400, 'VALIDATION_FAILED');
  assert.deepEqual(nowhere.data.errors.map((e: any) => e.path), ['warehouseId']);
  assert.equal((await ff.get(`/finance/purchase-receipts/${homeless.id}`, { by: 'id' })).data.status, 'draft');
  await ff.post('/inventory/warehouses', { projectId: storeId, name: 'Main', code: 'M' });
  const s = (await ff.post('/finance/suppliers', { projectId: storeId, name: 'ACME' })).data;
  const po = (await ff.post('/finance/purchase-orders', { projectId: storeId, supplierId: s.id, items: [{ sku: 'W', productId: p.id, qtyOrdered: 5, unitCost: 1 }] })).data;
  await ff.post(`/finance/purchase-orders/${po.id}/send`, null, { projectId: storeId });
  const a = (await ff.post('/finance/purchase-receipts', { projectId: storeId, supplierId: s.id, purchaseOrderId: po.id, lines: [{ productId: p.id, qtyReceived: 3, unitCost: 1 }] })).data;
  const b = (await ff.post('/finance/purchase-receipts', { projectId: storeId, supplierId: s.id, purchaseOrderId: po.id, lines: [{ productId: p.id, qtyReceived: 3, unitCost: 1 }] })).data;
  const postedA = await ff.post(`/finance/purchase-receipts/${a.id}/post`, null, { projectId: storeId });
  assert.equal(postedA.status, 200, postedA.text);
  const over = await ff.post(`/finance/purchase-receipts/${b.id}/post`, null, { projectId: storeId });
  assertFeeefProblem(over, 400, 'VALIDATION_FAILED');
  assert.deepEqual(over.data.errors.map((e: any) => e.path), ['lines.0.qtyReceived']);
  assert.equal((await ff.get(`/products/${p.id}`)).data.stock, 3);
  assert.equal((await ff.get(`/finance/purchase-receipts/${b.id}`, { by: 'id' })).data.status, 'draft');

  // void({projectId, id}): a draft becomes voided; again: unchanged; it cannot be posted.
  const voided = await ff.post(`/finance/purchase-receipts/${b.id}/void`, null, { projectId: storeId });
  assert.equal(voided.status, 200, voided.text);
  assert.equal(voided.data.status, 'voided');
  assert.equal(typeof voided.data.voidedAt, 'string');
  assert.equal((await ff.post(`/finance/purchase-receipts/${b.id}/void`, null, { projectId: storeId })).data.voidedAt, voided.data.voidedAt);
  assertFeeefProblem(await ff.post(`/finance/purchase-receipts/${b.id}/post`, null, { projectId: storeId }), 409, 'CONFLICT');
  // A posted receipt is final: void and delete → 409, stock unchanged.
  assertFeeefProblem(await ff.post(`/finance/purchase-receipts/${a.id}/void`, null, { projectId: storeId }), 409, 'CONFLICT');
  assertFeeefProblem(await ff.delete(`/finance/purchase-receipts/${a.id}`, { by: 'id', projectId: storeId }), 409, 'CONFLICT');
  assertFeeefProblem(await ff.delete(`/finance/purchase-receipts/${b.id}`, { by: 'id', projectId: storeId }), 409, 'CONFLICT');
  assert.equal((await ff.get(`/products/${p.id}`)).data.stock, 3);
  // delete({id, params}): a draft goes.
  const c = (await ff.post('/finance/purchase-receipts', { projectId: storeId, supplierId: s.id, purchaseOrderId: po.id, lines: [{ poLineIndex: 0, sku: 'W', qtyReceived: 2, unitCost: 1 }] })).data;
  assert.equal((await ff.delete(`/finance/purchase-receipts/${c.id}`, { by: 'id', projectId: storeId })).status, 204);
  assertFeeefProblem(await ff.get(`/finance/purchase-receipts/${c.id}`, { by: 'id' }), 404, 'NOT_FOUND');
  // Another store's supplier on a receipt is the same 400 as a missing one.
  const stranger = await feeefStore(svc.url);
  const theirs = (await stranger.ff.post('/finance/suppliers', { projectId: stranger.storeId, name: 'T' })).data;
  const cross = await ff.post('/finance/purchase-receipts', { projectId: storeId, supplierId: theirs.id, purchaseOrderId: po.id, lines: [{ productId: p.id, qtyReceived: 1, unitCost: 1 }] });
  assertFeeefProblem(cross, 400, 'VALIDATION_FAILED');
  assert.deepEqual(cross.data.errors.map((e: any) => e.path), ['supplierId']);
});

test('purchase receipts: the same draft posted twice at once receives once; two drafts past the outstanding quantity post one', async () => {
  const { ff, storeId } = await feeefStore(svc.url);
  await ff.post('/inventory/warehouses', { projectId: storeId, name: 'Main', code: 'M' });
  const p = (await ff.post('/products', { storeId, name: 'Pin', sku: 'PIN', price: 1, stock: 0 })).data;
  const s = (await ff.post('/finance/suppliers', { projectId: storeId, name: 'ACME' })).data;
  const po = (await ff.post('/finance/purchase-orders', { projectId: storeId, supplierId: s.id, items: [{ sku: 'PIN', productId: p.id, qtyOrdered: 5, unitCost: 1 }] })).data;
  await ff.post(`/finance/purchase-orders/${po.id}/send`, null, { projectId: storeId });
  const line = { sku: 'PIN', qtyReceived: 1, unitCost: 1 };
  const a = (await ff.post('/finance/purchase-receipts', { projectId: storeId, supplierId: s.id, purchaseOrderId: po.id, lines: [line] })).data;
  const both = await Promise.all([1, 2].map(() => ff.post(`/finance/purchase-receipts/${a.id}/post`, null, { projectId: storeId })));
  assert.deepEqual(both.map((r) => [r.status, r.data.status]), [[200, 'posted'], [200, 'posted']]);
  assert.equal(both[0].data.poReceiptId, both[1].data.poReceiptId);
  assert.equal((await ff.get(`/products/${p.id}`)).data.stock, 1);

  const b = (await ff.post('/finance/purchase-receipts', { projectId: storeId, supplierId: s.id, purchaseOrderId: po.id, lines: [{ ...line, qtyReceived: 3 }] })).data;
  const c = (await ff.post('/finance/purchase-receipts', { projectId: storeId, supplierId: s.id, purchaseOrderId: po.id, lines: [{ ...line, qtyReceived: 3 }] })).data;
  const race = await Promise.all([b, c].map((r) => ff.post(`/finance/purchase-receipts/${r.id}/post`, null, { projectId: storeId })));
  // The second to take the order's lock sees 1 outstanding: over-receipt, and its draft stays a draft.
  assert.deepEqual(race.map((r) => r.status).sort(), [200, 400]);
  assert.equal((await ff.get(`/products/${p.id}`)).data.stock, 4);
  const order = (await ff.get(`/finance/purchase-orders/${po.id}`, { by: 'id' })).data;
  assert.equal(order.status, 'partial');
  assert.deepEqual(order.items.map((i: any) => i.qtyReceived), [4]);
  assert.equal(order.receipts.length, 2);
  const statuses = (await ff.get('/finance/purchase-receipts', { projectId: storeId, purchaseOrderId: po.id })).data.data.map((r: any) => r.status).sort();
  assert.deepEqual(statuses, ['draft', 'posted', 'posted']);
});
