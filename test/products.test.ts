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

const FIELDS = ['allowBackorder', 'compareAtPrice', 'createdAt', 'description', 'id', 'images', 'metadata', 'name', 'photoUrl', 'price', 'sku', 'slug', 'status', 'stock', 'storeId', 'updatedAt'];
const url = (storeId: string, id = '') => `/v1/stores/${storeId}/products${id ? `/${id}` : ''}`;
const sql = (query: string, params: unknown[] = []) => svc.service.deps.orm.em.fork().getConnection().execute(query, params);

/** A 400 VALIDATION_FAILED naming exactly this field path. */
function assertInvalidAt(res: ApiResponse, path: string) {
  assertProblem(res, 400, 'VALIDATION_FAILED');
  assert.deepEqual(
    res.body.errors.map((e: { path: string }) => e.path),
    [path],
    res.text,
  );
}

describe('CRUD', () => {
  test('create answers 201 with every field and defaults; show, update, delete', async () => {
    const s = await ownerWithStore(api);
    const created = await api('POST', url(s.storeId), { token: s.token, body: { name: 'Green Tea', price: 19.99 } });
    assert.equal(created.status, 201, created.text);
    const p = created.body;
    assert.deepEqual(Object.keys(p).sort(), FIELDS);
    assert.match(p.id, /^prod_/);
    assert.equal(p.storeId, s.storeId);
    assert.equal(p.slug, 'green-tea');
    assert.equal(p.price, 19.99);
    assert.equal(p.stock, 0);
    assert.equal(p.status, 'active');
    assert.equal(p.sku, null);
    assert.equal(p.allowBackorder, false);
    assert.deepEqual(p.metadata, {});
    assert.deepEqual([p.description, p.compareAtPrice, p.photoUrl, p.images], [null, null, null, []]);
    assert.match(p.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.deepEqual((await api('GET', url(s.storeId, p.id), { token: s.token })).body, p);

    const patched = await api('PATCH', url(s.storeId, p.id), { token: s.token, body: { name: 'Mint Tea', price: 5, stock: 3, status: 'draft', metadata: { origin: 'MA' } } });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.body.name, 'Mint Tea');
    assert.equal(patched.body.slug, 'green-tea', 'a rename keeps the slug');
    assert.equal(patched.body.price, 5);
    assert.equal(patched.body.stock, 3);
    assert.equal(patched.body.status, 'draft');
    assert.deepEqual(patched.body.metadata, { origin: 'MA' });
    assert.ok(patched.body.updatedAt >= p.updatedAt);

    const del = await api('DELETE', url(s.storeId, p.id), { token: s.token });
    assert.equal(del.status, 204);
    assert.equal(del.text, '');
    assertProblem(await api('GET', url(s.storeId, p.id), { token: s.token }), 404, 'NOT_FOUND');
    assertProblem(await api('PATCH', url(s.storeId, p.id), { token: s.token, body: { name: 'x' } }), 404, 'NOT_FOUND');
    assertProblem(await api('DELETE', url(s.storeId, p.id), { token: s.token }), 404, 'NOT_FOUND');
  });

  test('lists are newest first, paginate with a cursor and filter by status', async () => {
    const s = await ownerWithStore(api);
    const ids: string[] = [];
    for (const [name, status] of [['A', 'active'], ['B', 'draft'], ['C', 'active']]) {
      ids.push((await api('POST', url(s.storeId), { token: s.token, body: { name, price: 1, status } })).body.id);
    }
    const first = await api('GET', `${url(s.storeId)}?limit=2`, { token: s.token });
    assert.deepEqual(first.body.data.map((p: { id: string }) => p.id), [ids[2], ids[1]]);
    assert.ok(first.body.nextCursor);
    const second = await api('GET', `${url(s.storeId)}?limit=2&cursor=${first.body.nextCursor}`, { token: s.token });
    assert.deepEqual(second.body.data.map((p: { id: string }) => p.id), [ids[0]]);
    assert.equal(second.body.nextCursor, null);
    const drafts = await api('GET', `${url(s.storeId)}?status=draft`, { token: s.token });
    assert.deepEqual(drafts.body.data.map((p: { id: string }) => p.id), [ids[1]]);
    assertInvalidAt(await api('GET', `${url(s.storeId)}?limit=0`, { token: s.token }), 'limit');
  });

  test('a product of another store is not found through this one', async () => {
    const a = await ownerWithStore(api);
    const b = await ownerWithStore(api);
    const p = (await api('POST', url(a.storeId), { token: a.token, body: { name: 'Mine', price: 1 } })).body;
    assertProblem(await api('GET', url(b.storeId, p.id), { token: b.token }), 404, 'NOT_FOUND');
    assertProblem(await api('DELETE', url(b.storeId, p.id), { token: b.token }), 404, 'NOT_FOUND');
  });
});

