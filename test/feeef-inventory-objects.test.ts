import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from './helpers.js';
import { assertFeeefProblem, feeefStore } from './feeef-helpers.js';

// Feeef's SDK writing stock objects (inventory.objects.create/update/delete/deleteMany/updateMany/
// applyDeltas, inventory.availability) in its exact request shapes; Souk keeps them as levels
// per product and warehouse, every change a movement and a productUpdated.

let svc: TestService;
before(async () => {
  svc = await startTestService();
});
after(() => svc.close());

type Store = Awaited<ReturnType<typeof feeefStore>>;

async function v1(s: Store, path: string) {
  const res = await fetch(`${svc.url}/v1${path}`, { headers: { authorization: `Bearer ${s.token}` } });
  const body: any = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body));
  return body;
}
const movements = async (s: Store, productId: string) => (await v1(s, `/inventory/movements?storeId=${s.storeId}&productId=${productId}`)).data as Array<{ delta: number; reason: string; refId: string | null; warehouseId: string }>;
const stockOf = async (s: Store, productId: string) => (await s.ff.get(`/products/${productId}`)).data.stock as number;
const productEvents = async (s: Store, productId: string) =>
  ((await v1(s, `/stores/${s.storeId}/events?events=productUpdated&limit=200`)).data as Array<{ data: any }>).filter((e) => JSON.stringify(e.data).includes(productId));

/** A store with one warehouse and products (stock 0, no level yet). */
async function setup(skus: string[], allowBackorder = false) {
  const s = await feeefStore(svc.url);
  const w = (await s.ff.post('/inventory/warehouses', { projectId: s.storeId, name: 'Main', code: 'MAIN' })).data;
  const products: any[] = [];
  for (const sku of skus) {
    const p = await s.ff.post('/products', { storeId: s.storeId, name: `P ${sku}`, sku, price: 1, stock: 0, ...(allowBackorder ? { allowBackorder } : {}) });
    assert.equal(p.status, 201, p.text);
    products.push(p.data);
  }
  return { s, w, products };
}

/** `inventory.objects.create(InventoryReceiveInput)`. */
const receive = (s: Store, sku: string, quantity: number, extra: Record<string, unknown> = {}) =>
  s.ff.post('/inventory/objects', { projectId: s.storeId, namespace: 'products', sku, quantity, ...extra });
/** `inventory.objects.applyDeltas(InventoryApplyDeltasInput)`. */
const applyDeltas = (s: Store, deltas: Array<{ objectId: string; quantityDelta: number }>, extra: Record<string, unknown> = {}) =>
  s.ff.post('/inventory/objects/apply-deltas', { projectId: s.storeId, deltas, reason: 'recount', ...extra });

