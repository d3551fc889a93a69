import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertProblem, client, memberWithRole, oauthAppToken, ownerWithStore, signup, startTestService, type Api, type ApiResponse, type TestService } from './helpers.js';

let svc: TestService;
let api: Api;

before(async () => {
  svc = await startTestService();
  api = client(svc.url);
});
after(() => svc.close());

const FIELDS = [
  'confirmedAt',
  'createdAt',
  'currency',
  'customerEmail',
  'customerIp',
  'customerName',
  'customerPhone',
  'discount',
  'fulfillment',
  'id',
  'items',
  'landingPageId',
  'metadata',
  'note',
  'paymentMethod',
  'paymentStatus',
  'promoCode',
  'rejectReason',
  'risk',
  'shippingAddress',
  'shippingCost',
  'shippingMethodId',
  'shippingType',
  'source',
  'status',
  'statusId',
  'storeId',
  'total',
  'updatedAt',
];
const url = (storeId: string, id = '') => `/v1/stores/${storeId}/orders${id ? `/${id}` : ''}`;
const sql = (query: string, params: unknown[] = []) => svc.service.deps.orm.em.fork().getConnection().execute(query, params);

function assertInvalidAt(res: ApiResponse, path: string) {
  assertProblem(res, 400, 'VALIDATION_FAILED');
  assert.deepEqual(
    res.body.errors.map((e: { path: string }) => e.path),
    [path],
    res.text,
  );
}

async function product(s: { token: string; storeId: string }, name: string, price: number) {
  const res = await api('POST', `/v1/stores/${s.storeId}/products`, { token: s.token, body: { name, price } });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

describe('CRUD', () => {
  test('create answers 201 with every field, the first status and the store currency; show, update, delete', async () => {
    const s = await ownerWithStore(api);
    const tea = await product(s, 'Tea', 2.5);
    const created = await api('POST', url(s.storeId), {
      token: s.token,
      body: { customerName: '  Ada  ', customerPhone: '+213555000000', items: [{ productId: tea.id, quantity: 2 }, { name: 'Cup', price: 1.25 }], metadata: { channel: 'web' } },
    });
    assert.equal(created.status, 201, created.text);
    // The payment token is in the create response only (CONTRACT-2 section 9).
    const { paymentToken, ...o } = created.body;
    assert.match(paymentToken, /^opt_/);
    assert.deepEqual(Object.keys(o).sort(), FIELDS);
    assert.match(o.id, /^ord_/);
    assert.equal(o.storeId, s.storeId);
    assert.equal(o.customerName, 'Ada');
    assert.deepEqual(o.items, [
      { productId: tea.id, name: 'Tea', quantity: 2, price: 2.5 },
      { productId: null, name: 'Cup', quantity: 1, price: 1.25 },
    ]);
    assert.equal(o.total, 6.25);
    assert.equal(o.currency, 'DZD');
    assert.equal(o.status, 'pending');
    assert.match(o.statusId, /^sts_/);
    assert.equal(o.paymentStatus, 'unpaid');
    assert.equal(o.shippingCost, 0);
    assert.equal(o.discount, 0);
    assert.equal(o.confirmedAt, null);
    assert.deepEqual(o.metadata, { channel: 'web' });
    assert.deepEqual((await api('GET', url(s.storeId, o.id), { token: s.token })).body, o);

    const patched = await api('PATCH', url(s.storeId, o.id), { token: s.token, body: { customerName: 'Grace', items: [{ name: 'Pot', price: 10, quantity: 1 }], status: 'confirmed' } });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.body.customerName, 'Grace');
    assert.equal(patched.body.total, 10);
    assert.equal(patched.body.status, 'confirmed');
    assert.ok(patched.body.confirmedAt);
    assert.equal(patched.body.customerPhone, '+213555000000');

    assert.equal((await api('DELETE', url(s.storeId, o.id), { token: s.token })).status, 204);
    assertProblem(await api('GET', url(s.storeId, o.id), { token: s.token }), 404, 'NOT_FOUND');
    assertProblem(await api('DELETE', url(s.storeId, o.id), { token: s.token }), 404, 'NOT_FOUND');
  });

  test('an order of another store is not found through this one; a product of another store is not an item', async () => {
    const a = await ownerWithStore(api);
    const b = await ownerWithStore(api);
    const o = (await api('POST', url(a.storeId), { token: a.token, body: { customerName: 'A' } })).body;
    assert.equal(o.total, 0);
    assert.deepEqual(o.items, []);
    assertProblem(await api('GET', url(b.storeId, o.id), { token: b.token }), 404, 'NOT_FOUND');
    const foreign = await product(a, 'Theirs', 1);
    assertInvalidAt(await api('POST', url(b.storeId), { token: b.token, body: { customerName: 'B', items: [{ productId: foreign.id }] } }), 'items.0.productId');
  });
});