describe('validation', () => {
  test('bad fields answer 400 at their path and create nothing', async () => {
    const s = await ownerWithStore(api);
    const post = (body: unknown) => api('POST', url(s.storeId), { token: s.token, body });
    assertInvalidAt(await post({ price: 1 }), 'name');
    assertInvalidAt(await post({ name: '', price: 1 }), 'name');
    assertInvalidAt(await post({ name: 'x' }), 'price');
    assertInvalidAt(await post({ name: 'x', price: -1 }), 'price');
    assertInvalidAt(await post({ name: 'x', price: 'cheap' }), 'price');
    assertInvalidAt(await post({ name: 'x', price: 1.999 }), 'price');
    assertInvalidAt(await post({ name: 'x', price: 1, stock: 1.5 }), 'stock');
    assertInvalidAt(await post({ name: 'x', price: 1, status: 'sold' }), 'status');
    assertInvalidAt(await post({ name: 'x', price: 1, slug: 'Not A Slug' }), 'slug');
    assertInvalidAt(await post({ name: 'x', price: 1, colour: 'red' }), 'colour');
    assertInvalidAt(await post({ name: 'x', price: 1, photoUrl: 'javascript:alert(1)' }), 'photoUrl');
    assertInvalidAt(await post({ name: 'x', price: 1, images: ['https://ok.example/a.png', 'data:image/png;base64,AA'] }), 'images');
    assertInvalidAt(await post({ name: 'x', price: 1, compareAtPrice: 1.999 }), 'compareAtPrice');
    assertInvalidAt(await post({ name: 'x', price: 1, description: 'd'.repeat(20_001) }), 'description');
    assertProblem(await api('POST', url(s.storeId), { token: s.token, raw: '{"name": ' }), 400, 'BAD_REQUEST');
    assert.equal((await api('GET', url(s.storeId), { token: s.token })).body.data.length, 0);

    const p = (await post({ name: 'ok', price: 1 })).body;
    const patch = (body: unknown) => api('PATCH', url(s.storeId, p.id), { token: s.token, body });
    assertInvalidAt(await patch({ price: 0.001 }), 'price');
    assertInvalidAt(await patch({ status: 'gone' }), 'status');
    assertInvalidAt(await patch({ name: '' }), 'name');
    assert.equal((await api('GET', url(s.storeId, p.id), { token: s.token })).body.price, 1);
  });

  test('the shop-front fields: description, compare-at price, photo and images are written and read back', async () => {
    const s = await ownerWithStore(api);
    const shown = { description: 'Hand-made', compareAtPrice: 25.5, photoUrl: 'https://cdn.example/p.jpg', images: ['https://cdn.example/1.jpg', 'https://cdn.example/2.jpg'] };
    const p = (await api('POST', url(s.storeId), { token: s.token, body: { name: 'Pot', price: 19.99, ...shown } })).body;
    assert.deepEqual({ description: p.description, compareAtPrice: p.compareAtPrice, photoUrl: p.photoUrl, images: p.images }, shown);
    const cleared = await api('PATCH', url(s.storeId, p.id), { token: s.token, body: { compareAtPrice: null, images: [] } });
    assert.equal(cleared.status, 200, cleared.text);
    assert.deepEqual([cleared.body.compareAtPrice, cleared.body.images, cleared.body.description], [null, [], 'Hand-made']);
  });
});

