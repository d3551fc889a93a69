import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from './helpers.js';
import { assertFeeefProblem, feeefStore } from './feeef-helpers.js';

// Feeef's SDK against /feeef/v1: inventory warehouses (with the batch envelope), movements,
// purchase orders; projectId is the store. Writing stock objects: feeef-inventory-objects.test.ts.

let svc: TestService;
let owner: Awaited<ReturnType<typeof feeefStore>>;
before(async () => {
  svc = await startTestService();
  owner = await feeefStore(svc.url);
});
after(() => svc.close());

test('warehouses: create with projectId, list, find, PUT, delete', async () => {
  const { ff, storeId } = owner;
  const created = await ff.post('/inventory/warehouses', { projectId: storeId, name: 'Main', code: 'MAIN', namespacePrefix: 'x' });
  assert.equal(created.status, 201, created.text);
  assert.equal(created.data.projectId, storeId);
  assert.equal(created.data.isDefault, true);
  const id = created.data.id;
  const list = await ff.get('/inventory/warehouses', { projectId: storeId });
  assert.equal(list.status, 200, list.text);
  assert.deepEqual(list.data.data.map((w: any) => w.id), [id]);
  assert.equal((await ff.get(`/inventory/warehouses/${id}`, { by: 'id' })).data.code, 'MAIN');
  const put = await ff.put(`/inventory/warehouses/${id}`, { name: 'Central' });
  assert.equal(put.data.name, 'Central');
  assert.equal(put.data.code, 'MAIN');
  assertFeeefProblem(await ff.get('/inventory/warehouses'), 400, 'VALIDATION_FAILED');
  const spare = await ff.post('/inventory/warehouses', { projectId: storeId, name: 'Spare', code: 'SP' });
  assert.equal((await ff.delete(`/inventory/warehouses/${spare.data.id}`, { projectId: storeId })).status, 204);
  assertFeeefProblem(await ff.get('/inventory/aliases', { projectId: storeId }), 501, 'NOT_IMPLEMENTED');
  assertFeeefProblem(await ff.post('/inventory/reservations/res_1:release', null, { projectId: storeId }), 501, 'NOT_IMPLEMENTED');
});

test('warehouses:batchDelete answers the batch envelope; returnPartialSuccess false is a 400 ABORTED that changes nothing', async () => {
  const { ff, storeId } = await feeefStore(svc.url);
  const a = (await ff.post('/inventory/warehouses', { projectId: storeId, name: 'A', code: 'A' })).data;
  const b = (await ff.post('/inventory/warehouses', { projectId: storeId, name: 'B', code: 'B' })).data;
  const aborted = await ff.post('/inventory/warehouses:batchDelete', { projectId: storeId, names: [`projects/${storeId}/warehouses/${b.id}`, 'whs_missing'], returnPartialSuccess: false });
  assert.equal(aborted.status, 400, aborted.text);
  assert.equal(aborted.data.code, 'ABORTED');
  assert.equal(typeof aborted.data.message, 'string');
  assert.deepEqual(aborted.data.summary, { total: 2, succeeded: 0, failed: 1 });
  assert.equal(aborted.data.failedRequests['1'].code, 'NOT_FOUND');
  assert.equal((await ff.get(`/inventory/warehouses/${b.id}`)).status, 200);
  const partial = await ff.post('/inventory/warehouses:batchDelete', { projectId: storeId, names: [b.id, 'whs_missing'], returnPartialSuccess: true });
  assert.equal(partial.status, 200, partial.text);
  assert.deepEqual(partial.data.summary, { total: 2, succeeded: 1, failed: 1 });
  assert.deepEqual(partial.data.resources.map((w: any) => w.id), [b.id]);
  assert.deepEqual(Object.keys(partial.data.failedRequests), ['1']);
  assert.equal((await ff.get('/inventory/warehouses', { projectId: storeId })).data.data.length, 1);
  assert.equal(a.isDefault, true);
});

