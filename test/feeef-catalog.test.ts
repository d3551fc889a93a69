import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { client, startTestService, type Api, type TestService } from './helpers.js';
import { assertFeeefProblem, feeefSignup, feeefStore, type FeeefClient } from './feeef-helpers.js';

// Feeef's SDK against /feeef/v1: stores, members, analytics, products and product landing pages.

let svc: TestService;
let api: Api;
let owner: Awaited<ReturnType<typeof feeefStore>>;
before(async () => {
  svc = await startTestService();
  api = client(svc.url);
  owner = await feeefStore(svc.url);
});
after(() => svc.close());

test('stores: list with user=/user_id=, find ?by=id, PUT partial, delete; storefront fields accepted', async () => {
  const { ff, user, storeId } = owner;
  const list = await ff.get('/stores', { user: user.id, user_id: user.id });
  assert.equal(list.status, 200, list.text);
  assert.deepEqual(list.data.data.map((s: any) => s.id), [storeId]);
  assert.equal(list.data.meta.total, 1);
  assert.equal(list.data.data[0].userId, user.id);
  assertFeeefProblem(await ff.get('/stores', { user: 'usr_someone_else' }), 400, 'VALIDATION_FAILED');

  const found = await ff.get(`/stores/${storeId}`, { by: 'id' });
  assert.equal(found.data.name, 'Feeef Store');
  assert.equal(found.data.projectId, storeId);
  const put = await ff.put(`/stores/${storeId}`, { name: 'Renamed', title: 'Shop', metadata: { a: 1 } });
  assert.equal(put.status, 200, put.text);
  assert.equal(put.data.name, 'Renamed');
  assert.equal(put.data.currency, 'DZD');
  assertFeeefProblem(await ff.put(`/stores/${storeId}`, { nickname: 'x' }), 400, 'VALIDATION_FAILED');

  const spare = await ff.post('/stores', { name: 'Spare', slug: 'spare', description: 'd' });
  assert.equal(spare.status, 201, spare.text);
  assert.equal((await ff.delete(`/stores/${spare.data.id}`, { by: 'id' })).status, 204);
  assertFeeefProblem(await ff.get(`/stores/${spare.data.id}`, { by: 'id' }), 404, 'NOT_FOUND');
  assertFeeefProblem(await ff.post(`/stores/${storeId}/subscription/upgrade`, { plan: 'pro', months: 1 }), 501, 'NOT_IMPLEMENTED');
});

test('members: add by email with a Feeef role (confermer is an editor), edit by PUT, remove', async () => {
  const { ff, storeId } = owner;
  const m = await feeefSignup(svc.url, 'Member');
  const added = await ff.post(`/stores/${storeId}/members`, { email: m.email, role: 'confermer', name: 'Conf' });
  assert.equal(added.status, 201, added.text);
  assert.equal(added.data.role, 'editor');
  assert.equal(added.data.userId, m.user.id);
  assert.equal(added.data.active, true);
  assertFeeefProblem(await ff.post(`/stores/${storeId}/members`, { email: m.email, role: 'boss' }), 400, 'VALIDATION_FAILED');
  const kept = await ff.put(`/stores/${storeId}/members/${m.user.id}`, { name: 'Only a name' });
  assert.equal(kept.status, 200, kept.text);
  assert.equal(kept.data.role, 'editor');
  const edited = await ff.put(`/stores/${storeId}/members/${m.user.id}`, { role: 'viewer' });
  assert.equal(edited.data.role, 'viewer');
  // A viewer reads the store but may not write products (same policies as /v1).
  assert.equal((await m.ff.get(`/stores/${storeId}`)).status, 200);
  assertFeeefProblem(await m.ff.post('/products', { storeId, name: 'Nope', price: 1 }), 403, 'FORBIDDEN');
  assert.equal((await ff.delete(`/stores/${storeId}/members/${m.user.id}`)).status, 204);
  assertFeeefProblem(await m.ff.get(`/stores/${storeId}`), 404, 'NOT_FOUND');
});

async function product(ff: FeeefClient, storeId: string, body: Record<string, unknown>) {
  const res = await ff.post('/products', { storeId, ...body });
  assert.equal(res.status, 201, res.text);
  return res.data;
}