describe('slugs', () => {
  test('derived from the name when omitted, unique per store: derived ones take a suffix, explicit ones 409', async () => {
    const s = await ownerWithStore(api);
    const make = (body: Record<string, unknown>) => api('POST', url(s.storeId), { token: s.token, body: { price: 1, ...body } });
    assert.equal((await make({ name: 'Thé à la Menthe!' })).body.slug, 'the-a-la-menthe');
    assert.equal((await make({ name: 'Thé à la menthe' })).body.slug, 'the-a-la-menthe-2');
    assert.equal((await make({ name: 'THE A LA MENTHE' })).body.slug, 'the-a-la-menthe-3');
    assertProblem(await make({ name: 'Other', slug: 'the-a-la-menthe' }), 409, 'CONFLICT');
    const chosen = await make({ name: 'Other', slug: 'house-blend' });
    assert.equal(chosen.status, 201);
    assert.equal(chosen.body.slug, 'house-blend');
    const moved = await make({ name: 'Moving' });
    assertProblem(await api('PATCH', url(s.storeId, moved.body.id), { token: s.token, body: { slug: 'house-blend' } }), 409, 'CONFLICT');
    assert.equal((await api('PATCH', url(s.storeId, moved.body.id), { token: s.token, body: { slug: 'moved' } })).body.slug, 'moved');
    // Another store may use the same slugs.
    const other = await ownerWithStore(api);
    assert.equal((await api('POST', url(other.storeId), { token: other.token, body: { name: 'x', price: 1, slug: 'house-blend' } })).status, 201);
  });

  test('concurrent creates of one name get distinct slugs or 409, never a duplicate', async () => {
    const s = await ownerWithStore(api);
    const results = await Promise.all(Array.from({ length: 20 }, () => api('POST', url(s.storeId), { token: s.token, body: { name: 'Rush', price: 1 } })));
    for (const r of results) assert.ok(r.status === 201 || r.status === 409, r.text);
    const created = results.filter((r) => r.status === 201).map((r) => r.body.slug);
    assert.ok(created.length >= 1);
    assert.equal(new Set(created).size, created.length);
    const rows = await sql('select slug, count(*)::int as n from products where store_id = ? group by slug having count(*) > 1', [s.storeId]);
    assert.deepEqual(rows, []);
  });
});

describe('money', () => {
  test('prices are exact minor units inside and the same major-unit numbers outside', async () => {
    const s = await ownerWithStore(api);
    for (const price of [0.1, 0.2, 0.3, 19.99, 1234567.89, 0]) {
      const p = (await api('POST', url(s.storeId), { token: s.token, body: { name: `P ${price}`, price } })).body;
      assert.equal(p.price, price);
      const [row] = await sql('select price from products where id = ?', [p.id]);
      assert.equal(Number(row.price), Math.round(price * 100));
    }
  });

  test('a 0-decimal currency (JPY) refuses 19.5 at price and takes 20', async () => {
    const owner = await signup(api);
    const store = await api('POST', '/v1/stores', { token: owner.token, body: { name: 'Tokyo', currency: 'JPY' } });
    assert.equal(store.body.currency, 'JPY');
    assertInvalidAt(await api('POST', url(store.body.id), { token: owner.token, body: { name: 'Yuzu', price: 19.5 } }), 'price');
    const ok = await api('POST', url(store.body.id), { token: owner.token, body: { name: 'Yuzu', price: 20 } });
    assert.equal(ok.status, 201, ok.text);
    assert.equal(ok.body.price, 20);
    const [row] = await sql('select price from products where id = ?', [ok.body.id]);
    assert.equal(Number(row.price), 20);
  });
});