test('create receives into a level (opening it), update sets the count, delete removes an empty one; each change a movement and a productUpdated', async () => {
  const { s, w, products } = await setup(['BOLT-1']);
  const p = products[0];
  const created = await receive(s, 'BOLT-1', 5, { warehouseId: w.id });
  assert.equal(created.status, 201, created.text);
  const id = `${w.id}~${p.id}`;
  assert.equal(created.data.id, id);
  assert.equal(created.data.projectId, s.storeId);
  assert.equal(created.data.sku, 'BOLT-1');
  assert.equal(created.data.warehouseId, w.id);
  assert.equal(created.data.quantityOnHand, 5);
  assert.equal(created.data.quantityAvailable, 5);
  assert.equal(await stockOf(s, p.id), 5);
  // Receiving again adds to the same level.
  assert.equal((await receive(s, 'BOLT-1', 2)).data.quantityOnHand, 7);
  assert.deepEqual((await movements(s, p.id)).map((m) => [m.delta, m.reason, m.warehouseId]), [[2, 'adjustment', w.id], [5, 'adjustment', w.id]]);
  assert.equal((await productEvents(s, p.id)).length >= 2, true);

  // Buckets Souk does not keep are refused rather than merged; unknown SKUs are 400.
  assertFeeefProblem(await receive(s, 'BOLT-1', 1, { batch: 'LOT-7' }), 400, 'VALIDATION_FAILED');
  assertFeeefProblem(await receive(s, 'NOPE', 1), 400, 'VALIDATION_FAILED');
  assertFeeefProblem(await receive(s, 'BOLT-1', -1), 400, 'VALIDATION_FAILED');

  // inventory.objects.update({id, data}).
  const put = await s.ff.put(`/inventory/objects/${encodeURIComponent(id)}`, { quantityOnHand: 3 });
  assert.equal(put.status, 200, put.text);
  assert.equal(put.data.quantityOnHand, 3);
  assert.equal(await stockOf(s, p.id), 3);
  assert.equal((await movements(s, p.id))[0].delta, -4);
  const events = await productEvents(s, p.id);
  assert.equal(events.length, 3);
  assertFeeefProblem(await s.ff.put(`/inventory/objects/${encodeURIComponent(id)}`, { warehouseId: 'whs_other' }), 400, 'VALIDATION_FAILED');
  assertFeeefProblem(await s.ff.put(`/inventory/objects/${encodeURIComponent(`${w.id}~prd_missing`)}`, { quantityOnHand: 1 }), 404, 'NOT_FOUND');

  // inventory.objects.delete({id}): only an empty level goes.
  const held = await s.ff.delete(`/inventory/objects/${encodeURIComponent(id)}`);
  assertFeeefProblem(held, 409, 'CONFLICT');
  assert.equal((await s.ff.get(`/inventory/objects/${encodeURIComponent(id)}`)).data.quantityOnHand, 3);
  assert.equal((await s.ff.put(`/inventory/objects/${encodeURIComponent(id)}`, { quantity: 0 })).data.quantityOnHand, 0);
  assert.equal((await s.ff.delete(`/inventory/objects/${encodeURIComponent(id)}`)).status, 204);
  assertFeeefProblem(await s.ff.get(`/inventory/objects/${encodeURIComponent(id)}`), 404, 'NOT_FOUND');
  assert.equal(await stockOf(s, p.id), 0);
  // Another store's member sees no such object.
  const stranger = await feeefStore(svc.url);
  assertFeeefProblem(await stranger.ff.put(`/inventory/objects/${encodeURIComponent(id)}`, { quantityOnHand: 9 }), 404, 'NOT_FOUND');
});

test('updateMany sets the count of each named object; deleteMany removes empty ones, ABORTED changes nothing', async () => {
  const { s, w, products } = await setup(['A', 'B']);
  await receive(s, 'A', 1);
  await receive(s, 'B', 0);
  const [a, b] = products.map((p) => `${w.id}~${p.id}`);
  // The SDK's typed InventoryBatchUpdateObjectsRequest names fields Souk has no counterpart for.
  const typed = await s.ff.post('/inventory/objects:batchUpdate', { projectId: s.storeId, names: [a], updateMask: ['storageClass', 'warehouseId'], storageClass: 'COLD', warehouseId: 'wh-1', returnPartialSuccess: true });
  assertFeeefProblem(typed, 400, 'VALIDATION_FAILED');
  const updated = await s.ff.post('/inventory/objects:batchUpdate', { projectId: s.storeId, names: [a, `projects/${s.storeId}/objects/${b}`, `${w.id}~prd_missing`], updateMask: ['quantityOnHand'], quantityOnHand: 4, returnPartialSuccess: true });
  assert.equal(updated.status, 200, updated.text);
  assert.deepEqual(updated.data.summary, { total: 3, succeeded: 2, failed: 1 });
  assert.equal(updated.data.failedRequests['2'].code, 'NOT_FOUND');
  assert.deepEqual(updated.data.resources.map((o: any) => [o.id, o.quantityOnHand]), [[a, 4], [b, 4]]);
  assert.equal(await stockOf(s, products[1].id), 4);

  await s.ff.put(`/inventory/objects/${encodeURIComponent(b)}`, { quantityOnHand: 0 });
  const aborted = await s.ff.post('/inventory/objects:batchDelete', { projectId: s.storeId, names: [b, a], returnPartialSuccess: false });
  assert.equal(aborted.status, 400, aborted.text);
  assert.equal(aborted.data.code, 'ABORTED');
  assert.equal(aborted.data.failedRequests['1'].code, 'CONFLICT');
  assert.equal((await s.ff.get(`/inventory/objects/${encodeURIComponent(b)}`)).status, 200);
  const partial = await s.ff.post('/inventory/objects:batchDelete', { projectId: s.storeId, names: [b, a], returnPartialSuccess: true });
  assert.deepEqual(partial.data.summary, { total: 2, succeeded: 1, failed: 1 });
  assert.deepEqual(partial.data.resources.map((o: any) => o.id), [b]);
  assert.equal((await s.ff.get(`/inventory/objects/${encodeURIComponent(b)}`)).status, 404);
  assert.equal((await s.ff.get(`/inventory/objects/${encodeURIComponent(a)}`)).data.quantityOnHand, 4);
});

