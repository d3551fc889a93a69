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

const promos = (s: Owner, suffix = '') => `/v1/promos${suffix}?storeId=${s.storeId}`;

async function promo(s: Owner, body: Record<string, unknown>) {
  const res = await api('POST', promos(s), { token: s.token, body });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

async function product(s: Owner, price: number, stock = 100) {
  const res = await api('POST', `/v1/stores/${s.storeId}/products`, { token: s.token, body: { name: `P ${Math.random()}`, price, stock } });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

const validate = (s: Owner, body: Record<string, unknown>, token?: string) => api('POST', `/v1/promos/validate?storeId=${s.storeId}`, { token, body });

const createOrder = (s: Owner, body: Record<string, unknown>) => api('POST', `/v1/stores/${s.storeId}/orders`, { token: s.token, body: { customerName: 'Ada', ...body } });

describe('promo codes', () => {
  test('CRUD: codes upper-cased and unique per store, values checked, admins write', async () => {
    const s = await ownerWithStore(api);
    const p = await product(s, 100);
    const created = await promo(s, { code: 'summer10', type: 'percentage', value: 10, minSubtotal: 50.5, maxUses: 3, productIds: [p.id] });
    assert.match(created.id, /^promo_/);
    assert.equal(created.code, 'SUMMER10');
    assert.equal(created.value, 10);
    assert.equal(created.minSubtotal, 50.5);
    assert.equal(created.uses, 0);
    assert.equal(created.active, true);
    assert.deepEqual(created.productIds, [p.id]);
    assertProblem(await api('POST', promos(s), { token: s.token, body: { code: 'Summer10', type: 'fixed', value: 5 } }), 409, 'CONFLICT');
    const other = await ownerWithStore(api);
    await promo(other, { code: 'SUMMER10', type: 'free_shipping' });

    for (const bad of [
      { code: 'X1', type: 'percentage', value: 120 },
      { code: 'X2', type: 'percentage' },
      { code: 'X3', type: 'fixed', value: 1.234 },
      { code: 'X4', type: 'bogus', value: 1 },
      { code: 'bad code', type: 'fixed', value: 1 },
      { code: 'X5', type: 'fixed', value: 1, productIds: ['prod_nope'] },
      { code: 'X6', type: 'fixed', value: 1, startsAt: '2030-01-02T00:00:00Z', endsAt: '2030-01-01T00:00:00Z' },
    ]) {
      assertProblem(await api('POST', promos(s), { token: s.token, body: bad }), 400, 'VALIDATION_FAILED');
    }
    const decimals = await api('POST', promos(s), { token: s.token, body: { code: 'X3', type: 'fixed', value: 1.234 } });
    assert.equal(decimals.body.errors[0].path, 'value');

    const put = await api('PUT', promos(s, `/${created.id}`), { token: s.token, body: { active: false, code: 'winter' } });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.body.code, 'WINTER');
    assert.equal(put.body.active, false);
    assert.equal(put.body.value, 10, 'partial: the rest stays');
    const list = await api('GET', promos(s), { token: s.token });
    assert.deepEqual(list.body.data.map((x: any) => x.code), ['WINTER']);

    const editor = await memberWithRole(api, s.token, s.storeId, 'editor');
    assert.equal((await api('GET', promos(s, `/${created.id}`), { token: editor.token })).status, 200);
    assertProblem(await api('POST', promos(s), { token: editor.token, body: { code: 'E', type: 'free_shipping' } }), 403, 'FORBIDDEN');
    const admin = await memberWithRole(api, s.token, s.storeId, 'admin');
    assert.equal((await api('POST', promos(s), { token: admin.token, body: { code: 'A', type: 'free_shipping' } })).status, 201);

    assert.equal((await api('DELETE', promos(s, `/${created.id}`), { token: s.token })).status, 204);
    assertProblem(await api('GET', promos(s, `/${created.id}`), { token: s.token }), 404, 'NOT_FOUND');
  });

  test('validate is public, priced from the store records, and names the first reason that applies', async () => {
    const s = await ownerWithStore(api);
    const tea = await product(s, 12.5);
    const cup = await product(s, 4);
    const cart = [{ productId: tea.id, quantity: 2 }, { productId: cup.id, quantity: 1 }];

    const pct = await promo(s, { code: 'PCT', type: 'percentage', value: 10 });
    const ok = await validate(s, { code: 'pct', items: cart });
    assert.equal(ok.status, 200, ok.text);
    assert.deepEqual(ok.body, { valid: true, reason: null, subtotal: 29, discount: 2.9, total: 26.1, freeShipping: false });

    await promo(s, { code: 'FIX', type: 'fixed', value: 100 });
    assert.deepEqual((await validate(s, { code: 'FIX', items: cart })).body, { valid: true, reason: null, subtotal: 29, discount: 29, total: 0, freeShipping: false });
    await promo(s, { code: 'SHIP', type: 'free_shipping' });
    assert.equal((await validate(s, { code: 'SHIP', items: cart })).body.freeShipping, true);
    await promo(s, { code: 'TEAONLY', type: 'percentage', value: 50, productIds: [tea.id] });
    assert.equal((await validate(s, { code: 'TEAONLY', items: cart })).body.discount, 12.5);

    const reason = async (code: string, body: Record<string, unknown> = { items: cart }) => {
      const res = await validate(s, { code, ...body });
      assert.equal(res.status, 200, res.text);
      if (res.body.reason) {
        assert.equal(res.body.valid, false);
        assert.equal(res.body.discount, 0);
        assert.equal(res.body.total, res.body.subtotal);
      }
      return res.body.reason;
    };
    assert.equal(await reason('NOPE'), 'not_found');
    await promo(s, { code: 'OFF', type: 'fixed', value: 1, active: false });
    assert.equal(await reason('OFF'), 'inactive');
    await promo(s, { code: 'LATER', type: 'fixed', value: 1, startsAt: new Date(Date.now() + 86_400_000).toISOString() });
    assert.equal(await reason('LATER'), 'not_started');
    await promo(s, { code: 'GONE', type: 'fixed', value: 1, endsAt: new Date(Date.now() - 1000).toISOString() });
    assert.equal(await reason('GONE'), 'expired');
    await promo(s, { code: 'MIN', type: 'fixed', value: 1, minSubtotal: 30 });
    assert.equal(await reason('MIN'), 'min_subtotal');
    await promo(s, { code: 'CUPONLY', type: 'fixed', value: 1, productIds: [cup.id] });
    assert.equal(await reason('CUPONLY', { items: [{ productId: tea.id, quantity: 1 }] }), 'not_applicable');
    await promo(s, { code: 'ONCE', type: 'fixed', value: 1, maxUses: 1 });
    assert.equal((await createOrder(s, { items: cart, promoCode: 'ONCE' })).status, 201);
    assert.equal(await reason('ONCE'), 'max_uses');
    await promo(s, { code: 'PERCUST', type: 'fixed', value: 1, maxUsesPerCustomer: 1 });
    assert.equal((await createOrder(s, { items: cart, promoCode: 'PERCUST', customerPhone: '+213 555 12 34 56' })).status, 201);
    assert.equal(await reason('PERCUST', { items: cart, customerPhone: '+213555123456' }), 'max_uses_customer');
    assert.equal(await reason('PERCUST', { items: cart, customerPhone: '+213555000000' }), null);

    // From an order: its items and customer.
    const o = await createOrder(s, { items: [{ productId: tea.id, quantity: 4 }], customerPhone: '+213-555-123-456' });
    const fromOrder = await validate(s, { code: 'PCT', orderId: o.body.id });
    assert.deepEqual(fromOrder.body, { valid: true, reason: null, subtotal: 50, discount: 5, total: 45, freeShipping: false });
    assert.equal(await reason('PERCUST', { orderId: o.body.id }), 'max_uses_customer');

    // Clients cannot set prices; a store the code is not in does not know it.
    assertProblem(await validate(s, { code: 'PCT', items: [{ productId: tea.id, quantity: 1, price: 0.01 }] }), 400, 'VALIDATION_FAILED');
    const elsewhere = await ownerWithStore(api);
    assert.equal((await validate(elsewhere, { code: 'PCT', items: [] })).body.reason, 'not_found');
    assertProblem(await api('POST', '/v1/promos/validate', { body: { code: 'PCT', items: [] } }), 400, 'VALIDATION_FAILED');
    assert.equal(pct.uses, 0);
  });

  test('orders take the discount, count one use, and an unusable code is a 409 with the reason', async () => {
    const s = await ownerWithStore(api);
    const tea = await product(s, 20);
    const created = await promo(s, { code: 'TEN', type: 'percentage', value: 10, maxUses: 1 });
    const first = await createOrder(s, { items: [{ productId: tea.id, quantity: 3 }], promoCode: 'ten' });
    assert.equal(first.status, 201, first.text);
    assert.equal(first.body.promoCode, 'TEN');
    assert.equal(first.body.discount, 6);
    assert.equal(first.body.total, 54);
    assert.equal((await api('GET', promos(s, `/${created.id}`), { token: s.token })).body.uses, 1);

    const before = (await api('GET', `/v1/stores/${s.storeId}/orders`, { token: s.token })).body.data.length;
    const refused = await createOrder(s, { items: [{ productId: tea.id, quantity: 1 }], promoCode: 'TEN' });
    assertProblem(refused, 409, 'CONFLICT');
    assert.match(refused.body.detail, /max_uses/);
    assert.deepEqual(refused.body.errors, [{ path: 'promoCode', message: 'max_uses' }]);
    const unknown = await createOrder(s, { items: [{ productId: tea.id, quantity: 1 }], promoCode: 'NOPE' });
    assertProblem(unknown, 409, 'CONFLICT');
    assert.match(unknown.body.detail, /not_found/);
    assert.equal((await api('GET', `/v1/stores/${s.storeId}/orders`, { token: s.token })).body.data.length, before, 'no order was created');
  });

  test('20 concurrent checkouts never exceed maxUses', async () => {
    const s = await ownerWithStore(api);
    const tea = await product(s, 20);
    const created = await promo(s, { code: 'RUSH', type: 'fixed', value: 5, maxUses: 5 });
    const results = await Promise.all(Array.from({ length: 20 }, () => createOrder(s, { items: [{ productId: tea.id, quantity: 1 }], promoCode: 'RUSH' })));
    for (const r of results) assert.ok(r.status === 201 || (r.status === 409 && /max_uses/.test(r.body.detail)), `unexpected ${r.status} ${r.text}`);
    const won = results.filter((r) => r.status === 201);
    assert.equal(won.length, 5);
    for (const r of won) assert.equal(r.body.discount, 5);
    assert.equal((await api('GET', promos(s, `/${created.id}`), { token: s.token })).body.uses, 5);
  });
});

describe('per-customer caps count a phone however it is typed', () => {
  const VARIANTS = [
    '+213555123456',
    '+213 555 12 34 56',
    '0555 12 34 56',
    '０５５５１２３４５６',
    '＋２１３ ５５５ １２３ ４５６',
    '٠٥٥٥١٢٣٤٥٦',
    '۰۵۵۵-۱۲-۳۴-۵۶',
    '00213 555 123 456',
    '(0555) 123-456',
    '𝟎𝟓𝟓𝟓𝟏𝟐𝟑𝟒𝟓𝟔',
  ];

  test(`30 parallel orders with ${VARIANTS.length} spellings of one Algerian phone: exactly maxUsesPerCustomer (3) take the code`, async () => {
    const s = await ownerWithStore(api);
    const tea = await product(s, 20);
    const created = await promo(s, { code: 'ONEPHONE', type: 'fixed', value: 1, maxUsesPerCustomer: 3 });
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        createOrder(s, { items: [{ productId: tea.id, quantity: 1 }], promoCode: 'ONEPHONE', customerPhone: VARIANTS[i % VARIANTS.length], shippingAddress: { country: 'DZ', wilayaCode: '16' } }),
      ),
    );
    for (const r of results) assert.ok(r.status === 201 || (r.status === 409 && /max_uses_customer/.test(r.body.detail)), `unexpected ${r.status} ${r.text}`);
    assert.equal(results.filter((r) => r.status === 201).length, 3, results.map((r) => r.status).join(','));
    assert.equal((await api('GET', promos(s, `/${created.id}`), { token: s.token })).body.uses, 3);
    // Validation agrees for the international spellings (no country needed) and for an order's own.
    for (const customerPhone of ['+213555123456', '＋２１３５５５１２３４５６', '00213555123456']) {
      const v = await validate(s, { code: 'ONEPHONE', items: [{ productId: tea.id, quantity: 1 }], customerPhone });
      assert.equal(v.body.reason, 'max_uses_customer', customerPhone);
    }
    const other = await createOrder(s, { items: [{ productId: tea.id, quantity: 1 }], promoCode: 'ONEPHONE', customerPhone: '0555 00 00 00', shippingAddress: { country: 'DZ' } });
    assert.equal(other.status, 201, 'another customer still may');
  });
});

describe('validate rate limit', () => {
  test('60 calls a minute per IP, then 429 with Retry-After', async () => {
    const own = await startTestService();
    try {
      const a = client(own.url);
      const s = await ownerWithStore(a);
      const call = () => a('POST', `/v1/promos/validate?storeId=${s.storeId}`, { body: { code: 'ANY', items: [] } });
      const results = await Promise.all(Array.from({ length: 60 }, call));
      assert.deepEqual([...new Set(results.map((r) => r.status))], [200]);
      const limited = await call();
      assertProblem(limited, 429, 'RATE_LIMITED');
      assert.ok(Number(limited.headers.get('retry-after')) > 0);
    } finally {
      await own.close();
    }
  });
});
