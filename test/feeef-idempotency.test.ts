import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from './helpers.js';
import { feeefStore } from './feeef-helpers.js';

// Idempotency-Key on the face's creating routes, as /v1 honours it: one key, one write.

let svc: TestService;
let owner: Awaited<ReturnType<typeof feeefStore>>;
let productId: string;
before(async () => {
  svc = await startTestService();
  owner = await feeefStore(svc.url);
  const p = await owner.ff.post('/products', { storeId: owner.storeId, name: 'Mug', price: 500, stock: 10 });
  assert.equal(p.status, 201, p.text);
  productId = p.data.id;
});
after(() => svc.close());

let n = 0;
const key = () => `key-${Date.now()}-${n++}`;
const post = (path: string, body: unknown, idempotencyKey: string) =>
  fetch(`${svc.url}/feeef/v1${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
    body: JSON.stringify(body),
  });
const orderBody = (phone: string) => ({ storeId: owner.storeId, customerPhone: phone, shippingType: 'home', items: [{ productId, quantity: 1 }] });
const orderCount = async () => (await owner.ff.get('/orders', { store_id: owner.storeId })).data.meta.total as number;

test('the same key twice on POST /orders: one order, the replay gets the same body; another body → 409', async () => {
  const before = await orderCount();
  const k = key();
  const first = await post('/orders', orderBody('0555000001'), k);
  const again = await post('/orders', orderBody('0555000001'), k);
  assert.equal(first.status, 201);
  assert.equal(again.status, 201);
  assert.equal(again.headers.get('idempotent-replayed'), 'true');
  assert.equal(first.headers.get('idempotent-replayed'), null);
  assert.deepEqual(await again.json(), await first.json());
  assert.equal(await orderCount(), before + 1);
  assert.equal((await post('/orders', orderBody('0555000002'), k)).status, 409);
  assert.equal(await orderCount(), before + 1);
  // Without a key, or with another one, each request writes.
  assert.equal((await post('/orders', orderBody('0555000003'), key())).status, 201);
  assert.equal(await orderCount(), before + 2);
});

test('10 parallel requests with one key make one order', async () => {
  const before = await orderCount();
  const k = key();
  const answers = await Promise.all(Array.from({ length: 10 }, () => post('/orders', orderBody('0555000010'), k)));
  const statuses = answers.map((r) => r.status);
  assert.ok(statuses.every((s) => s === 201 || s === 409), statuses.join(','));
  const ids = new Set(await Promise.all(answers.filter((r) => r.status === 201).map(async (r) => ((await r.json()) as any).id)));
  assert.equal(ids.size, 1);
  assert.equal(await orderCount(), before + 1);
});

test('other creating routes honour it too: products, shipping methods, warehouses', async () => {
  for (const [path, body, list] of [
    ['/products', { storeId: owner.storeId, name: 'Cup', price: 10 }, '/products'],
    ['/shipping_methods', { storeId: owner.storeId, name: 'Flat', price: 300 }, '/shipping_methods'],
    ['/inventory/warehouses', { projectId: owner.storeId, name: 'Depot 2' }, '/inventory/warehouses'],
  ] as const) {
    const k = key();
    const first = await post(path, body, k);
    const again = await post(path, body, k);
    assert.equal(first.status, 201, path);
    assert.equal(again.headers.get('idempotent-replayed'), 'true', path);
    assert.equal(((await again.json()) as any).id, ((await first.json()) as any).id, path);
    const params = path === '/inventory/warehouses' ? { projectId: owner.storeId } : { store_id: owner.storeId };
    const rows = (await owner.ff.get(list, params)).data.data as any[];
    assert.equal(rows.filter((r) => r.name === body.name).length, 1, path);
  }
});
