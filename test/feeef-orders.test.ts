import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { client, startTestService, type Api, type TestService } from './helpers.js';
import { assertFeeefProblem, feeefSignup, feeefStore } from './feeef-helpers.js';

// Feeef's SDK against /feeef/v1: orders (flat paths, fixed status plus customStatus, lists, track, calculate, return).

let svc: TestService;
let api: Api;
let owner: Awaited<ReturnType<typeof feeefStore>>;
let productId: string;
before(async () => {
  svc = await startTestService();
  api = client(svc.url);
  owner = await feeefStore(svc.url);
  const p = await owner.ff.post('/products', { storeId: owner.storeId, name: 'Mug', price: 500, stock: 10 });
  assert.equal(p.status, 201, p.text);
  productId = p.data.id;
});
after(() => svc.close());

const newOrder = (extra: Record<string, unknown> = {}) =>
  owner.ff.post('/orders', {
    storeId: owner.storeId,
    customerName: 'Karim',
    customerPhone: '0555000000',
    customerEmail: 'k@example.com',
    shippingType: 'pickup',
    shippingState: '16',
    shippingCity: 'Alger Centre',
    items: [{ productId, quantity: 2, variantPath: 'red/L' }],
    ...extra,
  });

test('create: storeId in the body, Feeef fields in, Feeef shape out', async () => {
  const res = await newOrder();
  assert.equal(res.status, 201, res.text);
  const o = res.data;
  assert.match(o.id, /^ord_/);
  assert.equal(o.storeId, owner.storeId);
  assert.equal(o.status, 'pending');
  assert.equal(o.customStatus, 'pending');
  assert.equal(o.paymentStatus, 'unpaid');
  assert.equal(o.deliveryStatus, 'pending');
  assert.equal(o.shippingType, 'pickup');
  assert.equal(o.shippingState, '16');
  assert.equal(o.shippingCity, 'Alger Centre');
  assert.equal(o.customerEmail, 'k@example.com');
  assert.equal(o.items[0].productName, 'Mug');
  assert.equal(o.items[0].variantPath, 'red/L');
  assert.equal(o.subtotal, 1000);
  assert.equal(o.total, 1000);
  assert.deepEqual(o.metadata, {});

  // The /v1 view: Souk's desk shipping, the Feeef-only fields under metadata.feeef.
  const v1 = await api('GET', `/v1/stores/${owner.storeId}/orders/${o.id}`, { token: owner.token });
  assert.equal(v1.body.shippingType, 'desk');
  assert.equal(v1.body.metadata.feeef.customerEmail, 'k@example.com');

  const sent = await owner.ff.post('/orders/send', { storeId: owner.storeId, customerPhone: '0666', shippingType: 'home', status: 'pending', items: [{ productId, quantity: 1 }] });
  assert.equal(sent.status, 201, sent.text);
  assert.equal(sent.data.customerName, '0666');
  assertFeeefProblem(await newOrder({ status: 'accepted' }), 400, 'VALIDATION_FAILED');
  assertFeeefProblem(await newOrder({ shippingType: 'drone' }), 400, 'VALIDATION_FAILED');
  assertFeeefProblem(await newOrder({ storeId: undefined }), 400, 'VALIDATION_FAILED');
  assertFeeefProblem(await newOrder({ giftWrap: true }), 400, 'VALIDATION_FAILED');
});

test('find, PUT (Feeef status, customStatus, kept fields, metadata), delete; other users get 404', async () => {
  const o = (await newOrder()).data;
  const found = await owner.ff.get(`/orders/${o.id}`, { by: 'id' });
  assert.equal(found.status, 200, found.text);
  assert.equal(found.data.id, o.id);
  const stranger = await feeefSignup(svc.url);
  assertFeeefProblem(await stranger.ff.get(`/orders/${o.id}`, { by: 'id' }), 404, 'NOT_FOUND');
  assertFeeefProblem(await stranger.ff.put(`/orders/${o.id}`, { customerNote: 'x' }), 404, 'NOT_FOUND');

  const accepted = await owner.ff.put(`/orders/${o.id}`, { status: 'accepted', customerNote: 'call first', metadata: { crm: 7 } });
  assert.equal(accepted.status, 200, accepted.text);
  assert.equal(accepted.data.status, 'accepted');
  assert.equal(accepted.data.customStatus, 'confirmed');
  assert.equal(accepted.data.customerNote, 'call first');
  assert.equal(accepted.data.customerEmail, 'k@example.com');
  assert.deepEqual(accepted.data.metadata, { crm: 7 });
  const shipped = await owner.ff.put(`/orders/${o.id}`, { customStatus: 'shipped' });
  assert.equal(shipped.data.status, 'processing');
  assert.equal(shipped.data.customStatus, 'shipped');
  assert.deepEqual(shipped.data.metadata, { crm: 7 });
  // New items replace the variants kept with the old ones.
  const items = await owner.ff.put(`/orders/${o.id}`, { items: [{ productId, quantity: 1 }] });
  assert.equal(items.status, 200, items.text);
  assert.equal(items.data.items.length, 1);
  assert.equal(items.data.items[0].variantPath, undefined);
  assert.equal(items.data.customerNote, 'call first');
  assertFeeefProblem(await owner.ff.put(`/orders/${o.id}`, { shippingState: '31' }), 400, 'VALIDATION_FAILED');
  assertFeeefProblem(await owner.ff.put(`/orders/${o.id}`, { customStatus: 'teleported' }), 400, 'VALIDATION_FAILED');
  assertFeeefProblem(await owner.ff.put(`/orders/${o.id}`, { status: 'lost' }), 400, 'VALIDATION_FAILED');

  assert.equal((await owner.ff.delete(`/orders/${o.id}`, { by: 'id' })).status, 204);
  assertFeeefProblem(await owner.ff.get(`/orders/${o.id}`), 404, 'NOT_FOUND');
  assertFeeefProblem(await owner.ff.post('/orders/assign', { orderId: o.id, memberId: 'x', storeId: owner.storeId }), 501, 'NOT_IMPLEMENTED');
});

