import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { client, startTestService, type Api, type TestService } from './helpers.js';
import { assertFeeefProblem, feeefClient, feeefStore } from './feeef-helpers.js';

// CONTRACT-3 §17.8: the Feeef SDK's anonymous calls on /feeef/v1 (orders.send, calculate, track,
// promos.validate, inventory.publicAvailability, states/cities, currencies).

let svc: TestService;
let api: Api;
before(async () => {
  svc = await startTestService();
  api = client(svc.url);
});
after(() => svc.close());

let phones = 0;
/** A fresh valid Algerian mobile per order: the duplicate and per-phone checks are not what is tested here. */
const phone = () => `0555${String(100000 + phones++).padStart(6, '0')}`;

/** A store with an active product (SKU MUG-1, 10 in stock) and a flat 500 DZD shipping method. */
async function shop() {
  const owner = await feeefStore(svc.url);
  const p = await owner.ff.post('/products', { storeId: owner.storeId, name: 'Mug', price: 500, stock: 10, sku: `MUG-${phones}`, status: 'published' });
  assert.equal(p.status, 201, p.text);
  const m = await api('POST', `/v1/shipping_methods?storeId=${owner.storeId}`, { token: owner.token, body: { name: 'Flat', status: 'published', price: 500 } });
  assert.equal(m.status, 201, JSON.stringify(m.body));
  return { ...owner, product: p.data };
}

const guest = () => feeefClient(svc.url);
const sendBody = (s: Awaited<ReturnType<typeof shop>>, extra: Record<string, unknown> = {}) => ({
  storeId: s.storeId,
  customerName: 'Amel',
  customerPhone: phone(),
  shippingAddress: '1 rue Didouche',
  shippingState: '16',
  shippingCity: 'Alger Centre',
  shippingType: 'home',
  status: 'pending',
  items: [{ productId: s.product.id, quantity: 2, variantPath: 'blue' }],
  ...extra,
});

test('orders.send without a token is a guest checkout: the Feeef order, priced by the store, with its orderToken', async (t) => {
  const s = await shop();
  const body = sendBody(s, { items: [{ productId: s.product.id, quantity: 2, price: 1, variantPath: 'blue' }], total: 1 });
  const res = await guest().post('/orders/send', body);
  assert.equal(res.status, 201, res.text);
  const o = res.data;
  assert.match(o.id, /^ord_/);
  assert.equal(o.storeId, s.storeId);
  assert.equal(o.status, 'pending');
  assert.equal(o.subtotal, 1000);
  assert.equal(o.shippingPrice, 500);
  assert.equal(o.total, 1500);
  assert.equal(o.customerPhone, body.customerPhone);
  assert.equal(o.items[0].productName, 'Mug');
  assert.match(o.orderToken, /^opt_/);
  assert.equal(res.headers.get('cache-control'), 'no-store');

  // The members' view: a storefront order with the Feeef-only fields kept.
  const v1 = await api('GET', `/v1/stores/${s.storeId}/orders/${o.id}`, { token: s.token });
  assert.equal(v1.status, 200);
  assert.equal(v1.body.source, 'storefront');
  assert.equal(v1.body.customerName, 'Amel');
  assert.deepEqual(v1.body.metadata.feeef.items, [{ variantPath: 'blue' }]);
  // The token opens the customer's order on /v1.
  const mine = await api('GET', '/v1/storefront/orders/current', { token: o.orderToken });
  assert.equal(mine.status, 200);
  assert.equal(mine.body.id, o.id);

  // The SDK's field names in refusals; a closed store's checkout is not revealed.
  const noState = await guest().post('/orders/send', sendBody(s, { shippingState: undefined }));
  assertFeeefProblem(noState, 400, 'VALIDATION_FAILED');
  assert.equal(noState.data.errors[0].path, 'shippingState');
  const badPhone = await guest().post('/orders/send', sendBody(s, { customerPhone: '12' }));
  assertFeeefProblem(badPhone, 400, 'VALIDATION_FAILED');
  assert.equal(badPhone.data.errors[0].path, 'customerPhone');
  assertFeeefProblem(await guest().post('/orders/send', sendBody(s, { storeId: 'st_nope' })), 404, 'NOT_FOUND');
  assertFeeefProblem(await guest().post('/orders/send', sendBody(s, { items: [{ productId: 'prod_nope', quantity: 1 }] })), 422, 'CART_INVALID');

  // With a member's token: the member route as before (no storefront, no token in the answer).
  const member = await s.ff.post('/orders/send', { storeId: s.storeId, customerPhone: '0666', shippingType: 'home', status: 'pending', items: [{ productId: s.product.id, quantity: 1 }] });
  assert.equal(member.status, 201, member.text);
  assert.equal(member.data.orderToken, undefined);
  assert.equal(member.data.customStatus, 'pending');
});

