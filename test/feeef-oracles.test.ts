import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from './helpers.js';
import { feeefClient, feeefStore, type FeeefResponse } from './feeef-helpers.js';

// Another store's resource and no resource at all answer alike on /feeef/v1, as on /v1: the caller
// (401) and its membership (404) are decided before a body is validated or an id looked up.

let svc: TestService;
let owner: Awaited<ReturnType<typeof feeefStore>>;
let stranger: Awaited<ReturnType<typeof feeefStore>>;
/** A real resource of the owner's store per kind, with a body the route refuses. */
const kinds: Array<{ path: string; id: string; unknown: string; bad: Record<string, unknown> }> = [];

before(async () => {
  svc = await startTestService();
  owner = await feeefStore(svc.url);
  stranger = await feeefStore(svc.url);
  const sid = owner.storeId;
  const product = await owner.ff.post('/products', { storeId: sid, name: 'Mug', price: 500, stock: 3 });
  assert.equal(product.status, 201, product.text);
  const order = await owner.ff.post('/orders', { storeId: sid, customerPhone: '0555123456', shippingType: 'home', items: [{ productId: product.data.id, quantity: 1 }] });
  assert.equal(order.status, 201, order.text);
  const method = await owner.ff.post('/shipping_methods', { storeId: sid, name: 'Flat', price: 300 });
  assert.equal(method.status, 201, method.text);
  const warehouse = await owner.ff.post('/inventory/warehouses', { projectId: sid, name: 'Depot' });
  assert.equal(warehouse.status, 201, warehouse.text);
  kinds.push(
    { path: '/orders', id: order.data.id, unknown: 'ord_000000000000000000000000', bad: { shippingState: '31' } },
    { path: '/products', id: product.data.id, unknown: 'prod_000000000000000000000000', bad: { giftWrap: true } },
    { path: '/shipping_methods', id: method.data.id, unknown: 'shm_000000000000000000000000', bad: { giftWrap: true } },
    { path: '/inventory/warehouses', id: warehouse.data.id, unknown: 'whs_000000000000000000000000', bad: { giftWrap: true } },
  );
});
after(() => svc.close());

const view = (r: FeeefResponse) => ({ status: r.status, code: r.data?.code, detail: r.data?.detail });

test("a member of another store: PUT with a bad body on a foreign id answers as on an unknown id (404), as do GET and DELETE", async () => {
  for (const k of kinds) {
    // The owner's own answer to the bad body shows it is refused (the test can tell).
    assert.equal((await owner.ff.put(`${k.path}/${k.id}`, k.bad)).status, 400, k.path);
    const foreign = await stranger.ff.put(`${k.path}/${k.id}`, k.bad);
    const unknown = await stranger.ff.put(`${k.path}/${k.unknown}`, k.bad);
    assert.deepEqual(view(foreign), view(unknown), k.path);
    assert.equal(foreign.status, 404, `${k.path}: ${foreign.text}`);
    for (const method of ['get', 'delete'] as const) {
      assert.deepEqual(view(await stranger.ff[method](`${k.path}/${k.id}`)), view(await stranger.ff[method](`${k.path}/${k.unknown}`)), `${method} ${k.path}`);
    }
  }
  // A store itself: another's and none answer alike, bad bodies unread.
  for (const [path, bad] of [['', { currency: 7 }], ['/members', { email: 1 }]] as const) {
    const method = path ? 'post' : 'put';
    assert.equal((await owner.ff[method](`/stores/${owner.storeId}${path}`, bad)).status, 400, path);
    const foreign = await stranger.ff[method](`/stores/${owner.storeId}${path}`, bad);
    assert.equal(foreign.status, 404, foreign.text);
    assert.deepEqual(view(foreign), view(await stranger.ff[method](`/stores/st_000000000000000000000000${path}`, bad)), path);
  }
  // Categories are a Feeef feature Souk lacks: the same 501 whatever the id.
  assert.deepEqual(view(await stranger.ff.put('/categories/cat_1', { name: 1 })), view(await stranger.ff.put('/categories/cat_2', { name: 1 })));
});

test('anonymous: a real id and an unknown one both answer 401, bodies unread', async () => {
  const anon = feeefClient(svc.url);
  for (const k of kinds) {
    for (const id of [k.id, k.unknown]) {
      const got = await anon.get(`${k.path}/${id}`);
      assert.equal(got.status, 401, `GET ${k.path}/${id}: ${got.text}`);
      const put = await anon.put(`${k.path}/${id}`, k.bad);
      assert.equal(put.status, 401, `PUT ${k.path}/${id}: ${put.text}`);
    }
  }
});
