import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertProblem, client, memberWithRole, ownerWithStore, signup, startTestService, statementsOf, until, type Api, type TestService } from './helpers.js';
import { gqlSubscribe } from './sse-client.js';
import pg from 'pg';

let svc: TestService;
let api: Api;

before(async () => {
  svc = await startTestService({ SOUK_STOREFRONT_MAX_READS_PER_ADDRESS: '100000', SOUK_STOREFRONT_MAX_CHECKOUTS_PER_ADDRESS: '100000', SOUK_STOREFRONT_MAX_CHECKOUTS_PER_PHONE: '1000' });
  api = client(svc.url);
});
after(() => svc.close());

/** What a guest checkout may cost (docs/performance.md, the storefront): statements, each a round trip. */
const CHECKOUT_STATEMENTS = 8;
/** A statement that reads the blocklist itself (the store's read only asks whether it lists anyone). */
const blocklistRead = (q: string) => /^\s*select[^(]*\bfrom storefront_blocklist\b/i.test(q);

type Owner = Awaited<ReturnType<typeof ownerWithStore>>;

const sql = (text: string, params: unknown[] = []): Promise<any[]> => svc.service.deps.orm.em.fork().getConnection().execute(text, params);

/** A store whose storefront lets a test run many checkouts from 127.0.0.1. */
async function shop(name = 'Test Store'): Promise<Owner & { slug: string }> {
  const owner = await signup(api, 'Owner');
  const created = await api('POST', '/v1/stores', { token: owner.token, body: { name } });
  assert.equal(created.status, 201, created.text);
  const res = await api('PATCH', `/v1/stores/${created.body.id}`, {
    token: owner.token,
    body: { storefront: { limits: { checkoutsPerAddress: 100000, checkoutsPerPhone: 1000, readsPerAddress: 100000 } } },
  });
  assert.equal(res.status, 200, res.text);
  return { ...owner, storeId: created.body.id, slug: res.body.slug };
}

async function product(s: Owner, body: Record<string, unknown>) {
  const res = await api('POST', `/v1/stores/${s.storeId}/products`, { token: s.token, body: { name: `P ${Math.random()}`, price: 100, stock: 10, ...body } });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

/** A published flat-rate method (500 for any state) and a table method for state 16 only. */
async function shipping(s: Owner) {
  const table = await api('POST', `/v1/shipping_prices?storeId=${s.storeId}`, {
    token: s.token,
    body: { name: 'Yalidine rates', currency: 'DZD', status: 'published', prices: { DZ: { '16': { home: 400, desk: 250 } } } },
  });
  assert.equal(table.status, 201, table.text);
  const viaTable = await api('POST', `/v1/shipping_methods?storeId=${s.storeId}`, { token: s.token, body: { name: 'Yalidine', status: 'published', shippingPriceId: table.body.id } });
  assert.equal(viaTable.status, 201, viaTable.text);
  const flat = await api('POST', `/v1/shipping_methods?storeId=${s.storeId}`, { token: s.token, body: { name: 'Flat', status: 'published', price: 500 } });
  assert.equal(flat.status, 201, flat.text);
  return { table: viaTable.body, flat: flat.body };
}

const order = (items: Array<{ productId: string; quantity: number }>, extra: Record<string, unknown> = {}) => ({
  customerName: 'Amina',
  customerPhone: '0555123456',
  shipping: { state: '16', city: 'Alger Centre', address: '1 rue Didouche', type: 'home' },
  items,
  ...extra,
});

/**
 * A store with product A (1000, `stock` of it), the shipping methods and, when named, a 10 % code,
 * whose first checkout (from `warmPhone`) has warmed what a process keeps (its defaults, the
 * prepared texts): the store's next common checkout is written in one statement.
 */
async function warmShop(warmPhone: string, opts: { stock?: number; code?: string } = {}) {
  const s = await shop();
  const a = await product(s, { name: 'A', price: 1000, stock: opts.stock ?? 100 });
  await shipping(s);
  if (opts.code) {
    const promo = await api('POST', `/v1/promos?storeId=${s.storeId}`, { token: s.token, body: { code: opts.code, type: 'percentage', value: 10 } });
    assert.equal(promo.status, 201, promo.text);
  }
  assert.equal((await api('POST', `/v1/storefront/${s.slug}/orders`, { body: order([{ productId: a.id, quantity: 1 }], { customerPhone: warmPhone }) })).status, 201);
  return { s, a };
}

describe('storefront: store handle and settings', () => {
  test('a slug is derived from the name (transliterated, -2 while taken), changed by PATCH, taken → 409, malformed → 400', async () => {
    const a = await shop('Épicerie Fine');
    assert.equal(a.slug, 'epicerie-fine');
    const b = await shop('Épicerie Fine');
    assert.equal(b.slug, 'epicerie-fine-2');
    const arabic = await shop('متجر');
    assert.match(arabic.slug, /^[a-z0-9][a-z0-9-]*[a-z0-9]$/);
    assertProblem(await api('PATCH', `/v1/stores/${b.storeId}`, { token: b.token, body: { slug: 'epicerie-fine' } }), 409, 'CONFLICT');
    for (const bad of ['ab', '-abc', 'abc-', 'ABC', 'a'.repeat(49), 'a_b']) {
      const res = await api('PATCH', `/v1/stores/${b.storeId}`, { token: b.token, body: { slug: bad } });
      assertProblem(res, 400, 'VALIDATION_FAILED');
      assert.equal(res.body.errors[0].path, 'slug');
    }
    const ok = await api('PATCH', `/v1/stores/${b.storeId}`, { token: b.token, body: { slug: 'my-shop-123' } });
    assert.equal(ok.body.slug, 'my-shop-123');
    const given = await api('POST', '/v1/stores', { token: a.token, body: { name: 'X', slug: 'given-handle' } });
    assert.equal(given.status, 201, given.text);
    assert.equal(given.body.slug, 'given-handle');
  });

  test('30 stores created at once under one name: all created, each with its own derived slug (5 runs)', async () => {
    const owner = await signup(api, 'Owner');
    for (let run = 0; run < 5; run++) {
      const made = await Promise.all(Array.from({ length: 30 }, () => api('POST', '/v1/stores', { token: owner.token, body: { name: `Same Name ${run}` } })));
      assert.deepEqual([...new Set(made.map((r) => r.status))], [201], made.find((r) => r.status !== 201)?.text);
      assert.equal(new Set(made.map((r) => r.body.slug)).size, 30);
    }
  });

  test('storefront settings: defaults, partial changes by owners and admins, bounds → 400 at the field', async () => {
    const s = await ownerWithStore(api);
    const got = await api('GET', `/v1/stores/${s.storeId}`, { token: s.token });
    assert.deepEqual(got.body.storefront, {
      enabled: true,
      checkoutEnabled: true,
      showStockLevels: false,
      allowedOrigins: [],
      phoneRegion: 'DZ',
      maxItems: 50,
      maxQuantity: 100,
      limits: { checkoutsPerAddress: 10, checkoutsPerPhone: 5, readsPerAddress: 600 },
    });
    const patched = await api('PATCH', `/v1/stores/${s.storeId}`, { token: s.token, body: { storefront: { checkoutEnabled: false, allowedOrigins: ['https://Shop.Example'], limits: { checkoutsPerPhone: 2 } } } });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.body.storefront.checkoutEnabled, false);
    assert.deepEqual(patched.body.storefront.allowedOrigins, ['https://shop.example']);
    assert.deepEqual(patched.body.storefront.limits, { checkoutsPerAddress: 10, checkoutsPerPhone: 2, readsPerAddress: 600 });
    const unset = await api('PATCH', `/v1/stores/${s.storeId}`, { token: s.token, body: { storefront: { limits: { checkoutsPerPhone: null } } } });
    assert.equal(unset.body.storefront.limits.checkoutsPerPhone, 5);
    assert.equal(patched.body.storefront.enabled, true);
    for (const [body, path] of [
      [{ limits: { checkoutsPerAddress: 100001 } }, 'storefront.limits.checkoutsPerAddress'],
      [{ limits: { readsPerAddress: 0 } }, 'storefront.limits.readsPerAddress'],
      [{ allowedOrigins: ['https://shop.example/path'] }, 'storefront.allowedOrigins.0'],
      [{ phoneRegion: 'XX' }, 'storefront.phoneRegion'],
      [{ maxItems: 0 }, 'storefront.maxItems'],
    ] as const) {
      const res = await api('PATCH', `/v1/stores/${s.storeId}`, { token: s.token, body: { storefront: body } });
      assertProblem(res, 400, 'VALIDATION_FAILED');
      assert.equal(res.body.errors[0].path, path, res.text);
    }
    const editor = await memberWithRole(api, s.token, s.storeId, 'editor');
    assertProblem(await api('PATCH', `/v1/stores/${s.storeId}`, { token: editor.token, body: { storefront: { enabled: false } } }), 403, 'FORBIDDEN');
  });
});

describe('storefront: public reads', () => {
  test('the public store by id or slug; unknown, deleted and closed stores are the same 404', async () => {
    const s = await shop('Dar Souk');
    const byId = await api('GET', `/v1/storefront/${s.storeId}`);
    assert.equal(byId.status, 200, byId.text);
    assert.deepEqual(Object.keys(byId.body).sort(), ['checkoutEnabled', 'currency', 'defaultLocale', 'id', 'locales', 'logoUrl', 'name', 'phoneRegion', 'slug']);
    assert.equal(byId.body.slug, s.slug);
    const bySlug = await api('GET', `/v1/storefront/${s.slug}`);
    assert.deepEqual(bySlug.body, byId.body);
    const unknown = await api('GET', '/v1/storefront/no-such-store');
    assertProblem(unknown, 404, 'NOT_FOUND');
    await api('PATCH', `/v1/stores/${s.storeId}`, { token: s.token, body: { storefront: { enabled: false } } });
    const closed = await api('GET', `/v1/storefront/${s.slug}`);
    assertProblem(closed, 404, 'NOT_FOUND');
    assert.deepEqual(closed.body, { ...unknown.body, detail: closed.body.detail });
    assert.equal(closed.body.detail, unknown.body.detail);
  });

  test('products: only active ones, no cost or metadata; list with search, sorts and cursors bound to their list', async () => {
    const s = await shop();
    const names = ['Banana', 'apple', 'Cherry', 'date', 'Elderberry'];
    const made = [];
    for (const [i, name] of names.entries()) made.push(await product(s, { name, price: (i + 1) * 10, metadata: { cost: 3 } }));
    await product(s, { name: 'Draft thing', status: 'draft' });
    await product(s, { name: 'Archived thing', status: 'archived' });
    const list = await api('GET', `/v1/storefront/${s.slug}/products?limit=2`);
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(list.body.data.map((p: any) => p.name), ['Elderberry', 'date']);
    assert.deepEqual(Object.keys(list.body.data[0]).sort(), ['available', 'compareAtPrice', 'createdAt', 'currency', 'description', 'id', 'images', 'inStock', 'name', 'photoUrl', 'price', 'sku', 'slug', 'updatedAt']);
    assert.equal(list.body.data[0].available, null);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await api('GET', `/v1/storefront/${s.slug}/products?limit=2&sort=price_desc${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...page.body.data.map((p: any) => p.name));
      cursor = page.body.nextCursor;
    } while (cursor);
    assert.deepEqual(seen, ['Elderberry', 'date', 'Cherry', 'apple', 'Banana']);
    const byName = await api('GET', `/v1/storefront/${s.slug}/products?sort=name_asc`);
    assert.deepEqual(byName.body.data.map((p: any) => p.name), ['apple', 'Banana', 'Cherry', 'date', 'Elderberry']);
    const search = await api('GET', `/v1/storefront/${s.slug}/products?q=ERR`);
    assert.deepEqual(search.body.data.map((p: any) => p.name).sort(), ['Cherry', 'Elderberry']);
    const first = await api('GET', `/v1/storefront/${s.slug}/products?limit=1&sort=price_asc`);
    const other = await api('GET', `/v1/storefront/${s.slug}/products?limit=1&sort=name_asc&cursor=${first.body.nextCursor}`);
    assertProblem(other, 400, 'VALIDATION_FAILED');
    assert.equal(other.body.errors[0].path, 'cursor');
    assertProblem(await api('GET', `/v1/storefront/${s.slug}/products?cursor=garbage`), 400, 'VALIDATION_FAILED');
    assertProblem(await api('GET', `/v1/storefront/${s.slug}/products?sort=cheapest`), 400, 'VALIDATION_FAILED');
    assertProblem(await api('GET', `/v1/storefront/${s.slug}/products?limit=101`), 400, 'VALIDATION_FAILED');

    const one = await api('GET', `/v1/storefront/${s.slug}/products/${made[0].slug}`);
    assert.equal(one.body.id, made[0].id);
    const draft = (await api('GET', `/v1/stores/${s.storeId}/products?status=draft`, { token: s.token })).body.data[0];
    const foreign = await product(await shop(), { name: 'Foreign' });
    const missing = await api('GET', `/v1/storefront/${s.slug}/products/prod_000000000000nope`);
    assertProblem(missing, 404, 'NOT_FOUND');
    for (const id of [draft.id, foreign.id]) {
      const res = await api('GET', `/v1/storefront/${s.slug}/products/${id}`);
      assert.deepEqual(res.body, missing.body);
    }
  });

  test('stock levels only when the store shows them; inStock with backorders', async () => {
    const s = await shop();
    await product(s, { name: 'None left', stock: 0 });
    await product(s, { name: 'Backorder', stock: 0, allowBackorder: true });
    const hidden = (await api('GET', `/v1/storefront/${s.slug}/products?sort=name_asc`)).body.data;
    assert.deepEqual(hidden.map((p: any) => [p.name, p.inStock, p.available]), [['Backorder', true, null], ['None left', false, null]]);
    await api('PATCH', `/v1/stores/${s.storeId}`, { token: s.token, body: { storefront: { showStockLevels: true } } });
    const shown = (await api('GET', `/v1/storefront/${s.slug}/products?sort=name_asc`)).body.data;
    assert.deepEqual(shown.map((p: any) => p.available), [0, 0]);
  });

  test('caching: public with stale-while-revalidate and a strong ETag; 304 on If-None-Match; the ETag follows the answer', async () => {
    const s = await shop();
    const p = await product(s, { name: 'Cached' });
    const first = await api('GET', `/v1/storefront/${s.slug}/products/${p.id}`);
    assert.equal(first.headers.get('cache-control'), 'public, max-age=30, stale-while-revalidate=300');
    const etag = first.headers.get('etag')!;
    assert.match(etag, /^"[^"]+"$/);
    const again = await fetch(`${svc.url}/v1/storefront/${s.slug}/products/${p.id}`, { headers: { 'if-none-match': etag } });
    assert.equal(again.status, 304);
    assert.equal(await again.text(), '');
    assert.equal(again.headers.get('cache-control'), 'public, max-age=30, stale-while-revalidate=300');
    await api('PATCH', `/v1/stores/${s.storeId}/products/${p.id}`, { token: s.token, body: { price: 150 } });
    const changed = await fetch(`${svc.url}/v1/storefront/${s.slug}/products/${p.id}`, { headers: { 'if-none-match': etag } });
    assert.equal(changed.status, 200);
    assert.notEqual(changed.headers.get('etag'), etag);
    // A member's token changes nothing.
    const withToken = await api('GET', `/v1/storefront/${s.slug}/products/${p.id}`, { token: s.token });
    assert.equal(withToken.headers.get('etag'), changed.headers.get('etag'));
    assertProblem(await api('GET', `/v1/storefront/${s.slug}`, { token: 'souk_st_not-a-real-token' }), 401, 'UNAUTHENTICATED');
  });

  test('shipping options to a state: home and desk from tables and flat rates, cheapest first; unknown state → 400', async () => {
    const s = await shop();
    const m = await shipping(s);
    const res = await api('GET', `/v1/storefront/${s.slug}/shipping?state=16`);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, {
      state: '16',
      options: [
        { methodId: m.table.id, name: 'Yalidine', type: 'desk', price: 250, currency: 'DZD' },
        { methodId: m.table.id, name: 'Yalidine', type: 'home', price: 400, currency: 'DZD' },
        { methodId: m.flat.id, name: 'Flat', type: 'home', price: 500, currency: 'DZD' },
        { methodId: m.flat.id, name: 'Flat', type: 'desk', price: 500, currency: 'DZD' },
      ],
    });
    const far = await api('GET', `/v1/storefront/${s.slug}/shipping?state=45`);
    assert.deepEqual(far.body.options.map((o: any) => o.methodId), [m.flat.id, m.flat.id]);
    const bad = await api('GET', `/v1/storefront/${s.slug}/shipping?state=99`);
    assertProblem(bad, 400, 'VALIDATION_FAILED');
    assert.equal(bad.body.errors[0].path, 'state');
    const none = await shop();
    assert.deepEqual((await api('GET', `/v1/storefront/${none.slug}/shipping?state=16`)).body, { state: '16', options: [] });
  });

  test('CORS per store: any origin without a list, the listed origin with one, never credentials; preflights answered', async () => {
    const s = await shop();
    const open = await fetch(`${svc.url}/v1/storefront/${s.slug}`, { headers: { origin: 'https://anywhere.example' } });
    assert.equal(open.headers.get('access-control-allow-origin'), '*');
    assert.equal(open.headers.get('access-control-allow-credentials'), null);
    await api('PATCH', `/v1/stores/${s.storeId}`, { token: s.token, body: { storefront: { allowedOrigins: ['https://shop.example'] } } });
    const listed = await fetch(`${svc.url}/v1/storefront/${s.slug}`, { headers: { origin: 'https://shop.example' } });
    assert.equal(listed.headers.get('access-control-allow-origin'), 'https://shop.example');
    assert.match(listed.headers.get('vary') ?? '', /origin/i);
    const other = await fetch(`${svc.url}/v1/storefront/${s.slug}`, { headers: { origin: 'https://evil.example' } });
    assert.equal(other.headers.get('access-control-allow-origin'), null);
    const preflight = await fetch(`${svc.url}/v1/storefront/${s.slug}/orders`, {
      method: 'OPTIONS',
      headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, idempotency-key' },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get('access-control-allow-origin'), 'https://shop.example');
    assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /idempotency-key/);
    const denied = await fetch(`${svc.url}/v1/storefront/${s.slug}/orders`, { method: 'OPTIONS', headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } });
    assert.equal(denied.headers.get('access-control-allow-origin'), null);
  });
});

describe('storefront: cart pricing and guest checkout', () => {
  test('a cart is priced from the store only, with problems the shopper can act on', async () => {
    const s = await shop();
    const a = await product(s, { name: 'A', price: 1000, stock: 5 });
    const b = await product(s, { name: 'B', price: 250, stock: 1 });
    const draft = await product(s, { name: 'Draft', status: 'draft' });
    await shipping(s);
    await api('POST', `/v1/promos?storeId=${s.storeId}`, { token: s.token, body: { code: 'TEN', type: 'percentage', value: 10 } });
    const priced = await api('POST', `/v1/storefront/${s.slug}/cart/price`, {
      body: { items: [{ productId: a.slug, quantity: 2 }, { productId: b.id, quantity: 1 }], shipping: { state: '16', type: 'desk' }, coupon: 'ten' },
    });
    assert.equal(priced.status, 200, priced.text);
    assert.equal(priced.headers.get('cache-control'), 'no-store');
    assert.deepEqual(priced.body, {
      currency: 'DZD',
      items: [
        { productId: a.id, slug: a.slug, name: 'A', unitPrice: 1000, quantity: 2, lineTotal: 2000 },
        { productId: b.id, slug: b.slug, name: 'B', unitPrice: 250, quantity: 1, lineTotal: 250 },
      ],
      subtotal: 2250,
      discount: 225,
      shippingPrice: 250,
      total: 2275,
      coupon: { code: 'TEN', valid: true, reason: null },
      problems: [],
    });
    const problems = await api('POST', `/v1/storefront/${s.slug}/cart/price`, {
      body: {
        items: [{ productId: draft.id, quantity: 1 }, { productId: b.id, quantity: 2, price: 1 }, { productId: a.id, quantity: 101 }],
        shipping: { state: '45', type: 'desk', methodId: 'shm_nope' },
        coupon: 'NOPE',
        total: 1,
      },
      contract: false,
    });
    assert.equal(problems.status, 400, 'amounts from the client are unknown fields');
    const real = await api('POST', `/v1/storefront/${s.slug}/cart/price`, {
      body: { items: [{ productId: draft.id, quantity: 1 }, { productId: b.id, quantity: 2 }, { productId: a.id, quantity: 101 }], shipping: { state: '45', type: 'desk', methodId: 'shm_nope' }, coupon: 'NOPE' },
    });
    assert.deepEqual(
      real.body.problems.map((p: any) => [p.path, p.code]),
      [
        ['items.0.productId', 'UNAVAILABLE'],
        ['items.2.quantity', 'QUANTITY'],
        ['items.1.quantity', 'OUT_OF_STOCK'],
        ['items.2.quantity', 'OUT_OF_STOCK'],
        ['shipping.methodId', 'SHIPPING_UNAVAILABLE'],
        ['coupon', 'COUPON_INVALID'],
      ],
    );
    assert.deepEqual(real.body.coupon, { code: 'NOPE', valid: false, reason: 'not_found' });
    for (const [body, path] of [
      [{ items: [] }, 'items'],
      [{ items: [{ productId: a.id, quantity: 0 }] }, 'items.0.quantity'],
      [{ items: [{ productId: a.id, quantity: 1.5 }] }, 'items.0.quantity'],
      [{ items: 'a' }, 'items'],
      [{ items: [{ productId: a.id, quantity: 1 }], shipping: { state: '99', type: 'home' } }, 'shipping.state'],
    ] as const) {
      const res = await api('POST', `/v1/storefront/${s.slug}/cart/price`, { body, contract: false });
      assertProblem(res, 400, 'VALIDATION_FAILED');
      assert.ok(res.body.errors.some((e: any) => e.path === path || e.path.startsWith(`${path}.`)), `${path}: ${res.text}`);
    }
  });

  test('guest checkout: 201 {order, orderToken} priced as the cart, E.164 phone, source storefront; members see customerIp and risk', async () => {
    const s = await shop();
    const a = await product(s, { name: 'A', price: 1000, stock: 5 });
    await shipping(s);
    const cart = await api('POST', `/v1/storefront/${s.slug}/cart/price`, { body: { items: [{ productId: a.id, quantity: 2 }], shipping: { state: '16', type: 'home' } } });
    const res = await api('POST', `/v1/storefront/${s.slug}/orders`, { body: order([{ productId: a.id, quantity: 2 }], { customerEmail: 'amina@example.com', note: 'Call first' }) });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.headers.get('location'), '/v1/storefront/orders/current');
    assert.equal(res.headers.get('cache-control'), 'no-store');
    assert.match(res.body.orderToken, /^opt_/);
    assert.deepEqual(Object.keys(res.body).sort(), ['order', 'orderToken']);
    const o = res.body.order;
    assert.equal(o.total, cart.body.total);
    assert.equal(o.subtotal, cart.body.subtotal);
    assert.equal(o.shippingPrice, 400);
    assert.deepEqual(o.status, { name: 'Pending', kind: 'new' });
    assert.equal(o.paymentStatus, 'unpaid');
    assert.deepEqual(o.history.map((h: any) => [h.status, h.kind]), [['Pending', 'new']]);
    for (const hidden of ['note', 'metadata', 'customerIp', 'risk', 'customerPhone', 'storeId']) assert.equal(o[hidden], undefined, hidden);
    const member = await api('GET', `/v1/stores/${s.storeId}/orders/${o.id}`, { token: s.token });
    assert.equal(member.body.source, 'storefront');
    assert.equal(member.body.customerPhone, '+213555123456');
    assert.equal(member.body.customerEmail, 'amina@example.com');
    assert.equal(member.body.note, 'Call first');
    assert.equal(member.body.customerIp, '127.0.0.1');
    assert.equal(typeof member.body.risk.score, 'number');
    assert.ok(member.body.risk.reasons.some((r: any) => r.code === 'FIRST_ORDER'));
    // The stock is not taken while the order is new (CONTRACT-2 §9).
    assert.equal((await api('GET', `/v1/stores/${s.storeId}/products/${a.id}`, { token: s.token })).body.stock, 5);
    // The token opens the customer's view; it is refused on member routes.
    const mine = await api('GET', '/v1/storefront/orders/current', { token: res.body.orderToken });
    assert.equal(mine.status, 200, mine.text);
    assert.deepEqual(mine.body, o);
    assertProblem(await api('GET', `/v1/stores/${s.storeId}/orders/${o.id}`, { token: res.body.orderToken }), 401, 'UNAUTHENTICATED');
    assertProblem(await api('GET', '/v1/storefront/orders/current'), 401, 'UNAUTHENTICATED');
    assertProblem(await api('GET', '/v1/storefront/orders/current', { token: s.token }), 401, 'UNAUTHENTICATED');
  });

  test('checkout refusals write nothing: invalid phone, closed checkout, cart problems (422), duplicates (409)', async () => {
    const s = await shop();
    const a = await product(s, { name: 'A', price: 1000, stock: 1 });
    await shipping(s);
    const count = async () => (await api('GET', `/v1/stores/${s.storeId}/orders`, { token: s.token })).body.data.length;
    const bad = await api('POST', `/v1/storefront/${s.slug}/orders`, { body: order([{ productId: a.id, quantity: 1 }], { customerPhone: '0123' }) });
    assertProblem(bad, 400, 'VALIDATION_FAILED');
    assert.equal(bad.body.errors[0].path, 'customerPhone');
    const tooMany = await api('POST', `/v1/storefront/${s.slug}/orders`, { body: order([{ productId: a.id, quantity: 2 }]) });
    assertProblem(tooMany, 422, 'CART_INVALID');
    assert.deepEqual(tooMany.body.problems.map((p: any) => p.code), ['OUT_OF_STOCK']);
    assert.equal(await count(), 0);
    const first = await api('POST', `/v1/storefront/${s.slug}/orders`, { body: order([{ productId: a.id, quantity: 1 }]) });
    assert.equal(first.status, 201, first.text);
    const dup = await api('POST', `/v1/storefront/${s.slug}/orders`, { body: order([{ productId: a.slug, quantity: 1 }], { customerPhone: '+213 555 12 34 56' }) });
    assertProblem(dup, 409, 'DUPLICATE_ORDER');
    assert.equal(dup.body.orderToken, undefined);
    assert.equal(await count(), 1);
    await api('PATCH', `/v1/stores/${s.storeId}`, { token: s.token, body: { storefront: { checkoutEnabled: false } } });
    assertProblem(await api('POST', `/v1/storefront/${s.slug}/orders`, { body: order([{ productId: a.id, quantity: 1 }], { customerPhone: '0661234567' }) }), 403, 'FORBIDDEN');
    assert.equal(await count(), 1);
  });

  test('Idempotency-Key: the same key and body → the same answer, replayed; another body → 409', async () => {
    const s = await shop();
    const a = await product(s, { name: 'A', price: 1000, stock: 50 });
    await shipping(s);
    const headers = { 'idempotency-key': 'checkout-1' };
    const first = await api('POST', `/v1/storefront/${s.slug}/orders`, { body: order([{ productId: a.id, quantity: 1 }]), headers });
    assert.equal(first.status, 201, first.text);
    const again = await api('POST', `/v1/storefront/${s.slug}/orders`, { body: order([{ productId: a.id, quantity: 1 }]), headers });
    assert.equal(again.status, 201, again.text);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(again.body, first.body);
    assertProblem(await api('POST', `/v1/storefront/${s.slug}/orders`, { body: order([{ productId: a.id, quantity: 2 }]), headers }), 409, 'CONFLICT');
  });

  test('a promo: discount as priced, capped per customer by phone in the order transaction', async () => {
    const s = await shop();
    const a = await product(s, { name: 'A', price: 1000, stock: 50 });
    await shipping(s);
    await api('POST', `/v1/promos?storeId=${s.storeId}`, { token: s.token, body: { code: 'ONCE', type: 'fixed', value: 100, maxUsesPerCustomer: 1 } });
    const res = await api('POST', `/v1/storefront/${s.slug}/orders`, { body: order([{ productId: a.id, quantity: 1 }], { coupon: 'once' }) });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.order.discount, 100);
    assert.equal(res.body.order.total, 1000 + 400 - 100);
    const second = await api('POST', `/v1/storefront/${s.slug}/orders`, { body: order([{ productId: a.id, quantity: 2 }], { coupon: 'ONCE', customerPhone: '+213555123456' }) });
    assertProblem(second, 422, 'CART_INVALID');
    assert.deepEqual(second.body.problems, [{ path: 'coupon', code: 'COUPON_INVALID', message: 'The code cannot be used: max_uses_customer' }]);
  });

  test('the customer cancels while new (orderUpdated), not after; another order with the token → 404-free: only its own', async () => {
    const s = await shop();
    const a = await product(s, { name: 'A', price: 1000, stock: 50 });
    await shipping(s);
    const one = await api('POST', `/v1/storefront/${s.slug}/orders`, { body: order([{ productId: a.id, quantity: 1 }]) });
    const cancelled = await api('POST', '/v1/storefront/orders/current/cancel', { token: one.body.orderToken });
    assert.equal(cancelled.status, 200, cancelled.text);
    assert.deepEqual(cancelled.body.status, { name: 'Cancelled', kind: 'cancelled' });
    assert.deepEqual(cancelled.body.history.map((h: any) => h.kind), ['new', 'cancelled']);
    assertProblem(await api('POST', '/v1/storefront/orders/current/cancel', { token: one.body.orderToken }), 409, 'CONFLICT');
    const two = await api('POST', `/v1/storefront/${s.slug}/orders`, { body: order([{ productId: a.id, quantity: 3 }]) });
    await api('POST', `/v1/stores/${s.storeId}/orders/${two.body.order.id}/confirm`, { token: s.token });
    assertProblem(await api('POST', '/v1/storefront/orders/current/cancel', { token: two.body.orderToken }), 409, 'CONFLICT');
    const seen = await api('GET', '/v1/storefront/orders/current', { token: two.body.orderToken });
    assert.deepEqual(seen.body.status, { name: 'Confirmed', kind: 'confirmed' });
    assertProblem(await api('GET', `/v1/orders/${one.body.order.id}/payment/methods`, { token: two.body.orderToken }), 404, 'NOT_FOUND');
  });
});

describe('storefront: GraphQL', () => {
  const gql = async (query: string, variables: Record<string, unknown> = {}, token?: string) => {
    const res = await fetch(`${svc.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify({ query, variables }),
    });
    return (await res.json()) as { data?: any; errors?: Array<{ message: string; extensions: { code: string; problems?: unknown[] } }> };
  };

  test('Query.storefront: the public reads as fields, no account; unknown store → NOT_FOUND; checkout as a mutation', async () => {
    const s = await shop('Graph Shop');
    const a = await product(s, { name: 'A', price: 300 });
    await shipping(s);
    const read = await gql(
      `query($store: String!) { storefront(store: $store) { slug name phoneRegion products(limit: 5) { data { name price inStock } nextCursor }
        shipping(state: "16") { options { type price } } cart(input: { items: [{ productId: "${a.slug}", quantity: 2 }] }) { total problems { code } } } }`,
      { store: s.slug },
    );
    assert.equal(read.errors, undefined, JSON.stringify(read.errors));
    assert.equal(read.data.storefront.slug, s.slug);
    assert.deepEqual(read.data.storefront.products, { data: [{ name: 'A', price: 300, inStock: true }], nextCursor: null });
    assert.equal(read.data.storefront.cart.total, 600);
    const unknown = await gql('{ storefront(store: "nope-nope") { products { data { id } } } }');
    assert.equal(unknown.errors?.[0].extensions.code, 'NOT_FOUND');
    const placed = await gql(
      `mutation($store: String!, $input: StorefrontOrderInput!) { createStorefrontOrder(store: $store, input: $input) { orderToken order { total status { kind } } } }`,
      { store: s.storeId, input: order([{ productId: a.id, quantity: 1 }], { customerPhone: '0770123456' }) },
    );
    assert.equal(placed.errors, undefined, JSON.stringify(placed.errors));
    assert.equal(placed.data.createStorefrontOrder.order.total, 700);
    const mine = await gql('{ myOrder { total status { name } } }', {}, placed.data.createStorefrontOrder.orderToken);
    assert.deepEqual(mine.data.myOrder, { total: 700, status: { name: 'Pending' } });
    const invalid = await gql(
      `mutation($store: String!, $input: StorefrontOrderInput!) { createStorefrontOrder(store: $store, input: $input) { orderToken } }`,
      { store: s.storeId, input: order([{ productId: a.id, quantity: 1 }], { customerPhone: '0770123456', shipping: { state: '16', city: 'X', type: 'desk', methodId: 'shm_nope' } }) },
    );
    assert.equal(invalid.errors?.[0].extensions.code, 'CART_INVALID');
    assert.deepEqual(invalid.errors?.[0].extensions.problems, [{ path: 'shipping.methodId', code: 'SHIPPING_UNAVAILABLE', message: 'This shipping method does not deliver desk to state 16' }]);
  });

  test('Subscription.myOrder over graphql-sse: the view again when the merchant moves the order, only its own', async () => {
    const s = await shop();
    const a = await product(s, { name: 'A', price: 300, stock: 20 });
    await shipping(s);
    const mine = await api('POST', `/v1/storefront/${s.slug}/orders`, { body: order([{ productId: a.id, quantity: 1 }]) });
    const other = await api('POST', `/v1/storefront/${s.slug}/orders`, { body: order([{ productId: a.id, quantity: 2 }]) });
    const hub = svc.service.deps.realtime;
    const before = hub.size;
    const groups = hub.streams.groupCount;
    const DOC = 'subscription { myOrder { id status { name kind } paymentStatus history { kind } } }';
    const sub = gqlSubscribe(svc.url, mine.body.orderToken, DOC, {});
    // Two more tabs of the same customer share its group; the other order's customer has its own.
    const tabs = [gqlSubscribe(svc.url, mine.body.orderToken, DOC, {}), gqlSubscribe(svc.url, mine.body.orderToken, DOC, {})];
    const otherTab = gqlSubscribe(svc.url, other.body.orderToken, DOC, {});
    try {
      await until('the subscriptions to register', () => hub.size >= before + 4);
      assert.equal(hub.streams.groupCount, groups + 2, 'one group per order');
      assert.equal((await api('POST', `/v1/stores/${s.storeId}/orders/${other.body.order.id}/confirm`, { token: s.token })).status, 200);
      assert.equal((await api('PATCH', `/v1/stores/${s.storeId}/orders/${mine.body.order.id}`, { token: s.token, body: { metadata: { seen: true } } })).status, 200);
      assert.equal((await api('POST', `/v1/stores/${s.storeId}/orders/${mine.body.order.id}/confirm`, { token: s.token })).status, 200);
      const [first] = await sub.waitFor(1);
      assert.deepEqual(first.data.myOrder, { id: mine.body.order.id, status: { name: 'Confirmed', kind: 'confirmed' }, paymentStatus: 'unpaid', history: [{ kind: 'new' }, { kind: 'confirmed' }] });
      assert.equal(sub.results.length, 1, 'a change the customer does not follow (metadata) and another order send nothing');
      for (const tab of tabs) assert.deepEqual((await tab.waitFor(1))[0], first);
      assert.equal((await otherTab.waitFor(1))[0].data.myOrder.id, other.body.order.id);
    } finally {
      for (const x of [sub, ...tabs, otherTab]) x.close();
    }
    const anonymous = gqlSubscribe(svc.url, null, 'subscription { myOrder { id } }', {});
    await anonymous.waitForEnd();
    assert.equal((anonymous.failure as any)?.[0]?.extensions?.code ?? (anonymous.results[0] as any)?.errors?.[0]?.extensions?.code, 'UNAUTHENTICATED');
    anonymous.close();
  });
});

describe('storefront: the merchant’s defences and bad input', () => {
  test('risk comes from this store’s own history of the phone and address, never another store’s', async () => {
    const s = await shop();
    const other = await shop();
    const a = await product(s, { name: 'A', price: 100, stock: 100 });
    const b = await product(other, { name: 'B', price: 100, stock: 100 });
    await shipping(s);
    await shipping(other);
    // In the other store this phone's orders were all returned: it must not count here.
    for (let i = 1; i <= 2; i++) {
      const placed = await api('POST', `/v1/storefront/${other.slug}/orders`, { body: order([{ productId: b.id, quantity: i }], { customerPhone: '0661000001' }) });
      await api('PATCH', `/v1/stores/${other.storeId}/orders/${placed.body.order.id}`, { token: other.token, body: { status: 'returned' } });
    }
    const first = await api('POST', `/v1/storefront/${s.slug}/orders`, { body: order([{ productId: a.id, quantity: 1 }], { customerPhone: '0661000001' }) });
    const firstRisk = (await api('GET', `/v1/stores/${s.storeId}/orders/${first.body.order.id}`, { token: s.token })).body.risk;
    // Another store's returns and orders from this address do not count here.
    assert.deepEqual(firstRisk.reasons.map((r: any) => r.code), ['FIRST_ORDER']);
    await api('PATCH', `/v1/stores/${s.storeId}/orders/${first.body.order.id}`, { token: s.token, body: { status: 'delivered' } });
    const second = await api('POST', `/v1/storefront/${s.slug}/orders`, { body: order([{ productId: a.id, quantity: 2 }], { customerPhone: '0661000001' }) });
    await api('PATCH', `/v1/stores/${s.storeId}/orders/${second.body.order.id}`, { token: s.token, body: { status: 'returned' } });
    const third = await api('POST', `/v1/storefront/${s.slug}/orders`, { body: order([{ productId: a.id, quantity: 3 }], { customerPhone: '0661000001' }) });
    const risk = (await api('GET', `/v1/stores/${s.storeId}/orders/${third.body.order.id}`, { token: s.token })).body.risk;
    const codes = risk.reasons.map((r: any) => r.code);
    assert.ok(codes.includes('DELIVERED') && codes.includes('RETURNED') && codes.includes('ADDRESS_BURST'), JSON.stringify(risk));
    assert.ok(!codes.includes('FIRST_ORDER'));
    assert.ok(risk.score >= 0 && risk.score <= 100);
    assert.equal(risk.reasons.find((r: any) => r.code === 'RETURNED').detail, '1 earlier order of this phone returned');
  });

  test('risk: an address that ordered before with phones now blocked is BLOCKLIST_RELATED, in one statement however many phones', async () => {
    const s = await shop();
    const a = await product(s, { name: 'A', price: 100, stock: 100 });
    await shipping(s);
    // Four earlier customers from this address; the third is blocked afterwards.
    for (let i = 1; i <= 4; i++) assert.equal((await api('POST', `/v1/storefront/${s.slug}/orders`, { body: order([{ productId: a.id, quantity: i }], { customerPhone: `066200000${i}` }) })).status, 201);
    assert.equal((await api('POST', `/v1/stores/${s.storeId}/storefront/blocklist`, { token: s.token, body: { kind: 'phone', value: '0662000003' } })).status, 201);
    let placed: any;
    const seen = await statementsOf(svc, async () => {
      placed = await api('POST', `/v1/storefront/${s.slug}/orders`, { body: order([{ productId: a.id, quantity: 1 }], { customerPhone: '0662000009' }) });
    });
    assert.equal(placed.status, 201, placed.text);
    const risk = (await api('GET', `/v1/stores/${s.storeId}/orders/${placed.body.order.id}`, { token: s.token })).body.risk;
    assert.deepEqual(risk.reasons.find((r: any) => r.code === 'BLOCKLIST_RELATED'), { code: 'BLOCKLIST_RELATED', detail: 'This address ordered before with a blocked phone' });
    assert.equal(seen.filter(blocklistRead).length, 2, 'the shopper, then the related phones and addresses at once');
  });

  test('a guest checkout with a product, a shipping method and a promo is at most CHECKOUT_STATEMENTS statements', async () => {
    const { s, a } = await warmShop('0663000001', { code: 'SEEN10' });
    let placed: any;
    const seen = await statementsOf(svc, async () => {
      placed = await api('POST', `/v1/storefront/${s.slug}/orders`, { body: order([{ productId: a.id, quantity: 2 }], { customerPhone: '0663000002', coupon: 'SEEN10' }) });
    });
    assert.equal(placed.status, 201, placed.text);
    assert.equal(placed.body.order.discount, 200);
    if (process.env.SHOW_STATEMENTS) console.log(seen.join('\n---\n'));
    assert.ok(seen.length <= CHECKOUT_STATEMENTS, `${seen.length} statements:\n${seen.join('\n---\n')}`);
    assert.deepEqual(seen.filter(blocklistRead), [], 'a store that blocks nobody: no blocklist statement');
  });

  test('the common checkout (no code, a store that blocks nobody) is two statements and no transaction', async () => {
    const { s, a } = await warmShop('0663000011');
    let placed: any;
    const seen = await statementsOf(svc, async () => {
      placed = await api('POST', `/v1/storefront/${s.slug}/orders`, { body: order([{ productId: a.id, quantity: 2 }], { customerPhone: '0663000012' }) });
    });
    assert.equal(placed.status, 201, placed.text);
    if (process.env.SHOW_STATEMENTS) console.log(seen.join('\n---\n'));
    // The store with the cart and the shopper's record; the limits, the duplicate key and the order with its event.
    assert.equal(seen.length, 2, seen.join('\n---\n'));
    assert.ok(!seen.some((q) => /^\s*(begin|commit)\b/i.test(q)), seen.join('\n---\n'));
    const [row] = await svc.service.deps.orm.em.fork().getConnection().execute('select items, total, customer_phone, risk from orders where id = ?', [placed.body.order.id]);
    assert.equal(row.customer_phone, '+213663000012');
    // Two at 1000 and the table's 400 for state 16, home; stored in minor units.
    assert.equal(placed.body.order.total, 2400);
    assert.equal(Number(row.total), 240000);
    assert.ok(row.risk.reasons.some((r: any) => r.code === 'FIRST_ORDER'));

    // A server-rendered shop's checkout (a server key naming the shopper's address) is two statements too, once the key is known.
    const key = await api('POST', `/v1/stores/${s.storeId}/storefront/keys`, { token: s.token, body: { name: 'SSR' } });
    assert.equal(key.status, 201, key.text);
    const ssr = (phone: string, ip: string) =>
      api('POST', `/v1/storefront/${s.slug}/orders`, { body: order([{ productId: a.id, quantity: 1 }], { customerPhone: phone }), headers: { 'x-souk-storefront-key': key.body.key, 'x-souk-buyer-ip': ip } });
    assert.equal((await ssr('0663000013', '203.0.113.77')).status, 201);
    let keyed: any;
    const seenKeyed = await statementsOf(svc, async () => {
      keyed = await ssr('0663000014', '203.0.113.78');
    });
    assert.equal(keyed.status, 201, keyed.text);
    assert.equal(seenKeyed.length, 2, seenKeyed.join('\n---\n'));
    const [k] = await svc.service.deps.orm.em.fork().getConnection().execute('select customer_ip, risk from orders where id = ?', [keyed.body.order.id]);
    assert.equal(k.customer_ip, '203.0.113.78');
    // The record read is the named address's (no order yet), not the renderer's (127.0.0.1 ordered above).
    assert.ok(!k.risk.reasons.some((r: any) => r.code === 'ADDRESS_BURST'), JSON.stringify(k.risk));
  });

  test('a store that reads national numbers in another region: the shopper’s record is that phone’s, not the default region’s reading', async () => {
    const s = await shop();
    const patched = await api('PATCH', `/v1/stores/${s.storeId}`, { token: s.token, body: { storefront: { phoneRegion: 'FR' } } });
    assert.equal(patched.status, 200, patched.text);
    const a = await product(s, { name: 'A', price: 1000, stock: 100 });
    const b = await product(s, { name: 'B', price: 2000, stock: 100 });
    await shipping(s);
    // 06 12 34 56 78 reads as a mobile number in Algeria (+213) and in France (+33): the store says France.
    const first = await api('POST', `/v1/storefront/${s.slug}/orders`, { body: order([{ productId: a.id, quantity: 1 }], { customerPhone: '0612345678' }) });
    assert.equal(first.status, 201, first.text);
    const second = await api('POST', `/v1/storefront/${s.slug}/orders`, { body: order([{ productId: b.id, quantity: 1 }], { customerPhone: '0612345678' }) });
    assert.equal(second.status, 201, second.text);
    const rows = await sql('select id, customer_phone, risk from orders where store_id = ? order by created_at', [s.storeId]);
    assert.deepEqual(rows.map((r: any) => r.customer_phone), ['+33612345678', '+33612345678']);
    assert.ok(rows[0].risk.reasons.some((r: any) => r.code === 'FIRST_ORDER'));
    assert.ok(!rows[1].risk.reasons.some((r: any) => r.code === 'FIRST_ORDER'), JSON.stringify(rows[1].risk));
    assertProblem(await api('POST', `/v1/storefront/${s.slug}/orders`, { body: order([{ productId: b.id, quantity: 1 }], { customerPhone: '+33 6 12 34 56 78' }) }), 409, 'DUPLICATE_ORDER');
  });

  test('identical carts from one phone at once, half with a code (the transaction) and half without (one statement): one order, the rest 409, 5 rounds', async () => {
    const { s, a } = await warmShop('0663100000', { stock: 1000, code: 'TWIN10' });
    for (let round = 1; round <= 5; round++) {
      const phone = `06631000${String(round).padStart(2, '0')}`;
      const answers = await Promise.all(
        Array.from({ length: 16 }, (_, i) =>
          api('POST', `/v1/storefront/${s.slug}/orders`, { body: order([{ productId: a.id, quantity: 2 }], { customerPhone: phone, ...(i % 2 ? { coupon: 'TWIN10' } : {}) }) }),
        ),
      );
      const placed = answers.filter((r) => r.status === 201);
      assert.equal(placed.length, 1, answers.map((r) => `${r.status} ${r.body?.code ?? ''}`).join(', '));
      for (const r of answers.filter((x) => x.status !== 201)) assertProblem(r, 409, 'DUPLICATE_ORDER');
      const rows = await sql('select count(*)::int as n from orders where store_id = ? and customer_phone = ?', [s.storeId, `+213${phone.slice(1)}`]);
      assert.equal(rows[0].n, 1, `round ${round}`);
    }
  });

  test('a product repriced between the cart’s read and the order’s statement: that statement is undone whole and the transaction places the order at the new price', async () => {
    const { s, a } = await warmShop('0663200000');
    const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
    const original = proto.query;
    let undone = 0;
    proto.query = function (this: unknown, ...args: unknown[]) {
      const q = args[0] as string | { text?: string };
      const text = typeof q === 'string' ? q : String(q?.text ?? '');
      if (!undone && text.includes('souk_undo_unless')) {
        undone++;
        // The merchant reprices (to 1500, in minor units) while the checkout is between its two
        // statements; on the statement's own connection (the embedded database has but one).
        return (original.call(this, 'update products set price = 150000 where id = $1', [a.id]) as Promise<unknown>).then(() => original.apply(this, args));
      }
      return original.apply(this, args);
    };
    let res;
    try {
      res = await api('POST', `/v1/storefront/${s.slug}/orders`, { body: order([{ productId: a.id, quantity: 1 }], { customerPhone: '0663200001' }) });
    } finally {
      proto.query = original;
    }
    assert.equal(undone, 1, 'the one-statement write ran');
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.order.items[0].unitPrice, 1500);
    const orders = await sql('select id from orders where store_id = ? and customer_phone = ?', [s.storeId, '+213663200001']);
    assert.deepEqual(orders.map((o: any) => o.id), [res.body.order.id]);
    // The undone statement counted nothing: the phone's log holds the one checkout that was placed.
    const [hits] = await sql("select cardinality(hits) as n from storefront_checkout_hits where store_id = ? and kind = 'phone' and subject = ?", [s.storeId, '+213663200001']);
    assert.equal(Number(hits.n), 1);
    const events = await sql("select count(*)::int as n from store_events where store_id = ? and event = 'orderCreated' and data->'order'->>'id' = ?", [s.storeId, res.body.order.id]);
    assert.equal(events[0].n, 1);
  });

  test('every body field is bounded: 400 at its path, nothing written', async () => {
    const s = await shop();
    const a = await product(s, { name: 'A', price: 100, stock: 100 });
    await shipping(s);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ customerName: '' }, 'customerName'],
      [{ customerName: 'n'.repeat(121) }, 'customerName'],
      [{ customerPhone: '5'.repeat(51) }, 'customerPhone'],
      [{ customerEmail: 'not-an-email' }, 'customerEmail'],
      [{ note: 'n'.repeat(1001) }, 'note'],
      [{ metadata: { blob: 'x'.repeat(5000) } }, 'metadata'],
      [{ coupon: 'c'.repeat(51) }, 'coupon'],
      [{ shipping: { state: '16', city: '', type: 'home' } }, 'shipping.city'],
      [{ shipping: { state: '16', city: 'c'.repeat(101), type: 'home' } }, 'shipping.city'],
      [{ shipping: { state: '16', city: 'Alger', type: 'home', address: 'a'.repeat(501) } }, 'shipping.address'],
      [{ shipping: { state: '16', city: 'Alger', type: 'pickup' } }, 'shipping.type'],
      [{ shipping: { state: '70', city: 'Alger', type: 'home' } }, 'shipping.state'],
      [{ items: [{ productId: 'p'.repeat(101), quantity: 1 }] }, 'items.0.productId'],
      [{ items: Array.from({ length: 51 }, () => ({ productId: a.id, quantity: 1 })) }, 'items'],
      [{ total: 1 }, 'total'],
    ];
    for (const [override, path] of cases) {
      const res = await api('POST', `/v1/storefront/${s.slug}/orders`, { body: order([{ productId: a.id, quantity: 1 }], override), contract: false });
      assertProblem(res, 400, 'VALIDATION_FAILED');
      assert.ok(res.body.errors.some((e: any) => e.path === path), `${path}: ${res.text}`);
    }
    assert.equal((await api('GET', `/v1/stores/${s.storeId}/orders`, { token: s.token })).body.data.length, 0);
  });

  test('the order token is never in an event payload, a webhook body or an idempotent answer at rest', async () => {
    const s = await shop();
    const a = await product(s, { name: 'A', price: 100, stock: 100 });
    await shipping(s);
    const placed = await api('POST', `/v1/storefront/${s.slug}/orders`, { body: order([{ productId: a.id, quantity: 1 }]), headers: { 'idempotency-key': 'k-1' } });
    const token: string = placed.body.orderToken;
    await api('POST', '/v1/storefront/orders/current/cancel', { token });
    const em = svc.service.deps.orm.em.fork();
    const events = await em.getConnection().execute('select data::text as data from store_events where store_id = ?', [s.storeId]);
    assert.ok(events.length >= 2);
    for (const e of events) assert.ok(!e.data.includes(token) && !e.data.includes(token.slice(4)), 'an event carries the token');
    const kept = await em.getConnection().execute("select answer from idempotency_keys where key = 'k-1'");
    assert.equal(kept.length, 1);
    assert.ok(!kept[0].answer.includes(token.slice(4)), 'the kept answer is encrypted');
  });

  test('a deleted store takes its storefront orders and their history with it', async () => {
    const s = await shop();
    const a = await product(s, { name: 'A', price: 100, stock: 100 });
    await shipping(s);
    const placed = await api('POST', `/v1/storefront/${s.slug}/orders`, { body: order([{ productId: a.id, quantity: 1 }]) });
    assert.equal((await api('DELETE', `/v1/stores/${s.storeId}`, { token: s.token })).status, 204);
    assertProblem(await api('GET', '/v1/storefront/orders/current', { token: placed.body.orderToken }), 401, 'UNAUTHENTICATED');
    const left = await svc.service.deps.orm.em.fork().getConnection().execute('select count(*)::int as n from order_status_history where order_id = ?', [placed.body.order.id]);
    assert.equal(left[0].n, 0);
  });
});