describe('validation', () => {
  test('bad fields answer 400 at their path and create nothing', async () => {
    const s = await ownerWithStore(api);
    const post = (body: unknown) => api('POST', url(s.storeId), { token: s.token, body });
    assertInvalidAt(await post({ items: [] }), 'customerName');
    assertInvalidAt(await post({ customerName: '' }), 'customerName');
    assertInvalidAt(await post({ customerName: 'x', items: [{ name: 'a', price: 1, quantity: 0 }] }), 'items.0.quantity');
    assertInvalidAt(await post({ customerName: 'x', items: [{ name: 'a', price: 1 }, { name: 'b', price: -1 }] }), 'items.1.price');
    assertInvalidAt(await post({ customerName: 'x', items: [{ name: 'a', price: 1 }, { name: 'b', price: 0.001 }] }), 'items.1.price');
    assertInvalidAt(await post({ customerName: 'x', items: [{ price: 1 }] }), 'items.0.name');
    assertInvalidAt(await post({ customerName: 'x', items: [{ name: 'a' }] }), 'items.0.price');
    assertInvalidAt(await post({ customerName: 'x', items: [{ productId: 'prod_missing' }] }), 'items.0.productId');
    assertInvalidAt(await post({ customerName: 'x', items: [{ name: 'a', price: 1, colour: 'red' }] }), 'items.0.colour');
    assertInvalidAt(await post({ customerName: 'x', total: 5 }), 'total');
    assert.equal((await api('GET', url(s.storeId), { token: s.token })).body.data.length, 0);

    const o = (await post({ customerName: 'ok' })).body;
    assertInvalidAt(await api('PATCH', url(s.storeId, o.id), { token: s.token, body: { status: 'lost' } }), 'status');
    assertInvalidAt(await api('PATCH', url(s.storeId, o.id), { token: s.token, body: { items: [{ name: 'a', price: 2.345 }] } }), 'items.0.price');
    assertInvalidAt(await api('GET', `${url(s.storeId)}?createdAfter=yesterday`, { token: s.token }), 'createdAfter');
  });
});

describe('totals', () => {
  test('sums are exact: 0.1 + 0.2 is 0.3, 3 × 0.1 is 0.3, and product prices count by quantity', async () => {
    const s = await ownerWithStore(api);
    const post = async (items: unknown[]) => {
      const res = await api('POST', url(s.storeId), { token: s.token, body: { customerName: 'Sum', items } });
      assert.equal(res.status, 201, res.text);
      return res.body;
    };
    assert.equal((await post([{ name: 'a', price: 0.1 }, { name: 'b', price: 0.2 }])).total, 0.3);
    assert.equal((await post([{ name: 'a', price: 0.1, quantity: 3 }])).total, 0.3);
    assert.equal((await post([{ name: 'a', price: 19.99, quantity: 3 }, { name: 'b', price: 0.01 }])).total, 59.98);
    const p = await product(s, 'Dear', 1234567.89);
    const big = await post([{ productId: p.id, quantity: 7 }]);
    assert.equal(big.total, 8641975.23);
    const [row] = await sql('select total, items from orders where id = ?', [big.id]);
    assert.equal(Number(row.total), 864197523);
    assert.equal(Number(row.items[0].price), 123456789);
    // An item's own price wins over its product's.
    assert.equal((await post([{ productId: p.id, price: 0.7 }, { name: 'b', price: 0.6 }])).total, 1.3);
  });

  test('a 0-decimal currency (JPY): 19.5 is refused at the item, 20 is fine, and the order carries JPY', async () => {
    const owner = await signup(api);
    const store = (await api('POST', '/v1/stores', { token: owner.token, body: { name: 'Osaka', currency: 'JPY' } })).body;
    const s = { token: owner.token, storeId: store.id };
    assertInvalidAt(await api('POST', url(s.storeId), { token: s.token, body: { customerName: 'K', items: [{ name: 'Yuzu', price: 19.5 }] } }), 'items.0.price');
    const ok = await api('POST', url(s.storeId), { token: s.token, body: { customerName: 'K', items: [{ name: 'Yuzu', price: 20, quantity: 2 }] } });
    assert.equal(ok.status, 201, ok.text);
    assert.equal(ok.body.total, 40);
    assert.equal(ok.body.currency, 'JPY');
    const [row] = await sql('select total from orders where id = ?', [ok.body.id]);
    assert.equal(Number(row.total), 40);
  });
});