test('applyDeltas is all or nothing: one delta below zero writes nothing and names its index', async () => {
  const { s, w, products } = await setup(['X', 'Y']);
  await receive(s, 'X', 10);
  await receive(s, 'Y', 2);
  const [x, y] = products.map((p) => `${w.id}~${p.id}`);
  const before = [(await movements(s, products[0].id)).length, (await movements(s, products[1].id)).length];
  const eventsBefore = (await productEvents(s, products[0].id)).length;

  const refused = await applyDeltas(s, [
    { objectId: x, quantityDelta: -3 },
    { objectId: y, quantityDelta: 1 },
    { objectId: y, quantityDelta: -5 },
  ]);
  assertFeeefProblem(refused, 409, 'CONFLICT');
  assert.equal(refused.data.errors[0].path, 'deltas.2');
  assert.equal((await s.ff.get(`/inventory/objects/${encodeURIComponent(x)}`)).data.quantityOnHand, 10);
  assert.equal((await s.ff.get(`/inventory/objects/${encodeURIComponent(y)}`)).data.quantityOnHand, 2);
  assert.deepEqual([(await movements(s, products[0].id)).length, (await movements(s, products[1].id)).length], before);
  assert.equal((await productEvents(s, products[0].id)).length, eventsBefore);
  assert.equal(await stockOf(s, products[0].id), 10);

  const unknown = await applyDeltas(s, [{ objectId: x, quantityDelta: -1 }, { objectId: `${w.id}~prd_missing`, quantityDelta: 1 }]);
  assertFeeefProblem(unknown, 400, 'VALIDATION_FAILED');
  assert.equal(unknown.data.errors[0].path, 'deltas.1.productId');
  const malformed = await applyDeltas(s, [{ objectId: x, quantityDelta: -1 }, { objectId: 'nonsense', quantityDelta: 1 }]);
  assertFeeefProblem(malformed, 400, 'VALIDATION_FAILED');
  assert.equal(malformed.data.errors[0].path, 'deltas.1.objectId');
  assert.equal((await s.ff.get(`/inventory/objects/${encodeURIComponent(x)}`)).data.quantityOnHand, 10);

  // A good batch: each delta a movement keyed by the correlationRef; the same key again applies nothing.
  const ok = await applyDeltas(s, [{ objectId: x, quantityDelta: -4 }, { objectId: y, quantityDelta: 4 }], { correlationRef: 'count-42' });
  assert.equal(ok.status, 200, ok.text);
  assert.equal(ok.data.replayed, false);
  assert.deepEqual(ok.data.data.map((o: any) => [o.id, o.quantityOnHand]), [[x, 6], [y, 6]]);
  const again = await applyDeltas(s, [{ objectId: x, quantityDelta: -4 }, { objectId: y, quantityDelta: 4 }], { correlationRef: 'count-42' });
  assert.equal(again.status, 200, again.text);
  assert.equal(again.data.replayed, true);
  assert.deepEqual(again.data.data.map((o: any) => o.quantityOnHand), [6, 6]);
  const xm = await movements(s, products[0].id);
  assert.deepEqual([xm[0].delta, xm[0].reason, xm[0].refId], [-4, 'adjustment', 'count-42']);
  assert.equal(xm.length, before[0] + 1);
  assert.equal(await stockOf(s, products[0].id), 6);
  assert.equal(await stockOf(s, products[1].id), 6);
});