test('orders.send honours Idempotency-Key for guests: one order, the same answer replayed', async (t) => {
  const s = await shop();
  const body = sendBody(s);
  const headers = { 'Idempotency-Key': `k-${Date.now()}` };
  const first = await fetch(`${svc.url}/feeef/v1/orders/send`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const again = await fetch(`${svc.url}/feeef/v1/orders/send`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  assert.equal(first.status, 201);
  assert.equal(again.status, 201);
  assert.equal(again.headers.get('idempotent-replayed'), 'true');
  assert.equal(((await again.json()) as any).id, ((await first.json()) as any).id);
  const list = await s.ff.get('/orders', { store_id: s.storeId });
  assert.equal(list.data.meta.total, 1);
});

test('orders.calculate without a token prices the cart from the store (amounts sent are ignored)', async (t) => {
  const s = await shop();
  const priced = await guest().post('/orders/calculate', {
    storeId: s.storeId,
    items: [{ productId: s.product.id, quantity: 3, price: 1, discount: 400 }],
    shippingState: '16',
    shippingType: 'home',
  });
  assert.equal(priced.status, 200, priced.text);
  assert.deepEqual(priced.data.pricing, { subtotal: 1500, shippingPrice: 500, calculatedTotal: 2000 });
  assert.deepEqual(priced.data.problems, []);
  const noShipping = await guest().post('/orders/calculate', { storeId: s.storeId, items: [{ productId: s.product.id, quantity: 1 }] });
  assert.deepEqual(noShipping.data.pricing, { subtotal: 500, shippingPrice: null, calculatedTotal: 500 });
  const unknown = await guest().post('/orders/calculate', { storeId: s.storeId, items: [{ productId: 'prod_nope', quantity: 1 }] });
  assert.equal(unknown.data.problems[0].code, 'UNAVAILABLE');
  assertFeeefProblem(await guest().post('/orders/calculate', { storeId: 'st_nope', items: [{ productId: s.product.id, quantity: 1 }] }), 404, 'NOT_FOUND');
});

test('orders.track without a token: status and history by id, no personal data; unknown id → 404', async (t) => {
  const s = await shop();
  const o = (await guest().post('/orders/send', sendBody(s))).data;
  assert.equal((await s.ff.put(`/orders/${o.id}`, { status: 'accepted' })).status, 200);
  const track = await guest().get(`/orders/${o.id}/track`);
  assert.equal(track.status, 200, track.text);
  assert.equal(track.data.id, o.id);
  assert.equal(track.data.storeId, s.storeId);
  assert.equal(track.data.status, 'accepted');
  assert.equal(track.data.customerName, null);
  assert.deepEqual(track.data.history.map((h: any) => h.status), ['pending', 'accepted']);
  for (const secret of ['Amel', o.customerPhone, 'Didouche', 'Alger Centre']) assert.ok(!track.text.includes(secret), `track leaks ${secret}`);
  assertFeeefProblem(await guest().get('/orders/ord_doesnotexist0000000000/track'), 404, 'NOT_FOUND');
  assertFeeefProblem(await guest().get('/orders/prod_x/track'), 404, 'NOT_FOUND');
  // A member still gets the member's view.
  const asMember = await s.ff.get(`/orders/${o.id}/track`);
  assert.equal(asMember.data.customerName, 'Amel');
});

test('promos.validate and inventory.publicAvailability answer anonymously', async () => {
  const s = await shop();
  const promo = await s.ff.post('/promos', { storeId: s.storeId, code: 'TEN', type: 'percentage', value: 10 });
  assert.equal(promo.status, 201, promo.text);
  const ok = await guest().post('/promos/validate', { code: 'ten', storeId: s.storeId });
  assert.equal(ok.status, 200, ok.text);
  assert.equal(ok.data.valid, true);
  const bad = await guest().post('/promos/validate', { code: 'NOPE', storeId: s.storeId });
  assert.deepEqual([bad.status, bad.data.valid, bad.data.reason], [200, false, 'invalid']);

  const avail = await guest().post('/inventory/public/availability', { storeId: s.storeId, skus: [s.product.sku, 'NOPE'] });
  assert.equal(avail.status, 200, avail.text);
  assert.deepEqual(avail.data.data, { [s.product.sku]: 1, NOPE: 0 });
  assertFeeefProblem(await guest().post('/inventory/public/availability', { storeId: s.storeId, skus: [] }), 400, 'VALIDATION_FAILED');
});

test('states, cities and currencies answer anonymously', async () => {
  const states = await guest().get('/countries/DZ/states');
  if (states.status === 503) {
    // This server has no geo data installed: the routes are anonymous and say so.
    assertFeeefProblem(states, 503, 'NOT_CONFIGURED');
    assertFeeefProblem(await guest().get('/countries/DZ/states/16/cities'), 503, 'NOT_CONFIGURED');
    assertFeeefProblem(await guest().get('/states', { country_code: 'DZ' }), 503, 'NOT_CONFIGURED');
  } else {
    assert.equal(states.status, 200, states.text);
    assert.equal(states.data.meta.total, 69);
    const alger = states.data.data.find((x: any) => x.code === '16');
    assert.equal(alger.name, 'Alger');
    assert.equal(alger.countryCode, 'DZ');
    const cities = await guest().get('/countries/DZ/states/16/cities', { limit: 200 });
    assert.equal(cities.status, 200, cities.text);
    assert.ok(cities.data.data.some((c: any) => c.name === 'Alger Centre' && c.stateCode === '16'));
    assert.equal((await guest().get('/countries/DZ/states/16')).data.name, 'Alger');
    assertFeeefProblem(await guest().get('/countries/DZ/states/99'), 404, 'NOT_FOUND');
  }
  assertFeeefProblem(await guest().post('/countries/DZ/states', { code: '70', name: 'X' }), 501, 'NOT_IMPLEMENTED');
  const currencies = await guest().get('/currencies');
  assert.equal(currencies.status, 200, currencies.text);
  assert.equal(currencies.data.data[0].code, 'DZD');
  const dzd = await guest().get('/currencies/dzd');
  assert.equal(dzd.status, 200, dzd.text);
  assert.deepEqual([dzd.data.code, dzd.data.decimals, dzd.data.rate], ['DZD', 2, 1]);
  assertFeeefProblem(await guest().get('/currencies/XXQ'), 404, 'NOT_FOUND');
});