test('products: flat create with storeId in the body, Feeef fields read back, find by id and slug, PUT partial, delete', async () => {
  const { ff, storeId } = owner;
  const p = await product(ff, storeId, { name: 'Blue Mug', price: 1200, stock: 5, status: 'published', photoUrl: 'https://cdn.example/m.png', description: 'A mug', offers: [{ code: 'x2', title: 'Two', price: 2000 }] });
  assert.match(p.id, /^prod_/);
  assert.equal(p.status, 'published');
  assert.equal(p.photoUrl, 'https://cdn.example/m.png');
  assert.equal(p.description, 'A mug');
  assert.deepEqual(p.metadata, {});
  assert.equal(p.offers[0].code, 'x2');

  const found = await ff.get(`/products/${p.id}`, { by: 'id' });
  assert.equal(found.status, 200, found.text);
  assert.equal(found.data.name, 'Blue Mug');
  const bySlug = await ff.get(`/products/${p.slug}`, { by: 'slug', store_id: storeId });
  assert.equal(bySlug.data.id, p.id);
  assertFeeefProblem(await ff.get(`/products/${p.slug}`, { by: 'slug' }), 400, 'VALIDATION_FAILED');

  const put = await ff.put(`/products/${p.id}`, { price: 1500, description: 'A bigger mug', metadata: { color: 'blue' } });
  assert.equal(put.status, 200, put.text);
  assert.equal(put.data.price, 1500);
  assert.equal(put.data.description, 'A bigger mug');
  assert.equal(put.data.photoUrl, 'https://cdn.example/m.png');
  assert.deepEqual(put.data.metadata, { color: 'blue' });
  const again = await ff.put(`/products/${p.id}`, { status: 'archived' });
  assert.equal(again.data.status, 'archived');
  assert.deepEqual(again.data.metadata, { color: 'blue' });
  assertFeeefProblem(await ff.put(`/products/${p.id}`, { status: 'deleted' }), 400, 'VALIDATION_FAILED');

  // The /v1 view of the same product: Souk's status, the Feeef fields under metadata.feeef.
  const v1 = await api('GET', `/v1/stores/${storeId}/products/${p.id}`, { token: owner.token });
  assert.equal(v1.body.status, 'archived');
  assert.equal(v1.body.metadata.feeef.photoUrl, 'https://cdn.example/m.png');

  // Another user's token: the product is not revealed, whatever the store.
  const stranger = await feeefSignup(svc.url);
  assertFeeefProblem(await stranger.ff.get(`/products/${p.id}`, { by: 'id' }), 404, 'NOT_FOUND');
  assertFeeefProblem(await stranger.ff.delete(`/products/${p.id}`, { by: 'id' }), 404, 'NOT_FOUND');
  assertFeeefProblem(await ff.get('/products/prod_0000000000000000000000000000', { by: 'id' }), 404, 'NOT_FOUND');

  assert.equal((await ff.delete(`/products/${p.id}`, { by: 'id' })).status, 204);
  assertFeeefProblem(await ff.get(`/products/${p.id}`), 404, 'NOT_FOUND');
  assertFeeefProblem(await ff.get('/products/random', { limit: 12 }), 501, 'NOT_IMPLEMENTED');
});

test('concurrent PUTs of different Feeef-only fields lose none of them (merged under the row lock)', async () => {
  const { ff, storeId } = owner;
  const p = await product(ff, storeId, { name: 'Racer', price: 5, metadata: { own: 1 } });
  const fields: Record<string, unknown> = { photoUrl: 'u', title: 't', description: 'd', body: 'b', cost: 1, discount: 2, media: ['m'], type: 'digital', forceOffer: true, defaultOfferCode: 'c' };
  for (let round = 0; round < 3; round++) {
    const results = await Promise.all(Object.entries(fields).map(([k, v]) => ff.put(`/products/${p.id}`, { [k]: v, name: `Racer ${round}` })));
    for (const r of results) assert.equal(r.status, 200, r.text);
    const after = (await ff.get(`/products/${p.id}`)).data;
    for (const [k, v] of Object.entries(fields)) assert.deepEqual(after[k], v, `${k} lost in round ${round}`);
    assert.deepEqual(after.metadata, { own: 1 });
    // Clear them for the next round (null removes a kept field).
    const cleared = await ff.put(`/products/${p.id}`, Object.fromEntries(Object.keys(fields).map((k) => [k, null])));
    assert.equal(cleared.data.photoUrl, null);
  }
});

test('products list: store_id, status[], q, price and stock filters, sort by price, page meta', async () => {
  const { ff, storeId } = await feeefStore(svc.url);
  for (const [name, price, stock, status] of [
    ['Alpha', 100, 0, 'published'],
    ['Beta', 300, 2, 'published'],
    ['Gamma', 200, 5, 'draft'],
    ['Delta', 400, 1, 'archived'],
  ] as const) {
    await product(ff, storeId, { name, price, stock, status });
  }
  assertFeeefProblem(await ff.get('/products'), 400, 'VALIDATION_FAILED');
  const all = await ff.get('/products', { store_id: storeId, page: 1, limit: 3 });
  assert.equal(all.status, 200, all.text);
  assert.deepEqual(all.data.data.map((p: any) => p.name), ['Delta', 'Gamma', 'Beta']);
  assert.deepEqual(all.data.meta, { total: 4, perPage: 3, currentPage: 1, lastPage: 2, firstPage: 1 });
  const page2 = await ff.get('/products', { store_id: storeId, page: 2, limit: 3 });
  assert.deepEqual(page2.data.data.map((p: any) => p.name), ['Alpha']);
  const published = await ff.get('/products', { store_id: storeId, status: ['published'] });
  assert.deepEqual(published.data.data.map((p: any) => p.name), ['Beta', 'Alpha']);
  const two = await ff.get('/products', { store_id: storeId, status: ['published', 'draft'], sort_by: 'price', sort_order: 'asc' });
  assert.deepEqual(two.data.data.map((p: any) => p.name), ['Alpha', 'Gamma', 'Beta']);
  assert.equal(two.data.meta.total, 3);
  const filtered = await ff.get('/products', { store_id: storeId, q: 'ta', in_stock: true, min_price: 150 });
  assert.deepEqual(filtered.data.data.map((p: any) => p.name), ['Delta', 'Beta']);
  assertFeeefProblem(await ff.get('/products', { store_id: storeId, sort_by: 'views' }), 400, 'VALIDATION_FAILED');
  assertFeeefProblem(await ff.get('/products', { store_id: storeId, colour: 'red' }), 400, 'BAD_REQUEST');
});