describe('who may do what', () => {
  test('every member reads; editors and up write; strangers get 404, no token 401', async () => {
    const s = await ownerWithStore(api);
    const p = (await api('POST', url(s.storeId), { token: s.token, body: { name: 'Base', price: 1 } })).body;
    const roles = ['viewer', 'editor', 'admin'] as const;
    const members = Object.fromEntries(await Promise.all(roles.map(async (r) => [r, (await memberWithRole(api, s.token, s.storeId, r)).token] as const)));
    for (const role of roles) {
      const token = members[role];
      assert.equal((await api('GET', url(s.storeId), { token })).status, 200, role);
      assert.equal((await api('GET', url(s.storeId, p.id), { token })).status, 200, role);
      const create = await api('POST', url(s.storeId), { token, body: { name: `By ${role}`, price: 1 } });
      const update = await api('PATCH', url(s.storeId, p.id), { token, body: { stock: 7 } });
      if (role === 'viewer') {
        assertProblem(create, 403, 'FORBIDDEN');
        assertProblem(update, 403, 'FORBIDDEN');
        assertProblem(await api('DELETE', url(s.storeId, p.id), { token }), 403, 'FORBIDDEN');
      } else {
        assert.equal(create.status, 201, `${role}: ${create.text}`);
        assert.equal(update.status, 200, `${role}: ${update.text}`);
        assert.equal((await api('DELETE', url(s.storeId, create.body.id), { token })).status, 204, role);
      }
    }
    const stranger = await signup(api);
    assertProblem(await api('GET', url(s.storeId), { token: stranger.token }), 404, 'NOT_FOUND');
    assertProblem(await api('POST', url(s.storeId), { token: stranger.token, body: { name: 'x', price: 1 } }), 404, 'NOT_FOUND');
    assertProblem(await api('GET', url(s.storeId)), 401, 'UNAUTHENTICATED');
    assertProblem(await api('GET', url(s.storeId), { token: 'souk_st_unknown' }), 401, 'UNAUTHENTICATED');
  });

  test('OAuth: store.read reads, store.products writes, within the granting role (scope ∩ role)', async () => {
    const s = await ownerWithStore(api);
    const editor = await memberWithRole(api, s.token, s.storeId, 'editor');
    const viewer = await memberWithRole(api, s.token, s.storeId, 'viewer');
    const body = { name: 'From an app', price: 2.5 };

    const reader = await oauthAppToken(api, editor.token, ['store.read']);
    assert.equal((await api('GET', url(s.storeId), { token: reader })).status, 200);
    assertProblem(await api('POST', url(s.storeId), { token: reader, body }), 403, 'FORBIDDEN');

    const writer = await oauthAppToken(api, editor.token, ['store.products']);
    const created = await api('POST', url(s.storeId), { token: writer, body });
    assert.equal(created.status, 201, created.text);
    assert.equal((await api('PATCH', url(s.storeId, created.body.id), { token: writer, body: { price: 3 } })).body.price, 3);
    assertProblem(await api('GET', url(s.storeId), { token: writer }), 403, 'FORBIDDEN');

    const wrongScope = await oauthAppToken(api, s.token, ['store.orders', 'store.read']);
    assertProblem(await api('POST', url(s.storeId), { token: wrongScope, body }), 403, 'FORBIDDEN');

    const viewerApp = await oauthAppToken(api, viewer.token, ['store.products', 'store.read']);
    assert.equal((await api('GET', url(s.storeId), { token: viewerApp })).status, 200);
    assertProblem(await api('POST', url(s.storeId), { token: viewerApp, body }), 403, 'FORBIDDEN');
    assertProblem(await api('DELETE', url(s.storeId, created.body.id), { token: viewerApp }), 403, 'FORBIDDEN');
  });
});

describe('GraphQL twins', () => {
  test('products(storeId) is a ProductPage { data, nextCursor } with the REST fields', async () => {
    const s = await ownerWithStore(api);
    const p = (await api('POST', url(s.storeId), { token: s.token, body: { name: 'Twin', price: 0.5 } })).body;
    const res = await api('POST', '/graphql', {
      token: s.token,
      body: { query: `query($s: ID!) { products(storeId: $s) { __typename data { ${FIELDS.join(' ')} } nextCursor } }`, variables: { s: s.storeId } },
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.products.__typename, 'ProductPage');
    assert.deepEqual(res.body.data.products.data, [p]);
    assert.equal(res.body.data.products.nextCursor, null);
  });
});
