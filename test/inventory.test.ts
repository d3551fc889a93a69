import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertProblem, client, memberWithRole, ownerWithStore, startTestService, type Api, type TestService } from './helpers.js';

let svc: TestService;
let api: Api;

before(async () => {
  svc = await startTestService();
  api = client(svc.url);
});
after(() => svc.close());

type Owner = Awaited<ReturnType<typeof ownerWithStore>>;

const wh = (s: Owner, suffix = '') => `/v1/inventory/warehouses${suffix}${suffix.includes('?') ? '&' : '?'}storeId=${s.storeId}`;

async function product(s: Owner, body: Record<string, unknown> = {}) {
  const res = await api('POST', `/v1/stores/${s.storeId}/products`, { token: s.token, body: { name: `P ${Math.random()}`, price: 10, stock: 5, ...body } });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

async function warehouse(s: Owner, body: Record<string, unknown> = {}) {
  const res = await api('POST', wh(s), { token: s.token, body: { name: 'Main', ...body } });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

async function order(s: Owner, items: Array<{ productId: string; quantity: number }>) {
  const res = await api('POST', `/v1/stores/${s.storeId}/orders`, { token: s.token, body: { customerName: 'Ada', items } });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

const stockOf = async (s: Owner, id: string) => (await api('GET', `/v1/stores/${s.storeId}/products/${id}`, { token: s.token })).body.stock;
const getOrder = async (s: Owner, id: string) => (await api('GET', `/v1/stores/${s.storeId}/orders/${id}`, { token: s.token })).body;

async function levels(s: Owner, query = '') {
  const res = await api('GET', `/v1/inventory/levels?storeId=${s.storeId}${query}`, { token: s.token });
  assert.equal(res.status, 200, res.text);
  return res.body.data as Array<{ warehouseId: string; productId: string; onHand: number }>;
}

async function movements(s: Owner, productId: string) {
  const res = await api('GET', `/v1/inventory/movements?storeId=${s.storeId}&productId=${productId}`, { token: s.token });
  assert.equal(res.status, 200, res.text);
  return res.body.data as Array<{ id: string; productId: string; warehouseId: string | null; delta: number; reason: string; refId: string | null }>;
}

async function productEvents(s: Owner) {
  const res = await api('GET', `/v1/stores/${s.storeId}/events?events=productUpdated&limit=200`, { token: s.token });
  assert.equal(res.status, 200, res.text);
  return res.body.data as Array<{ event: string; data: any }>;
}

const move = (s: Owner, orderId: string, action: 'confirm' | 'reject') => api('POST', `/v1/stores/${s.storeId}/orders/${orderId}/${action}`, { token: s.token });
const patchStatus = (s: Owner, orderId: string, status: string) => api('PATCH', `/v1/stores/${s.storeId}/orders/${orderId}`, { token: s.token, body: { status } });

describe('warehouses', () => {
  test('CRUD under ?storeId=; the first is the default; codes are unique per store', async () => {
    const s = await ownerWithStore(api);
    const first = await warehouse(s, { name: 'Algiers depot', email: 'depot@example.com', address: { city: 'Algiers', wilaya: '16' } });
    assert.match(first.id, /^whs_/);
    assert.equal(first.code, 'ALGIERS-DEPOT');
    assert.equal(first.isDefault, true);
    assert.equal(first.active, true);
    assert.deepEqual(first.address, { city: 'Algiers', wilaya: '16' });
    const second = await warehouse(s, { name: 'Oran', code: 'ORN' });
    assert.equal(second.isDefault, false);
    assertProblem(await api('POST', wh(s), { token: s.token, body: { name: 'Again', code: 'ORN' } }), 409, 'CONFLICT');

    const list = await api('GET', wh(s), { token: s.token });
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.data.map((w: any) => w.id), [second.id, first.id]);
    assert.equal(list.body.nextCursor, null);

    const put = await api('PUT', wh(s, `/${second.id}`), { token: s.token, body: { isDefault: true, name: 'Oran West' } });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.body.isDefault, true);
    assert.equal(put.body.name, 'Oran West');
    assert.equal(put.body.code, 'ORN');
    assert.equal((await api('GET', wh(s, `/${first.id}`), { token: s.token })).body.isDefault, false);
    assertProblem(await api('PUT', wh(s, `/${second.id}`), { token: s.token, body: { isDefault: false } }), 400, 'VALIDATION_FAILED');
    assertProblem(await api('PUT', wh(s, `/${first.id}`), { token: s.token, body: { code: 'ORN' } }), 409, 'CONFLICT');

    const del = await api('DELETE', wh(s, `/${second.id}`), { token: s.token });
    assert.equal(del.status, 204, del.text);
    assert.equal((await api('GET', wh(s, `/${first.id}`), { token: s.token })).body.isDefault, true, 'the default passes on');
    assertProblem(await api('GET', wh(s, `/${second.id}`), { token: s.token }), 404, 'NOT_FOUND');
  });

  test('storeId is required in the query, members only, editors write', async () => {
    const s = await ownerWithStore(api);
    const res = await api('GET', '/v1/inventory/warehouses', { token: s.token });
    assertProblem(res, 400, 'VALIDATION_FAILED');
    assert.equal(res.body.errors[0].path, 'storeId');
    const stranger = await ownerWithStore(api);
    assertProblem(await api('GET', wh(s), { token: stranger.token }), 404, 'NOT_FOUND');
    const viewer = await memberWithRole(api, s.token, s.storeId, 'viewer');
    assert.equal((await api('GET', wh(s), { token: viewer.token })).status, 200);
    assertProblem(await api('POST', wh(s), { token: viewer.token, body: { name: 'X' } }), 403, 'FORBIDDEN');
    const editor = await memberWithRole(api, s.token, s.storeId, 'editor');
    assert.equal((await api('POST', wh(s), { token: editor.token, body: { name: 'X' } })).status, 201);
    assertProblem(await api('POST', wh(s), { token: s.token, body: { name: 'Big', address: { note: 'x'.repeat(3000) } } }), 400, 'VALIDATION_FAILED');
    assertProblem(await api('POST', wh(s), { token: s.token, body: { name: 'Y', unknown: 1 } }), 400, 'VALIDATION_FAILED');
  });

  test('the first warehouse takes the current stock; a product stock is the sum of its levels', async () => {
    const s = await ownerWithStore(api);
    const p = await product(s, { stock: 7 });
    const empty = await product(s, { stock: 0 });
    const main = await warehouse(s);
    assert.deepEqual(
      (await levels(s)).map((l) => [l.warehouseId, l.productId, l.onHand]),
      [[main.id, p.id, 7]],
    );
    const other = await warehouse(s, { name: 'Other' });
    const adj = await api('POST', `/v1/inventory/levels:adjust?storeId=${s.storeId}`, { token: s.token, body: { productId: p.id, warehouseId: other.id, delta: 3 } });
    assert.equal(adj.status, 200, adj.text);
    assert.equal(adj.body.onHand, 3);
    assert.equal(await stockOf(s, p.id), 10);
    const set = await api('POST', `/v1/inventory/levels:adjust?storeId=${s.storeId}`, { token: s.token, body: { productId: p.id, onHand: 2 } });
    assert.equal(set.body.onHand, 2);
    assert.equal(set.body.warehouseId, main.id);
    assert.equal(await stockOf(s, p.id), 5);
    // A product written with stock: the default warehouse takes the difference.
    const patched = await api('PATCH', `/v1/stores/${s.storeId}/products/${empty.id}`, { token: s.token, body: { stock: 4 } });
    assert.equal(patched.status, 200, patched.text);
    const fresh = await product(s, { stock: 6 });
    const byProduct = (id: string) => (levels(s, `&productId=${id}`));
    assert.deepEqual((await byProduct(empty.id)).map((l) => [l.warehouseId, l.onHand]), [[main.id, 4]]);
    assert.deepEqual((await byProduct(fresh.id)).map((l) => [l.warehouseId, l.onHand]), [[main.id, 6]]);
    const ledger = await movements(s, p.id);
    // The opening stock predates the warehouses: its movement names none.
    assert.deepEqual(ledger.map((m) => [m.reason, m.delta, m.warehouseId]), [['adjustment', -5, main.id], ['adjustment', 3, other.id], ['adjustment', 7, null]]);
    assertProblem(await api('POST', `/v1/inventory/levels:adjust?storeId=${s.storeId}`, { token: s.token, body: { productId: p.id } }), 400, 'VALIDATION_FAILED');

    assertProblem(await api('DELETE', wh(s, `/${other.id}`), { token: s.token }), 409, 'CONFLICT');
    await api('POST', `/v1/inventory/levels:adjust?storeId=${s.storeId}`, { token: s.token, body: { productId: p.id, warehouseId: other.id, onHand: 0 } });
    assert.equal((await api('DELETE', wh(s, `/${other.id}`), { token: s.token })).status, 204);
  });

  test(':batchDelete answers the batch envelope; returnPartialSuccess false aborts it all', async () => {
    const s = await ownerWithStore(api);
    const p = await product(s, { stock: 2 });
    const stocked = await warehouse(s, { name: 'Stocked' });
    const a = await warehouse(s, { name: 'A' });
    const b = await warehouse(s, { name: 'B' });
    assert.equal((await levels(s, `&productId=${p.id}`))[0].warehouseId, stocked.id);

    const aborted = await api('POST', wh(s, ':batchDelete'), { token: s.token, body: { ids: [a.id, stocked.id, 'whs_nope'], returnPartialSuccess: false } });
    assert.equal(aborted.status, 400, aborted.text);
    assert.equal(aborted.body.code, 'ABORTED');
    assert.deepEqual(Object.keys(aborted.body.failedRequests).sort(), ['1', '2']);
    assert.equal(aborted.body.failedRequests['1'].code, 'CONFLICT');
    assert.equal(aborted.body.failedRequests['2'].code, 'NOT_FOUND');
    assert.deepEqual(aborted.body.summary, { total: 3, succeeded: 0, failed: 2 });
    assert.equal((await api('GET', wh(s, `/${a.id}`), { token: s.token })).status, 200, 'nothing changed');

    const partial = await api('POST', `/v1/inventory/warehouses%3abatchDelete?storeId=${s.storeId}`, { token: s.token, body: { ids: [a.id, stocked.id, b.id] } });
    assert.equal(partial.status, 200, partial.text);
    assert.deepEqual(partial.body.resources.map((w: any) => w.id), [a.id, b.id]);
    assert.deepEqual(Object.keys(partial.body.failedRequests), ['1']);
    assert.equal(partial.body.failedRequests['1'].code, 'CONFLICT');
    assert.equal(typeof partial.body.failedRequests['1'].message, 'string');
    assert.deepEqual(partial.body.summary, { total: 3, succeeded: 2, failed: 1 });
    assertProblem(await api('GET', wh(s, `/${b.id}`), { token: s.token }), 404, 'NOT_FOUND');

    assertProblem(await api('POST', wh(s, ':batchdelete'), { token: s.token, body: { ids: [a.id] } }), 404, 'NOT_FOUND');
    assertProblem(await api('POST', wh(s, ':batchRemove'), { token: s.token, body: { ids: [a.id] } }), 404, 'NOT_FOUND');
    assertProblem(await api('POST', wh(s, ':batchDelete'), { token: s.token, body: { ids: [] } }), 400, 'VALIDATION_FAILED');
    const many = Array.from({ length: 101 }, (_, i) => `whs_${i}`);
    assertProblem(await api('POST', wh(s, ':batchDelete'), { token: s.token, body: { ids: many } }), 400, 'VALIDATION_FAILED');
  });
});

describe('stock follows orders', () => {
  test('without warehouses: confirming takes, cancelling gives back, with movements and productUpdated', async () => {
    const s = await ownerWithStore(api);
    const p = await product(s, { stock: 5 });
    const o = await order(s, [{ productId: p.id, quantity: 2 }, { productId: p.id, quantity: 1 }]);
    assert.equal(await stockOf(s, p.id), 5, 'a new order holds nothing');
    const confirmed = await move(s, o.id, 'confirm');
    assert.equal(confirmed.status, 200, confirmed.text);
    assert.ok(confirmed.body.confirmedAt);
    assert.equal(await stockOf(s, p.id), 2);
    // Between holding kinds nothing moves.
    assert.equal((await patchStatus(s, o.id, 'shipped')).status, 200);
    assert.equal(await stockOf(s, p.id), 2);
    // Editing the items of a holding order moves the difference.
    const edited = await api('PATCH', `/v1/stores/${s.storeId}/orders/${o.id}`, { token: s.token, body: { items: [{ productId: p.id, quantity: 4 }] } });
    assert.equal(edited.status, 200, edited.text);
    assert.equal(await stockOf(s, p.id), 1);
    assertProblem(await api('PATCH', `/v1/stores/${s.storeId}/orders/${o.id}`, { token: s.token, body: { items: [{ productId: p.id, quantity: 6 }] } }), 409, 'CONFLICT');
    assert.equal((await patchStatus(s, o.id, 'cancelled')).status, 200);
    assert.equal(await stockOf(s, p.id), 5);

    const ledger = await movements(s, p.id);
    assert.deepEqual(ledger.map((m) => [m.reason, m.delta, m.refId, m.warehouseId]), [['order', 4, o.id, null], ['order', -1, o.id, null], ['order', -3, o.id, null], ['adjustment', 5, null, null]]);
    const events = (await productEvents(s)).filter((e) => e.data.product.id === p.id);
    assert.deepEqual(events.map((e) => [e.data.previous_data.stock, e.data.product.stock]), [[5, 2], [2, 1], [1, 5]]);
  });

  test('409 and nothing changed when stock would go below zero, unless the product allows backorders', async () => {
    const s = await ownerWithStore(api);
    const scarce = await product(s, { stock: 1 });
    const plenty = await product(s, { stock: 10 });
    const o = await order(s, [{ productId: plenty.id, quantity: 3 }, { productId: scarce.id, quantity: 2 }]);
    assertProblem(await move(s, o.id, 'confirm'), 409, 'CONFLICT');
    assert.equal((await getOrder(s, o.id)).status, 'pending');
    assert.equal((await getOrder(s, o.id)).confirmedAt, null);
    assert.equal(await stockOf(s, plenty.id), 10);
    assert.equal(await stockOf(s, scarce.id), 1);
    assert.equal((await movements(s, plenty.id)).filter((m) => m.reason === 'order').length, 0);

    await api('PATCH', `/v1/stores/${s.storeId}/products/${scarce.id}`, { token: s.token, body: { allowBackorder: true } });
    assert.equal((await move(s, o.id, 'confirm')).status, 200);
    assert.equal(await stockOf(s, scarce.id), -1);
    assert.equal(await stockOf(s, plenty.id), 7);
    assert.equal((await move(s, o.id, 'reject')).status, 200);
    assert.equal(await stockOf(s, scarce.id), 1);
    assert.equal(await stockOf(s, plenty.id), 10);
  });

  test('with warehouses: the default warehouse gives and takes; its level is the floor', async () => {
    const s = await ownerWithStore(api);
    const p = await product(s, { stock: 4 });
    const main = await warehouse(s);
    const spare = await warehouse(s, { name: 'Spare' });
    await api('POST', `/v1/inventory/levels:adjust?storeId=${s.storeId}`, { token: s.token, body: { productId: p.id, warehouseId: spare.id, delta: 10 } });
    const big = await order(s, [{ productId: p.id, quantity: 5 }]);
    assertProblem(await move(s, big.id, 'confirm'), 409, 'CONFLICT');
    const small = await order(s, [{ productId: p.id, quantity: 3 }]);
    assert.equal((await move(s, small.id, 'confirm')).status, 200);
    const byWarehouse = Object.fromEntries((await levels(s, `&productId=${p.id}`)).map((l) => [l.warehouseId, l.onHand]));
    assert.deepEqual(byWarehouse, { [main.id]: 1, [spare.id]: 10 });
    assert.equal(await stockOf(s, p.id), 11);
    const m = (await movements(s, p.id))[0];
    assert.deepEqual([m.reason, m.delta, m.refId, m.warehouseId], ['order', -3, small.id, main.id]);
  });

  test('applyMany reports the orders that lack stock; status deletes and kind changes move stock too', async () => {
    const s = await ownerWithStore(api);
    const p = await product(s, { stock: 3 });
    const [a, b, c] = [await order(s, [{ productId: p.id, quantity: 2 }]), await order(s, [{ productId: p.id, quantity: 2 }]), await order(s, [{ productId: p.id, quantity: 1 }])];
    const statuses = (await api('GET', `/v1/stores/${s.storeId}/statuses`, { token: s.token })).body.data as Array<{ id: string; slug: string; kind: string }>;
    const id = (slug: string) => statuses.find((x) => x.slug === slug)!.id;
    const many = await api('POST', `/v1/stores/${s.storeId}/orders/applyMany`, { token: s.token, body: { orderIds: [a.id, b.id, c.id], statusId: id('processing') } });
    assert.equal(many.status, 200, many.text);
    assert.deepEqual(many.body.data.map((d: any) => d.id), [a.id, c.id]);
    assert.deepEqual(many.body.failed, [{ id: b.id, code: 'CONFLICT' }]);
    assert.equal(await stockOf(s, p.id), 0);
    assert.equal((await getOrder(s, b.id)).status, 'pending');

    // The status's kind becomes cancelled: its orders hold nothing any more.
    const kind = await api('PUT', `/v1/stores/${s.storeId}/statuses/${id('processing')}`, { token: s.token, body: { kind: 'cancelled' } });
    assert.equal(kind.status, 200, kind.text);
    assert.equal(await stockOf(s, p.id), 3);
    // Deleting it and moving its orders to a holding status takes the stock again.
    const del = await api('DELETE', `/v1/stores/${s.storeId}/statuses/${id('processing')}?moveTo=${id('shipped')}`, { token: s.token });
    assert.equal(del.status, 204, del.text);
    assert.equal(await stockOf(s, p.id), 0);
    assert.equal((await getOrder(s, a.id)).status, 'shipped');
  });

  test('20 concurrent confirmations never take stock below zero', async () => {
    const s = await ownerWithStore(api);
    const p = await product(s, { stock: 5 });
    await warehouse(s);
    const orders = await Promise.all(Array.from({ length: 20 }, () => order(s, [{ productId: p.id, quantity: 1 }])));
    const results = await Promise.all(orders.map((o) => move(s, o.id, 'confirm')));
    for (const r of results) assert.ok(r.status === 200 || (r.status === 409 && r.body.code === 'CONFLICT'), `unexpected ${r.status} ${r.text}`);
    assert.equal(results.filter((r) => r.status === 200).length, 5);
    assert.equal(await stockOf(s, p.id), 0);
    assert.equal((await levels(s, `&productId=${p.id}`))[0].onHand, 0);
    assert.equal((await movements(s, p.id)).filter((m) => m.reason === 'order').length, 5);
  });
});
