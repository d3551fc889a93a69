// A product update that changes no slug and no stock is written with its productUpdated event in
// one statement, which reads the row before and builds the payload itself; these tests hold it to
// what the general path writes, to falling back where it does not apply, and to parallel writers.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { client, ownerWithStore, startTestService, statementsOf, type Api, type TestService } from './helpers.js';
import { startReceiver, type Receiver } from './receiver.js';

let svc: TestService;
let api: Api;
let rx: Receiver;

before(async () => {
  svc = await startTestService({ SOUK_WEBHOOK_ALLOW_LOOPBACK: '1' });
  api = client(svc.url);
  rx = await startReceiver();
});
after(async () => {
  await rx?.close();
  await svc?.close();
});

const sql = (query: string, params: unknown[] = []) => svc.service.deps.orm.em.fork().getConnection().execute(query, params);

async function productIn(s: { token: string; storeId: string }, extra: Record<string, unknown> = {}) {
  const res = await api('POST', `/v1/stores/${s.storeId}/products`, { token: s.token, body: { name: 'Mint Tea', price: 12.5, stock: 4, metadata: { origin: 'Blida' }, ...extra } });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

const events = async (storeId: string, productId: string) =>
  (await sql("select seq, data from store_events where store_id = ? and event = 'productUpdated' and data->'product'->>'id' = ? order by seq", [storeId, productId])).map(
    (e: any) => ({ seq: Number(e.seq), data: e.data }),
  );

describe('one-statement product update', () => {
  test('a price, name, SKU, status and metadata change is one statement that writes and records what the general path does', async () => {
    const s = await ownerWithStore(api);
    const general = await productIn(s);
    const fast = await productIn(s, { name: 'Green Tea' });
    const change = { price: 13.75, name: '  Mint Tea Large ', sku: 'MT-L', status: 'draft', metadata: { origin: 'Médéa', size: 'L' }, allowBackorder: true };
    // A slug change takes the general path (its uniqueness is checked first); its other changes are the same.
    const viaGeneral = await api('PATCH', `/v1/stores/${s.storeId}/products/${general.id}`, { token: s.token, body: { ...change, slug: 'general' } });
    assert.equal(viaGeneral.status, 200, viaGeneral.text);
    let viaOne: any;
    const seen = await statementsOf(svc, async () => {
      viaOne = await api('PATCH', `/v1/stores/${s.storeId}/products/${fast.id}`, { token: s.token, body: change });
    });
    assert.equal(viaOne.status, 200, viaOne.text);
    const touching = seen.filter((q) => /\bproducts\b/i.test(q));
    assert.equal(touching.length, 1, touching.join('\n---\n'));
    assert.match(touching[0], /insert into store_events/i);
    assert.ok(!seen.some((q) => /^\s*begin\b/i.test(q)), seen.join('\n---\n'));

    const { id: _a, slug: _sa, createdAt: _ca, updatedAt: ua, ...a } = viaGeneral.body;
    const { id, slug, createdAt, updatedAt, ...b } = viaOne.body;
    assert.deepEqual(b, a);
    assert.equal(b.name, 'Mint Tea Large');
    assert.equal(b.price, 13.75);
    assert.equal(slug, fast.slug);
    assert.equal(createdAt, fast.createdAt);
    assert.ok(updatedAt > fast.updatedAt && ua > general.updatedAt);
    assert.deepEqual((await api('GET', `/v1/stores/${s.storeId}/products/${fast.id}`, { token: s.token })).body, viaOne.body);

    const [g] = await events(s.storeId, general.id);
    const [f] = await events(s.storeId, fast.id);
    assert.deepEqual(Object.keys(f.data).sort(), Object.keys(g.data).sort());
    assert.deepEqual(f.data.product, viaOne.body);
    assert.deepEqual(f.data.previous_data, fast);
    assert.equal(f.data.store_id, s.storeId);
    assert.equal(f.seq, g.seq + 1);
  });

  test('prices keep their currency’s decimals in the payload (JPY none, KWD three)', async () => {
    const { token } = await ownerWithStore(api);
    for (const [currency, price, next] of [['JPY', 1200, 1350], ['KWD', 1.125, 2.5], ['DZD', 0.05, 100]] as const) {
      const store = await api('POST', '/v1/stores', { token, body: { name: `Store ${currency}`, currency } });
      assert.equal(store.status, 201, store.text);
      const s = { token, storeId: store.body.id };
      const p = await productIn(s, { price });
      const res = await api('PATCH', `/v1/stores/${s.storeId}/products/${p.id}`, { token, body: { price: next } });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.price, next);
      const [e] = await events(s.storeId, p.id);
      assert.equal(e.data.product.price, next);
      assert.equal(e.data.previous_data.price, price);
    }
  });

  test('what it does not take goes the general path: stock, an unchanged product, a missing product, a price the currency refuses', async () => {
    const s = await ownerWithStore(api);
    const p = await productIn(s);
    const stock = await api('PATCH', `/v1/stores/${s.storeId}/products/${p.id}`, { token: s.token, body: { stock: 9, price: 14 } });
    assert.equal(stock.status, 200, stock.text);
    assert.equal(stock.body.stock, 9);
    const same = await api('PATCH', `/v1/stores/${s.storeId}/products/${p.id}`, { token: s.token, body: { price: 14, name: 'Mint Tea' } });
    assert.equal(same.status, 200, same.text);
    assert.deepEqual(same.body, stock.body, 'an unchanged product is answered as it is');
    assert.equal((await events(s.storeId, p.id)).length, 1, 'and records no event');
    const missing = await api('PATCH', `/v1/stores/${s.storeId}/products/prod_missing`, { token: s.token, body: { price: 3 } });
    assert.equal(missing.status, 404, missing.text);
    const cents = await api('PATCH', `/v1/stores/${s.storeId}/products/${p.id}`, { token: s.token, body: { price: 1.005 } });
    assert.equal(cents.status, 400, cents.text);
    assert.equal(cents.body.code, 'VALIDATION_FAILED');
    const seqs = (await sql('select seq from store_events where store_id = ? order by seq', [s.storeId])).map((e: any) => Number(e.seq));
    assert.deepEqual(seqs, seqs.map((_: number, i: number) => seqs[0] + i), 'no sequence number taken by a write that did not happen');
  });

  test('60 parallel price updates of one product with a webhook: each event’s previous_data is the event before it, every delivery arrives once', async () => {
    const s = await ownerWithStore(api);
    const path = `/hook/${s.storeId}`;
    const hook = await api('POST', `/v1/stores/${s.storeId}/integrations/webhooks`, { token: s.token, body: { name: 'rx', url: rx.url.replace('/hook', path), events: ['productUpdated'] } });
    assert.equal(hook.status, 201, hook.text);
    const p = await productIn(s);
    const results = await Promise.all(
      Array.from({ length: 60 }, (_, i) => api('PATCH', `/v1/stores/${s.storeId}/products/${p.id}`, { token: s.token, body: { price: 20 + i, name: `Tea ${i}` } })),
    );
    for (const r of results) assert.equal(r.status, 200, r.text);
    const list = await events(s.storeId, p.id);
    assert.equal(list.length, 60);
    let previous = p;
    for (const e of list) {
      assert.deepEqual(e.data.previous_data, previous, `event ${e.seq} follows the one before it`);
      previous = e.data.product;
    }
    const final = (await api('GET', `/v1/stores/${s.storeId}/products/${p.id}`, { token: s.token })).body;
    assert.deepEqual(final, previous, 'the last event is the product as stored');
    const got = await rx.waitFor(60, 30_000, (r) => r.path === path);
    await new Promise((r) => setTimeout(r, 300));
    const mine = rx.received.filter((r) => r.path === path);
    assert.equal(mine.length, 60, 'each delivered once');
    assert.deepEqual(new Set(got.map((r) => r.json.data.product.name)), new Set(results.map((r) => r.body.name)));
  });
});
