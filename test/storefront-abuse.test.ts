import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { client, signup, startTestService, type Api, type TestService } from './helpers.js';

let svc: TestService;
let api: Api;
before(async () => {
  // Behind one proxy: the shopper's address is the X-Forwarded-For the proxy adds.
  svc = await startTestService({ SOUK_TRUST_PROXY: '1' });
  api = client(svc.url);
});
after(() => svc.close());

const sql = (text: string, params: unknown[] = []) => svc.service.deps.orm.em.fork().getConnection().execute(text, params);

test('1,000 anonymous checkouts from one address: ten pass, the rest 429 with Retry-After, other shoppers are served, nothing is half-written', { timeout: 300_000 }, async () => {
  const owner = await signup(api, 'Owner');
  const store = await api('POST', '/v1/stores', { token: owner.token, body: { name: 'Busy Shop' } });
  assert.equal(store.status, 201, store.text);
  const storeId = store.body.id;
  const product = await api('POST', `/v1/stores/${storeId}/products`, { token: owner.token, body: { name: 'Couscous', price: 300, stock: 5000 } });
  assert.equal(product.status, 201, product.text);
  const method = await api('POST', `/v1/shipping_methods?storeId=${storeId}`, { token: owner.token, body: { name: 'Flat', status: 'published', price: 400 } });
  assert.equal(method.status, 201, method.text);
  const limits = (await api('GET', `/v1/stores/${storeId}`, { token: owner.token })).body.storefront.limits;
  assert.equal(limits.checkoutsPerAddress, 10, 'the defaults apply');

  const order = (phone: string) => ({
    customerName: 'Client',
    customerPhone: phone,
    shipping: { state: '16', city: 'Alger Centre', type: 'home' },
    items: [{ productId: product.body.id, quantity: 1 }],
  });
  // Each with its own phone and key: only the address ties them together.
  const attempt = (n: number) =>
    api('POST', `/v1/storefront/${storeId}/orders`, {
      body: order(`+2135500${String(n).padStart(5, '0')}`),
      headers: { 'x-forwarded-for': '203.0.113.66', 'idempotency-key': `burst-${n}` },
    });
  const shopper = (n: number) =>
    api('POST', `/v1/storefront/${storeId}/orders`, {
      body: order(`+2136610${String(n).padStart(5, '0')}`),
      headers: { 'x-forwarded-for': `198.51.100.${n + 1}`, 'idempotency-key': `shopper-${n}` },
    });

  const burst: Array<{ status: number; retryAfter?: string }> = [];
  const shoppers: number[] = [];
  let next = 0;
  let served = 0;
  // 25 connections of the burst at once; the other shoppers arrive while it runs.
  const attackers = Array.from({ length: 25 }, async () => {
    while (next < 1000) {
      const res = await attempt(next++);
      burst.push({ status: res.status, retryAfter: res.headers.get('retry-after') ?? undefined });
      if (next % 50 === 0 && served < 20) shoppers.push((await shopper(served++)).status);
    }
  });
  await Promise.all(attackers);
  while (served < 20) shoppers.push((await shopper(served++)).status);

  const created = burst.filter((r) => r.status === 201).length;
  const refused = burst.filter((r) => r.status === 429);
  assert.equal(burst.length, 1000);
  assert.equal(created, 10, `${created} of the burst were created`);
  assert.equal(refused.length, 990, JSON.stringify([...new Set(burst.map((r) => r.status))]));
  for (const r of refused) assert.ok(Number(r.retryAfter) >= 1, `Retry-After ${r.retryAfter}`);
  assert.deepEqual(shoppers, Array(20).fill(201), 'every other shopper was served');
  // The catalog still answers the burst's neighbours.
  assert.equal((await api('GET', `/v1/storefront/${storeId}/products`, { headers: { 'x-forwarded-for': '198.51.100.200' } })).status, 200);

  // Exactly the 30 orders, each whole with its first status; no key left reserved. Stock follows
  // the status kinds: new orders have not taken any yet, so none was taken by a refusal either.
  const [{ orders }] = await sql('select count(*)::int as orders from orders where store_id = ?', [storeId]);
  assert.equal(orders, 30);
  const [{ stock }] = await sql('select stock from products where id = ?', [product.body.id]);
  assert.equal(Number(stock), 5000);
  const [{ history }] = await sql('select count(*)::int as history from order_status_history h join orders o on o.id = h.order_id where o.store_id = ?', [storeId]);
  assert.equal(history, 30);
  const [{ pending }] = await sql(`select count(*)::int as pending from idempotency_keys where caller like ? and answer is null`, [`storefront/${storeId}/%`]);
  assert.equal(pending, 0);
  const [{ kept }] = await sql(`select count(*)::int as kept from idempotency_keys where caller like ?`, [`storefront/${storeId}/%`]);
  assert.equal(kept, 30);
});