test('list: store_id with an exact total, Feeef status[] and paymentStatus filters, customStatus, several store_ids', async () => {
  const shop = await feeefStore(svc.url);
  const p = (await shop.ff.post('/products', { storeId: shop.storeId, name: 'Cup', price: 10, stock: 100 })).data;
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    const r = await shop.ff.post('/orders', { storeId: shop.storeId, customerName: `C${i}`, customerPhone: `05${i}`, shippingType: 'home', items: [{ productId: p.id, quantity: 1 }], source: i === 0 ? 'facebook' : 'web' });
    assert.equal(r.status, 201, r.text);
    ids.push(r.data.id);
  }
  await shop.ff.put(`/orders/${ids[0]}`, { status: 'accepted' });
  const page = await shop.ff.get('/orders', { store_id: shop.storeId, page: 1, limit: 2 });
  assert.equal(page.status, 200, page.text);
  assert.deepEqual(page.data.data.map((o: any) => o.id), [ids[2], ids[1]]);
  assert.deepEqual(page.data.meta, { total: 3, perPage: 2, currentPage: 1, lastPage: 2, firstPage: 1 });
  const accepted = await shop.ff.get('/orders', { store_id: shop.storeId, status: ['accepted'] });
  assert.deepEqual(accepted.data.data.map((o: any) => o.id), [ids[0]]);
  const pending = await shop.ff.get('/orders', { store_id: shop.storeId, customStatus: 'pending' });
  assert.deepEqual(pending.data.data.map((o: any) => o.id), [ids[2], ids[1]]);
  assert.equal(pending.data.meta.total, 2);
  const fb = await shop.ff.get('/orders', { store_id: shop.storeId, source: 'facebook', paymentStatus: 'unpaid', products: [p.id] });
  assert.deepEqual(fb.data.data.map((o: any) => o.id), [ids[0]]);
  const q = await shop.ff.get('/orders', { store_id: shop.storeId, q: 'C1' });
  assert.deepEqual(q.data.data.map((o: any) => o.id), [ids[1]]);
  // A store the caller is not a member of is not revealed; once a member, its orders merge in, newest first.
  assertFeeefProblem(await owner.ff.get('/orders', { store_ids: [owner.storeId, shop.storeId] }), 404, 'NOT_FOUND');
  assert.equal((await shop.ff.post(`/stores/${shop.storeId}/members`, { email: owner.email, role: 'viewer' })).status, 201);
  const mine = await owner.ff.post('/orders', { storeId: owner.storeId, customerPhone: '0777', shippingType: 'home', items: [{ productId, quantity: 1 }] });
  const both = await owner.ff.get('/orders', { store_ids: [owner.storeId, shop.storeId], limit: 2 });
  assert.equal(both.status, 200, both.text);
  assert.deepEqual(both.data.data.map((o: any) => o.id), [mine.data.id, ids[2]]);
  assert.ok(both.data.meta.total >= 4);
  assertFeeefProblem(await shop.ff.get('/orders', { store_id: shop.storeId, confirmer: 'usr_x' }), 400, 'VALIDATION_FAILED');
});

test('track, calculate, and return (the stock comes back)', async () => {
  const o = (await newOrder()).data;
  const track = await owner.ff.get(`/orders/${o.id}/track`);
  assert.equal(track.status, 200, track.text);
  assert.equal(track.data.status, 'pending');
  assert.deepEqual(track.data.history, []);

  const priced = await owner.ff.post('/orders/calculate', { storeId: owner.storeId, items: [{ productId, quantity: 3 }, { productId, quantity: 1, price: 100 }], shippingState: '16', shippingType: 'home' });
  assert.equal(priced.status, 200, priced.text);
  assert.deepEqual(priced.data.pricing, { subtotal: 1600, shippingPrice: null, calculatedTotal: 1600 });

  const stock = async () => (await owner.ff.get(`/products/${productId}`)).data.stock;
  const before = await stock();
  await owner.ff.put(`/orders/${o.id}`, { status: 'accepted' });
  assert.equal(await stock(), before - 2);
  const ret = await owner.ff.post('/orders/return', { orderId: o.id, reason: 'damaged', deltas: [{ objectId: 'x', quantityDelta: 2 }] });
  assert.equal(ret.status, 200, ret.text);
  assert.equal(await stock(), before);
  const after = (await owner.ff.get(`/orders/${o.id}`)).data;
  assert.equal(after.customStatus, 'returned');
  assert.equal(after.deliveryStatus, 'returned');
});