describe('who may do what', () => {
  test('every member reads; editors and up write and move orders; strangers get 404', async () => {
    const s = await ownerWithStore(api);
    const o = (await api('POST', url(s.storeId), { token: s.token, body: { customerName: 'Base' } })).body;
    for (const role of ['viewer', 'editor', 'admin'] as const) {
      const { token } = await memberWithRole(api, s.token, s.storeId, role);
      assert.equal((await api('GET', url(s.storeId), { token })).status, 200, role);
      assert.equal((await api('GET', url(s.storeId, o.id), { token })).status, 200, role);
      assert.equal((await api('GET', `${url(s.storeId)}/counts`, { token })).status, 200, role);
      const create = await api('POST', url(s.storeId), { token, body: { customerName: role } });
      const update = await api('PATCH', url(s.storeId, o.id), { token, body: { customerName: `Touched by ${role}` } });
      const confirm = await api('POST', `${url(s.storeId, o.id)}/confirm`, { token });
      if (role === 'viewer') {
        for (const r of [create, update, confirm]) assertProblem(r, 403, 'FORBIDDEN');
        assertProblem(await api('DELETE', url(s.storeId, o.id), { token }), 403, 'FORBIDDEN');
      } else {
        assert.equal(create.status, 201, `${role}: ${create.text}`);
        assert.equal(update.status, 200, `${role}: ${update.text}`);
        assert.equal(confirm.status, 200, `${role}: ${confirm.text}`);
        assert.equal((await api('DELETE', url(s.storeId, create.body.id), { token })).status, 204, role);
      }
    }
    const stranger = await signup(api);
    assertProblem(await api('GET', url(s.storeId, o.id), { token: stranger.token }), 404, 'NOT_FOUND');
    assertProblem(await api('POST', url(s.storeId), { token: stranger.token, body: { customerName: 'x' } }), 404, 'NOT_FOUND');
    assertProblem(await api('POST', url(s.storeId), { body: { customerName: 'x' } }), 401, 'UNAUTHENTICATED');
  });

  test('OAuth: store.read reads, store.orders writes, within the granting role (scope ∩ role)', async () => {
    const s = await ownerWithStore(api);
    const editor = await memberWithRole(api, s.token, s.storeId, 'editor');
    const viewer = await memberWithRole(api, s.token, s.storeId, 'viewer');
    const body = { customerName: 'From an app', items: [{ name: 'x', price: 1 }] };

    const reader = await oauthAppToken(api, editor.token, ['store.read']);
    assert.equal((await api('GET', url(s.storeId), { token: reader })).status, 200);
    assertProblem(await api('POST', url(s.storeId), { token: reader, body }), 403, 'FORBIDDEN');

    const writer = await oauthAppToken(api, editor.token, ['store.orders']);
    const created = await api('POST', url(s.storeId), { token: writer, body });
    assert.equal(created.status, 201, created.text);
    assert.equal((await api('POST', `${url(s.storeId, created.body.id)}/confirm`, { token: writer })).body.status, 'confirmed');

    const products = await oauthAppToken(api, s.token, ['store.products', 'store.read']);
    assertProblem(await api('POST', url(s.storeId), { token: products, body }), 403, 'FORBIDDEN');

    const viewerApp = await oauthAppToken(api, viewer.token, ['store.orders', 'store.read']);
    assert.equal((await api('GET', url(s.storeId, created.body.id), { token: viewerApp })).status, 200);
    assertProblem(await api('POST', url(s.storeId), { token: viewerApp, body }), 403, 'FORBIDDEN');
    assertProblem(await api('PATCH', url(s.storeId, created.body.id), { token: viewerApp, body: { customerName: 'No' } }), 403, 'FORBIDDEN');
  });
});

describe('GraphQL twins', () => {
  test('orders(storeId) is an OrderPage { data, nextCursor } with the REST fields', async () => {
    const s = await ownerWithStore(api);
    const o = (await api('POST', url(s.storeId), { token: s.token, body: { customerName: 'Twin', items: [{ name: 'a', price: 0.1 }, { name: 'b', price: 0.2 }] } })).body;
    const res = await api('POST', '/graphql', {
      token: s.token,
      body: { query: 'query($s: ID!) { orders(storeId: $s) { __typename data { id total currency items { price } } nextCursor } }', variables: { s: s.storeId } },
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.orders.__typename, 'OrderPage');
    assert.deepEqual(res.body.data.orders.data, [{ id: o.id, total: 0.3, currency: 'DZD', items: [{ price: 0.1 }, { price: 0.2 }] }]);
    assert.equal(res.body.data.orders.nextCursor, null);
  });
});