test('applyDeltas moves units between warehouses in one transaction; a backorderable product may go below zero', async () => {
  const { s, w, products } = await setup(['Z'], true);
  const w2 = (await s.ff.post('/inventory/warehouses', { projectId: s.storeId, name: 'Second', code: 'SECOND' })).data;
  await receive(s, 'Z', 3);
  await receive(s, 'Z', 0, { warehouseId: w2.id });
  const [a, b] = [`${w.id}~${products[0].id}`, `${w2.id}~${products[0].id}`];
  const moved = await applyDeltas(s, [{ objectId: a, quantityDelta: -5 }, { objectId: b, quantityDelta: 5 }]);
  assert.equal(moved.status, 200, moved.text);
  assert.deepEqual(moved.data.data.map((o: any) => o.quantityOnHand), [-2, 5]);
  assert.equal(await stockOf(s, products[0].id), 3);
});

test('20 parallel applyDeltas of -1 on a level of 10: exactly 10 succeed and it never goes below zero', async () => {
  const { s, w, products } = await setup(['C']);
  await receive(s, 'C', 10);
  const id = `${w.id}~${products[0].id}`;
  const results = await Promise.all(Array.from({ length: 20 }, () => applyDeltas(s, [{ objectId: id, quantityDelta: -1 }])));
  const statuses = results.map((r) => r.status).sort();
  assert.deepEqual(statuses, [...Array(10).fill(200), ...Array(10).fill(409)], results.map((r) => r.text).join('\n'));
  for (const r of results.filter((r) => r.status === 409)) assert.equal(r.data.errors[0].path, 'deltas.0');
  assert.equal((await s.ff.get(`/inventory/objects/${encodeURIComponent(id)}`)).data.quantityOnHand, 0);
  assert.equal(await stockOf(s, products[0].id), 0);
  const ms = await movements(s, products[0].id);
  assert.equal(ms.filter((m) => m.delta === -1).length, 10);
});

test('availability reads back the private stock per SKU; unknown SKUs are 0', async () => {
  const { s, products } = await setup(['S1', 'S2']);
  await receive(s, 'S1', 7);
  // inventory.availability({projectId, skus}) sends the SKUs comma-joined.
  const res = await s.ff.get('/inventory/availability', { projectId: s.storeId, skus: 'S1,S2,NONE' });
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(res.data, { data: { S1: 7, S2: 0, NONE: 0 } });
  await applyDeltas(s, [{ objectId: (await receive(s, 'S2', 0)).data.id, quantityDelta: 2 }]);
  assert.equal((await s.ff.get('/inventory/availability', { projectId: s.storeId, skus: 'S2' })).data.data.S2, 2);
  assertFeeefProblem(await s.ff.get('/inventory/availability', { projectId: s.storeId }), 400, 'VALIDATION_FAILED');
  const stranger = await feeefStore(svc.url);
  const denied = await stranger.ff.get('/inventory/availability', { projectId: s.storeId, skus: 'S1' });
  assert.ok(denied.status === 403 || denied.status === 404, denied.text);
  assert.equal(products.length, 2);
});