test('movements: the ledger of product stock changes, newest first', async () => {
  const { ff, storeId, token } = owner;
  const p = (await ff.post('/products', { storeId, name: 'Bolt', price: 1, stock: 0 })).data;
  const adjust = await fetch(`${svc.url}/v1/inventory/levels:adjust?storeId=${storeId}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ productId: p.id, delta: 7 }),
  });
  assert.equal(adjust.status, 200, await adjust.text());
  const moves = await ff.get('/inventory/movements', { projectId: storeId, productId: p.id });
  assert.equal(moves.status, 200, moves.text);
  assert.equal(moves.data.data.length, 1);
  assert.equal(moves.data.data[0].objectId, p.id);
  assert.equal(moves.data.data[0].quantityDelta, 7);
  assert.equal(moves.data.data[0].type, 'adjust');
});

test('purchase orders: create with an inline supplier, PUT partial, send, status received (stock in), cancel', async () => {
  const { ff, storeId } = owner;
  const p = (await ff.post('/products', { storeId, name: 'Screw', price: 2, stock: 0 })).data;
  const warehouses = (await ff.get('/inventory/warehouses', { projectId: storeId })).data.data;
  assertFeeefProblem(await ff.post('/finance/purchase-orders', { projectId: storeId, supplierId: 'sup_1', items: [{ sku: 'S', productId: p.id, qtyOrdered: 10, unitCost: 1 }] }), 400, 'VALIDATION_FAILED');
  const created = await ff.post('/finance/purchase-orders', {
    projectId: storeId,
    supplier: { name: 'ACME', email: 'acme@example.com' },
    reference: 'R-1',
    items: [{ sku: 'S', productId: p.id, qtyOrdered: 10, unitCost: 1.5, warehouseId: warehouses[0].id }],
  });
  assert.equal(created.status, 201, created.text);
  assert.equal(created.data.status, 'draft');
  assert.equal(created.data.supplierId, null);
  assert.equal(created.data.subtotal, 15);
  const id = created.data.id;
  const put = await ff.put(`/finance/purchase-orders/${id}`, { notes: 'rush' });
  assert.equal(put.data.notes, 'rush');
  assert.equal(put.data.reference, 'R-1');
  const list = await ff.get('/finance/purchase-orders', { projectId: storeId, status: 'draft' });
  assert.deepEqual(list.data.data.map((po: any) => po.id), [id]);
  const sent = await ff.post(`/finance/purchase-orders/${id}/send`, null, { projectId: storeId });
  assert.equal(sent.status, 200, sent.text);
  assert.equal(sent.data.status, 'sent');
  const received = await ff.post(`/finance/purchase-orders/${id}/status`, { status: 'received' }, { projectId: storeId });
  assert.equal(received.status, 200, received.text);
  assert.equal(received.data.status, 'received');
  assert.equal((await ff.get(`/products/${p.id}`)).data.stock, 10);
  assertFeeefProblem(await ff.post(`/finance/purchase-orders/${id}/cancel`, null, { projectId: storeId }), 409, 'CONFLICT');
  assertFeeefProblem(await ff.delete(`/finance/purchase-orders/${id}`, { projectId: storeId }), 501, 'NOT_IMPLEMENTED');

  const other = (await ff.post('/finance/purchase-orders', { projectId: storeId, supplier: { name: 'B' }, items: [{ productId: p.id, qtyOrdered: 1, unitCost: 1 }] })).data;
  const cancelled = await ff.post(`/finance/purchase-orders/${other.id}/status`, { status: 'cancelled' }, { projectId: storeId });
  assert.equal(cancelled.data.status, 'cancelled');
  assertFeeefProblem(await ff.get('/finance/supplier-bills', { projectId: storeId }), 501, 'NOT_IMPLEMENTED');
  assertFeeefProblem(await ff.get('/finance/reports/pnl', { projectId: storeId }), 501, 'NOT_IMPLEMENTED');
});

test('stock objects are the levels per product and warehouse; a movement is found by id', async () => {
  const { ff, storeId, token } = await feeefStore(svc.url);
  const w = (await ff.post('/inventory/warehouses', { projectId: storeId, name: 'W', code: 'W' })).data;
  const p = (await ff.post('/products', { storeId, name: 'Nut', sku: 'NUT-1', price: 1, stock: 0 })).data;
  const adjust = await fetch(`${svc.url}/v1/inventory/levels:adjust?storeId=${storeId}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ productId: p.id, warehouseId: w.id, onHand: 4 }),
  });
  assert.equal(adjust.status, 200, await adjust.text());
  const objects = await ff.get('/inventory/objects', { projectId: storeId, productId: p.id });
  assert.equal(objects.status, 200, objects.text);
  assert.equal(objects.data.data.length, 1);
  const o = objects.data.data[0];
  assert.equal(o.id, `${w.id}~${p.id}`);
  assert.equal(o.sku, 'NUT-1');
  assert.equal(o.quantityOnHand, 4);
  assert.equal(o.quantityAvailable, 4);
  assert.equal((await ff.get(`/inventory/objects/${encodeURIComponent(o.id)}`)).data.quantityOnHand, 4);
  assertFeeefProblem(await ff.post('/inventory/projects', { name: 'n' }), 501, 'NOT_IMPLEMENTED');
  assertFeeefProblem(await ff.post('/inventory/objects/apply-deltas', { projectId: storeId, deltas: [], reason: 'x' }), 400, 'VALIDATION_FAILED');
  const moves = (await ff.get('/inventory/movements', { projectId: storeId })).data.data;
  const found = await ff.get(`/inventory/movements/${moves[0].id}`, { by: 'id' });
  assert.equal(found.status, 200, found.text);
  assert.equal(found.data.quantityDelta, 4);
  const stranger = await feeefStore(svc.url);
  assertFeeefProblem(await stranger.ff.get(`/inventory/movements/${moves[0].id}`), 404, 'NOT_FOUND');
  assertFeeefProblem(await stranger.ff.get(`/inventory/objects/${encodeURIComponent(o.id)}`), 404, 'NOT_FOUND');
});