test('analytics: summary, chart, lite orders reports, product sells and report', async () => {
  const { ff, storeId, token } = owner;
  const p = await product(ff, storeId, { name: 'Lamp', price: 50, stock: 10 });
  const order = await api('POST', `/v1/stores/${storeId}/orders`, { token, body: { customerName: 'Ali', items: [{ productId: p.id, quantity: 2 }] } });
  assert.equal(order.status, 201, order.text);
  const statuses = await api('GET', `/v1/stores/${storeId}/statuses`, { token });
  const delivered = statuses.body.data.find((s: any) => s.kind === 'fulfilled');
  assert.equal((await api('POST', `/v1/stores/${storeId}/orders/${order.body.id}/apply`, { token, body: { statusId: delivered.id } })).status, 200);

  const summary = await ff.get(`/stores/${storeId}/summary`);
  assert.equal(summary.status, 200, summary.text);
  assert.equal(summary.data.ordersCount, 1);
  assert.equal(summary.data.revenue, 100);
  assert.ok(summary.data.productsCount >= 1);
  assert.equal(summary.data.ordersByStatus[delivered.slug], 1);

  const chart = await ff.get(`/stores/${storeId}/chart`);
  const today = new Date().toISOString().slice(0, 10);
  assert.equal(chart.data.orders[today], 1);
  const lor = await ff.get(`/stores/${storeId}/analytics/lor`);
  assert.equal(lor.data.lor.totalOrders, 1);
  assert.equal(lor.data.lor.data.length, 8);

  const sells = await ff.get(`/stores/${storeId}/products/${p.id}/sells`);
  assert.equal(sells.status, 200, sells.text);
  assert.equal(sells.data[today], 2);
  const report = await ff.get(`/stores/${storeId}/products/${p.id}/report`);
  assert.equal(report.data.sold, 2);
  assert.equal(report.data.revenue, 100);
  assert.equal(report.data.views, null);
  const plor = await ff.get(`/stores/${storeId}/products/${p.id}/analytics/lor`);
  assert.equal(plor.data.lor.totalOrders, 1);
});

test('product landing pages: flat CRUD, content fields merge on PUT, list by params, report', async () => {
  const { ff, storeId } = owner;
  const p = await product(ff, storeId, { name: 'Shoe', price: 10 });
  const created = await ff.post('/product_landing_pages', { name: 'Shoe page', description: 'Sale', templateId: null, schema: { blocks: [] }, defaults: { title: 'Hi' }, productId: p.id, storeId });
  assert.equal(created.status, 201, created.text);
  assert.equal(created.data.description, 'Sale');
  assert.deepEqual(created.data.schema, { blocks: [] });
  const id = created.data.id;
  const put = await ff.put(`/product_landing_pages/${id}`, { defaults: { title: 'Bye' }, name: null, description: null, templateId: null, schema: { blocks: [1] }, productId: p.id });
  assert.equal(put.status, 200, put.text);
  assert.equal(put.data.name, 'Shoe page');
  assert.deepEqual(put.data.defaults, { title: 'Bye' });
  assert.deepEqual(put.data.schema, { blocks: [1] });
  const list = await ff.get('/product_landing_pages', { storeId });
  assert.equal(list.status, 200, list.text);
  assert.ok(list.data.data.some((l: any) => l.id === id));
  assert.equal((await ff.get(`/product_landing_pages/${id}`, { by: 'id' })).data.id, id);
  const report = await ff.get(`/stores/${storeId}/product_landing_pages/${id}/analytics/lor`);
  assert.equal(report.data.lor.totalOrders, 0);
  assert.equal((await ff.delete(`/product_landing_pages/${id}`, { by: 'id' })).status, 204);
  assertFeeefProblem(await ff.get(`/product_landing_pages/${id}`), 404, 'NOT_FOUND');
  assertFeeefProblem(await ff.get('/product_landing_page_templates'), 501, 'NOT_IMPLEMENTED');
});
