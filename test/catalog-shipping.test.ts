import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertProblem, client, memberWithRole, ownerWithStore, startTestService, type Api, type TestService } from './helpers.js';
import { gql } from './catalog-helpers.js';
import { mergePatch } from '../src/lib/json.js';

let svc: TestService;
let api: Api;
let owner: Awaited<ReturnType<typeof ownerWithStore>>;

before(async () => {
  svc = await startTestService();
  api = client(svc.url);
  owner = await ownerWithStore(api);
});
after(() => svc.close());

const P = '/v1/shipping_prices';
const M = '/v1/shipping_methods';
const TABLE = { DZ: { '16': { home: 600, desk: 300.5, pickup: 0 }, '31': { home: 800, desk: null } } };

async function createPrice(storeId: string, token: string, body: Record<string, unknown> = {}) {
  const res = await api('POST', `${P}?storeId=${storeId}`, { token, body: { name: 'Yalidine rates', prices: TABLE, ...body } });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

async function createMethod(storeId: string, token: string, body: Record<string, unknown> = {}) {
  const res = await api('POST', `${M}?storeId=${storeId}`, { token, body: { name: 'Express', ...body } });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

describe('RFC 7396 merge patch', () => {
  // The examples of RFC 7396 appendix A.
  const cases: Array<[unknown, unknown, unknown]> = [
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [['a', 'b'], ['c', 'd'], ['c', 'd']],
    [{ a: 'b' }, ['c'], ['c']],
    [{ a: 'foo' }, null, null],
    [{ a: 'foo' }, 'bar', 'bar'],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ];
  for (const [target, patch, expected] of cases) {
    test(`${JSON.stringify(target)} + ${JSON.stringify(patch)}`, () => assert.deepEqual(mergePatch(target, patch), expected));
  }
  test('leaves its inputs alone and keeps a __proto__ member a member', () => {
    const target = { a: { b: 1 } };
    const out = mergePatch(target, JSON.parse('{"a": {"c": 2}, "__proto__": {"polluted": true}}')) as Record<string, unknown>;
    assert.deepEqual(target, { a: { b: 1 } });
    assert.deepEqual(out.a, { b: 1, c: 2 });
    assert.equal(Object.getPrototypeOf(out), Object.prototype);
    assert.deepEqual(Object.getOwnPropertyDescriptor(out, '__proto__')?.value, { polluted: true });
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
});

describe('shipping prices', () => {
  test('create: store currency by default, draft, every delivery type spelled out', async () => {
    const p = await createPrice(owner.storeId, owner.token);
    assert.match(p.id, /^shp_/);
    assert.equal(p.storeId, owner.storeId);
    assert.equal(p.currency, 'DZD');
    assert.equal(p.status, 'draft');
    assert.equal(p.logoUrl, null);
    assert.deepEqual(p.prices, { DZ: { '16': { home: 600, desk: 300.5, pickup: 0 }, '31': { home: 800, desk: null, pickup: null } } });
    const shown = await api('GET', `${P}/${p.id}?storeId=${owner.storeId}`, { token: owner.token });
    assert.deepEqual(shown.body, p);
    const list = await api('GET', `${P}?storeId=${owner.storeId}`, { token: owner.token });
    assert.ok(list.body.data.some((x: any) => x.id === p.id));
    const rows = await svc.service.deps.orm.em.fork().getConnection().execute('select prices from shipping_prices where id = ?', [p.id]);
    assert.equal(rows[0].prices.DZ['16'].desk, 30050, 'stored in minor units');
  });

  test('bad tables are 400 at the faulty path', async () => {
    const bad = async (body: Record<string, unknown>, path: string) => {
      const res = await api('POST', `${P}?storeId=${owner.storeId}`, { token: owner.token, body: { name: 'x', ...body } });
      assertProblem(res, 400, 'VALIDATION_FAILED');
      assert.equal(res.body.errors[0].path, path, res.text);
    };
    await bad({ prices: { DZ: { '16': { home: 1.234 } } } }, 'prices.DZ.16.home');
    await bad({ prices: { dz: { '16': { home: 1 } } } }, 'prices.dz');
    await bad({ prices: { DZ: { '16': { express: 1 } } } }, 'prices.DZ.16.express');
    await bad({ prices: { DZ: { '16': { home: -5 } } } }, 'prices.DZ.16.home');
    await bad({ prices: { DZ: { '16': { home: '5' } } } }, 'prices.DZ.16.home');
    await bad({ prices: { DZ: { 'a b': { home: 5 } } } }, 'prices.DZ.a b');
    await bad({ prices: { DZ: ['x'] } }, 'prices.DZ');
    await bad({ currency: 'JPY', prices: { JP: { '13': { home: 10.5 } } } }, 'prices.JP.13.home');
    await bad({ currency: 'XXY' }, 'currency');
    await bad({ status: 'live' }, 'status');
    const missing = await api('GET', P, { token: owner.token });
    assertProblem(missing, 400, 'VALIDATION_FAILED');
    assert.equal(missing.body.errors[0].path, 'storeId');
  });

  test('PUT replaces the table; PATCH is a merge patch (null removes a state or a type)', async () => {
    const p = await createPrice(owner.storeId, owner.token);
    const url = `${P}/${p.id}?storeId=${owner.storeId}`;
    const put = await api('PUT', url, { token: owner.token, body: { prices: { DZ: { '1': { home: 1000 } } }, status: 'published' } });
    assert.equal(put.status, 200, put.text);
    assert.deepEqual(put.body.prices, { DZ: { '1': { home: 1000, desk: null, pickup: null } } });
    assert.equal(put.body.status, 'published');
    assert.equal(put.body.name, p.name);
    assertProblem(await api('PUT', url, { token: owner.token, body: { name: 'no table' } }), 400, 'VALIDATION_FAILED');

    let res = await api('PATCH', url, {
      token: owner.token,
      headers: { 'content-type': 'application/merge-patch+json' },
      body: { name: 'Merged', prices: { DZ: { '16': { home: 500, desk: 250.5 }, '1': { desk: 700 } }, TN: { '11': { home: 12 } } } },
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.name, 'Merged');
    assert.deepEqual(res.body.prices, {
      DZ: { '1': { home: 1000, desk: 700, pickup: null }, '16': { home: 500, desk: 250.5, pickup: null } },
      TN: { '11': { home: 12, desk: null, pickup: null } },
    });
    res = await api('PATCH', url, { token: owner.token, body: { prices: { DZ: { '1': null, '16': { home: null } }, TN: null }, logoUrl: 'https://cdn.example/logo.png' } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.prices, { DZ: { '16': { home: null, desk: 250.5, pickup: null } } });
    assert.equal(res.body.logoUrl, 'https://cdn.example/logo.png');
    res = await api('PATCH', url, { token: owner.token, body: { logoUrl: null } });
    assert.equal(res.body.logoUrl, null);
    // A currency change re-reads the amounts in the new currency.
    res = await api('PATCH', url, { token: owner.token, body: { currency: 'JPY' } });
    assertProblem(res, 400, 'VALIDATION_FAILED');
    assert.equal(res.body.errors[0].path, 'prices.DZ.16.desk');
    for (const [body, path] of [
      [{ name: null }, 'name'],
      [{ id: 'shp_x' }, 'id'],
      [{ status: 'gone' }, 'status'],
      [{ prices: { DZ: { '16': { home: 0.001 } } } }, 'prices.DZ.16.home'],
    ] as const) {
      const r = await api('PATCH', url, { token: owner.token, body });
      assertProblem(r, 400, 'VALIDATION_FAILED');
      assert.equal(r.body.errors[0].path, path);
    }
    assert.equal((await api('GET', url, { token: owner.token })).body.name, 'Merged');
  });

  test('a price a method uses cannot be deleted (409); unused, it can (204)', async () => {
    const p = await createPrice(owner.storeId, owner.token);
    const m = await createMethod(owner.storeId, owner.token, { shippingPriceId: p.id });
    const url = `${P}/${p.id}?storeId=${owner.storeId}`;
    assertProblem(await api('DELETE', url, { token: owner.token }), 409, 'CONFLICT');
    await api('PATCH', `${M}/${m.id}?storeId=${owner.storeId}`, { token: owner.token, body: { shippingPriceId: null } });
    assert.equal((await api('DELETE', url, { token: owner.token })).status, 204);
    assertProblem(await api('GET', url, { token: owner.token }), 404, 'NOT_FOUND');
  });

  test('deleting a price while methods link it: never a method pointing at a deleted price (20 runs)', async () => {
    for (let run = 0; run < 20; run++) {
      const p = await createPrice(owner.storeId, owner.token);
      const [del, ...links] = await Promise.all([
        api('DELETE', `${P}/${p.id}?storeId=${owner.storeId}`, { token: owner.token }),
        ...Array.from({ length: 3 }, () => api('POST', `${M}?storeId=${owner.storeId}`, { token: owner.token, body: { name: 'race', shippingPriceId: p.id } })),
      ]);
      const linked = links.filter((l) => l.status === 201).length;
      if (del.status === 204) {
        assert.equal(linked, 0, `run ${run}: links committed after the delete`);
        for (const l of links) assertProblem(l, 400, 'VALIDATION_FAILED');
      } else {
        assertProblem(del, 409, 'CONFLICT');
        assert.ok(linked > 0);
      }
      const [{ n }] = await svc.service.deps.orm.em.fork().getConnection().execute(
        'select count(*)::int as n from shipping_methods m where m.shipping_price_id is not null and not exists (select 1 from shipping_prices p where p.id = m.shipping_price_id)',
      );
      assert.equal(n, 0);
    }
  });
});

describe('shipping methods', () => {
  test('create, read, PATCH, PUT, delete; storeId required on every method', async () => {
    const m = await createMethod(owner.storeId, owner.token, { price: 450.25, description: 'Fast', policy: 'public', status: 'published' });
    assert.match(m.id, /^shm_/);
    assert.equal(m.price, 450.25);
    assert.equal(m.shippingPriceId, null);
    assert.equal(m.sourceId, null);
    assert.equal(m.forks, 0);
    assert.equal(m.policy, 'public');
    const url = `${M}/${m.id}?storeId=${owner.storeId}`;
    assert.deepEqual((await api('GET', url, { token: owner.token })).body, m);
    const noStore = await api('GET', M, { token: owner.token });
    assertProblem(noStore, 400, 'VALIDATION_FAILED');
    assert.equal(noStore.body.errors[0].path, 'storeId');
    assertProblem(await api('GET', M), 400, 'VALIDATION_FAILED');
    assertProblem(await api('GET', `${M}/${m.id}`, { token: owner.token }), 400, 'VALIDATION_FAILED');
    const patched = await api('PATCH', url, { token: owner.token, body: { name: 'Standard', status: 'archived' } });
    assert.equal(patched.body.name, 'Standard');
    assert.equal(patched.body.status, 'archived');
    assert.equal(patched.body.price, 450.25);
    assertProblem(await api('PATCH', url, { token: owner.token, body: { price: 1.005 } }), 400, 'VALIDATION_FAILED');
    assertProblem(await api('PATCH', url, { token: owner.token, body: { policy: 'unlisted' } }), 400, 'VALIDATION_FAILED');
    const put = await api('PUT', url, { token: owner.token, body: { name: 'Replaced' } });
    assert.equal(put.body.name, 'Replaced');
    assert.equal(put.body.price, 0);
    assert.equal(put.body.description, null);
    assert.equal(put.body.policy, 'private');
    assert.equal(put.body.status, 'draft');
    const other = await ownerWithStore(api);
    const foreign = await createPrice(other.storeId, other.token);
    const res = await api('POST', `${M}?storeId=${owner.storeId}`, { token: owner.token, body: { name: 'x', shippingPriceId: foreign.id } });
    assertProblem(res, 400, 'VALIDATION_FAILED');
    assert.equal(res.body.errors[0].path, 'shippingPriceId');
    assert.equal((await api('DELETE', url, { token: owner.token })).status, 204);
    assertProblem(await api('GET', url, { token: owner.token }), 404, 'NOT_FOUND');
    const list = await api('GET', `${M}?storeId=${owner.storeId}&limit=1`, { token: owner.token });
    assert.equal(list.status, 200);
  });

  test('fork: a public method goes to any store with its own copy of the table; forks counts them', async () => {
    const seller = await ownerWithStore(api);
    const table = await createPrice(seller.storeId, seller.token, { status: 'published' });
    const source = await createMethod(seller.storeId, seller.token, { shippingPriceId: table.id, policy: 'public', status: 'published', price: 100 });
    const fork = await api('POST', `${M}/${source.id}/fork?storeId=${owner.storeId}`, { token: owner.token, body: { name: 'Our express' } });
    assert.equal(fork.status, 201, fork.text);
    assert.equal(fork.body.storeId, owner.storeId);
    assert.equal(fork.body.sourceId, source.id);
    assert.equal(fork.body.name, 'Our express');
    assert.equal(fork.body.policy, 'private');
    assert.equal(fork.body.price, 100);
    assert.ok(fork.body.shippingPriceId && fork.body.shippingPriceId !== table.id);
    const copy = await api('GET', `${P}/${fork.body.shippingPriceId}?storeId=${owner.storeId}`, { token: owner.token });
    assert.deepEqual(copy.body.prices, table.prices);
    // The seller keeps control of its own table: the fork does not pin it.
    await api('PATCH', `${M}/${source.id}?storeId=${seller.storeId}`, { token: seller.token, body: { shippingPriceId: null } });
    assert.equal((await api('DELETE', `${P}/${table.id}?storeId=${seller.storeId}`, { token: seller.token })).status, 204);
    await api('POST', `${M}/${source.id}/fork?storeId=${owner.storeId}`, { token: owner.token });
    const counted = await api('GET', `${M}/${source.id}?storeId=${seller.storeId}`, { token: seller.token });
    assert.equal(counted.body.forks, 2);
    // Private methods are forked only by members of their store.
    const priv = await createMethod(seller.storeId, seller.token);
    assertProblem(await api('POST', `${M}/${priv.id}/fork?storeId=${owner.storeId}`, { token: owner.token }), 404, 'NOT_FOUND');
    const inside = await api('POST', `${M}/${priv.id}/fork?storeId=${seller.storeId}`, { token: seller.token, body: { title: 'Copy' } });
    assert.equal(inside.status, 201);
    assert.equal(inside.body.name, 'Copy');
  });
});

describe('quotes and orders', () => {
  test('GraphQL shippingQuote: the table for a linked price, the flat price otherwise', async () => {
    const p = await createPrice(owner.storeId, owner.token);
    const m = await createMethod(owner.storeId, owner.token, { shippingPriceId: p.id });
    const flat = await createMethod(owner.storeId, owner.token, { price: 350 });
    const q = `query($s: ID!, $m: ID!, $c: String!, $st: String, $t: ShippingType!) { shippingQuote(storeId: $s, methodId: $m, country: $c, state: $st, type: $t) { methodId country state type available price currency } }`;
    let r = await gql(svc.url, owner.token, q, { s: owner.storeId, m: m.id, c: 'dz', st: '16', t: 'desk' });
    assert.deepEqual(r.data.shippingQuote, { methodId: m.id, country: 'DZ', state: '16', type: 'desk', available: true, price: 300.5, currency: 'DZD' });
    r = await gql(svc.url, owner.token, q, { s: owner.storeId, m: m.id, c: 'DZ', st: '31', t: 'desk' });
    assert.equal(r.data.shippingQuote.available, false);
    assert.equal(r.data.shippingQuote.price, null);
    r = await gql(svc.url, owner.token, q, { s: owner.storeId, m: m.id, c: 'DZ', st: '016', t: 'home' });
    assert.equal(r.data.shippingQuote.price, 600, 'numeric state codes compare without leading zeros');
    r = await gql(svc.url, owner.token, q, { s: owner.storeId, m: flat.id, c: 'FR', st: null, t: 'pickup' });
    assert.equal(r.data.shippingQuote.price, 350);
    r = await gql(svc.url, owner.token, q, { s: owner.storeId, m: m.id, c: 'DZ', st: '16', t: 'drone' });
    assert.equal(r.errors?.[0].extensions.code, 'VALIDATION_FAILED');
    const stranger = await ownerWithStore(api);
    r = await gql(svc.url, stranger.token, q, { s: owner.storeId, m: m.id, c: 'DZ', st: '16', t: 'home' });
    assert.equal(r.errors?.[0].extensions.code, 'NOT_FOUND');
  });

  test('an order with a shipping method gets shippingCost and total = items + shipping', async () => {
    const p = await createPrice(owner.storeId, owner.token);
    const m = await createMethod(owner.storeId, owner.token, { shippingPriceId: p.id });
    const url = `/v1/stores/${owner.storeId}/orders`;
    const items = [{ name: 'Mug', price: 1200.5, quantity: 2 }];
    const res = await api('POST', url, {
      token: owner.token,
      body: { customerName: 'Amina', items, shippingMethodId: m.id, shippingType: 'desk', shippingAddress: { address: '1 rue Didouche', communeName: 'Alger Centre', wilayaCode: '16' } },
    });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.shippingCost, 300.5);
    assert.equal(res.body.total, 2701.5);
    assert.equal(res.body.shippingMethodId, m.id);
    assert.equal(res.body.shippingType, 'desk');
    assert.deepEqual(res.body.shippingAddress, { country: 'DZ', address: '1 rue Didouche', communeId: null, communeName: 'Alger Centre', wilayaCode: '16' });

    const nowhere = await api('POST', url, { token: owner.token, body: { customerName: 'B', items, shippingMethodId: m.id, shippingType: 'desk', shippingAddress: { wilayaCode: '31' } } });
    assertProblem(nowhere, 400, 'VALIDATION_FAILED');
    assert.equal(nowhere.body.errors[0].path, 'shippingType');
    const abroad = await api('POST', url, { token: owner.token, body: { customerName: 'B', items, shippingMethodId: m.id, shippingType: 'home', shippingAddress: { country: 'FR', wilayaCode: '16' } } });
    assertProblem(abroad, 400, 'VALIDATION_FAILED');
    const noState = await api('POST', url, { token: owner.token, body: { customerName: 'B', items, shippingMethodId: m.id, shippingType: 'home' } });
    assertProblem(noState, 400, 'VALIDATION_FAILED');
    assert.equal(noState.body.errors[0].path, 'shippingAddress.wilayaCode');
    const noType = await api('POST', url, { token: owner.token, body: { customerName: 'B', items, shippingMethodId: m.id, shippingAddress: { wilayaCode: '16' } } });
    assertProblem(noType, 400, 'VALIDATION_FAILED');
    assert.equal(noType.body.errors[0].path, 'shippingType');
    const badType = await api('POST', url, { token: owner.token, body: { customerName: 'B', items, shippingMethodId: m.id, shippingType: 'drone' } });
    assertProblem(badType, 400, 'VALIDATION_FAILED');
    const other = await ownerWithStore(api);
    const foreign = await createMethod(other.storeId, other.token, { price: 1 });
    const stolen = await api('POST', url, { token: owner.token, body: { customerName: 'B', items, shippingMethodId: foreign.id, shippingType: 'home' } });
    assertProblem(stolen, 400, 'VALIDATION_FAILED');
    assert.equal(stolen.body.errors[0].path, 'shippingMethodId');

    const flat = await createMethod(owner.storeId, owner.token, { price: 400 });
    const flatOrder = await api('POST', url, { token: owner.token, body: { customerName: 'C', items, shippingMethodId: flat.id, shippingType: 'home' } });
    assert.equal(flatOrder.body.shippingCost, 400);
    assert.equal(flatOrder.body.total, 2801);
    const none = await api('POST', url, { token: owner.token, body: { customerName: 'D', items } });
    assert.equal(none.body.shippingCost, 0);
    assert.equal(none.body.total, 2401);
    assert.equal(none.body.shippingAddress, null);
  });

  test('a table in another currency than the order cannot price it', async () => {
    const p = await createPrice(owner.storeId, owner.token, { currency: 'EUR', prices: { DZ: { '16': { home: 5 } } } });
    const m = await createMethod(owner.storeId, owner.token, { shippingPriceId: p.id });
    const res = await api('POST', `/v1/stores/${owner.storeId}/orders`, {
      token: owner.token,
      body: { customerName: 'E', shippingMethodId: m.id, shippingType: 'home', shippingAddress: { wilayaCode: '16' } },
    });
    assertProblem(res, 400, 'VALIDATION_FAILED');
    assert.equal(res.body.errors[0].path, 'shippingMethodId');
  });

  test('viewers read and quote, only editors write', async () => {
    const viewer = await memberWithRole(api, owner.token, owner.storeId, 'viewer');
    const editor = await memberWithRole(api, owner.token, owner.storeId, 'editor');
    assert.equal((await api('GET', `${M}?storeId=${owner.storeId}`, { token: viewer.token })).status, 200);
    assertProblem(await api('POST', `${M}?storeId=${owner.storeId}`, { token: viewer.token, body: { name: 'x' } }), 403, 'FORBIDDEN');
    assertProblem(await api('POST', `${P}?storeId=${owner.storeId}`, { token: viewer.token, body: { name: 'x' } }), 403, 'FORBIDDEN');
    assert.equal((await api('POST', `${M}?storeId=${owner.storeId}`, { token: editor.token, body: { name: 'x' } })).status, 201);
  });
});

describe('logoUrl is served publicly: http(s) only', () => {
  const HOSTILE = ['javascript:alert(document.cookie)', 'data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=', 'JaVaScRiPt:alert(1)', 'vbscript:msgbox(1)', '//cdn.example/x.png'];
  test('prices and methods refuse javascript:, data: and scheme-less URLs on create, PUT and PATCH', async () => {
    const price = await createPrice(owner.storeId, owner.token, { logoUrl: 'https://cdn.example/p.png' });
    const method = await createMethod(owner.storeId, owner.token, { logoUrl: 'http://cdn.example/m.png' });
    for (const logoUrl of HOSTILE) {
      const tries = [
        api('POST', `${P}?storeId=${owner.storeId}`, { token: owner.token, body: { name: 'X', prices: TABLE, logoUrl } }),
        api('PATCH', `${P}/${price.id}?storeId=${owner.storeId}`, { token: owner.token, body: { logoUrl } }),
        api('PUT', `${P}/${price.id}?storeId=${owner.storeId}`, { token: owner.token, body: { prices: TABLE, logoUrl } }),
        api('POST', `${M}?storeId=${owner.storeId}`, { token: owner.token, body: { name: 'X', logoUrl } }),
        api('PATCH', `${M}/${method.id}?storeId=${owner.storeId}`, { token: owner.token, body: { logoUrl } }),
        api('PUT', `${M}/${method.id}?storeId=${owner.storeId}`, { token: owner.token, body: { name: 'X', logoUrl } }),
      ];
      for (const res of await Promise.all(tries)) {
        assertProblem(res, 400, 'VALIDATION_FAILED');
        assert.equal(res.body.errors[0].path, 'logoUrl', res.text);
      }
    }
    assert.equal((await api('GET', `${P}/${price.id}?storeId=${owner.storeId}`, { token: owner.token })).body.logoUrl, 'https://cdn.example/p.png');
    assert.equal((await api('GET', `${M}/${method.id}?storeId=${owner.storeId}`, { token: owner.token })).body.logoUrl, 'http://cdn.example/m.png');
  });
});
