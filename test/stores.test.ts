import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertProblem, client, memberWithRole, ownerWithStore, signup, startTestService, type Api, type TestService } from './helpers.js';

let svc: TestService;
let api: Api;
before(async () => {
  svc = await startTestService();
  api = client(svc.url);
});
after(() => svc.close());

test('create, list, show, update and delete a store', async () => {
  const { token } = await signup(api);
  const created = await api('POST', '/v1/stores', { token, body: { name: 'Corner Shop' } });
  assert.equal(created.status, 201);
  assert.match(created.body.id, /^st_/);
  assert.equal(created.body.name, 'Corner Shop');
  assert.equal(created.body.role, 'owner');
  const list = await api('GET', '/v1/stores', { token });
  assert.deepEqual(list.body.data.map((s: any) => s.id), [created.body.id]);
  assert.equal(list.body.nextCursor, null);
  const patched = await api('PATCH', `/v1/stores/${created.body.id}`, { token, body: { name: 'Renamed' } });
  assert.equal(patched.body.name, 'Renamed');
  assert.equal((await api('GET', `/v1/stores/${created.body.id}`, { token })).body.name, 'Renamed');
  const del = await api('DELETE', `/v1/stores/${created.body.id}`, { token });
  assert.equal(del.status, 204);
  assertProblem(await api('GET', `/v1/stores/${created.body.id}`, { token }), 404, 'NOT_FOUND');
});

test('store lists paginate with a cursor', async () => {
  const { token } = await signup(api);
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) ids.push((await api('POST', '/v1/stores', { token, body: { name: `S${i}` } })).body.id);
  const first = await api('GET', '/v1/stores?limit=2', { token });
  assert.equal(first.body.data.length, 2);
  assert.ok(first.body.nextCursor);
  const second = await api('GET', `/v1/stores?limit=2&cursor=${first.body.nextCursor}`, { token });
  assert.equal(second.body.data.length, 1);
  assert.equal(second.body.nextCursor, null);
  assert.deepEqual([...first.body.data, ...second.body.data].map((s: any) => s.id).sort(), ids.sort());
});

test('a non-member gets 404, never a hint the store exists', async () => {
  const owner = await ownerWithStore(api);
  const stranger = await signup(api);
  assertProblem(await api('GET', `/v1/stores/${owner.storeId}`, { token: stranger.token }), 404, 'NOT_FOUND');
  assertProblem(await api('PATCH', `/v1/stores/${owner.storeId}`, { token: stranger.token, body: { name: 'x' } }), 404, 'NOT_FOUND');
});

test('members: owner adds, viewer reads but cannot manage (403), last owner stays', async () => {
  const owner = await ownerWithStore(api);
  const viewer = await memberWithRole(api, owner.token, owner.storeId, 'viewer');
  const list = await api('GET', `/v1/stores/${owner.storeId}/members`, { token: viewer.token });
  assert.equal(list.status, 200);
  assert.deepEqual(list.body.data.map((m: any) => m.role).sort(), ['owner', 'viewer']);
  assert.equal((await api('GET', `/v1/stores/${owner.storeId}`, { token: viewer.token })).body.role, 'viewer');
  assertProblem(await api('PATCH', `/v1/stores/${owner.storeId}`, { token: viewer.token, body: { name: 'x' } }), 403, 'FORBIDDEN');
  const other = await signup(api);
  assertProblem(await api('POST', `/v1/stores/${owner.storeId}/members`, { token: viewer.token, body: { email: other.email, role: 'viewer' } }), 403, 'FORBIDDEN');
  assertProblem(await api('POST', `/v1/stores/${owner.storeId}/members`, { token: owner.token, body: { email: other.email, role: 'boss' } }), 400, 'VALIDATION_FAILED');
  const promoted = await api('PATCH', `/v1/stores/${owner.storeId}/members/${viewer.user.id}`, { token: owner.token, body: { role: 'editor' } });
  assert.equal(promoted.body.role, 'editor');
  assertProblem(await api('DELETE', `/v1/stores/${owner.storeId}/members/${owner.user.id}`, { token: owner.token }), 409, 'CONFLICT');
  assertProblem(await api('POST', `/v1/stores/${owner.storeId}/members`, { token: owner.token, body: { email: owner.email, role: 'viewer' } }), 409, 'CONFLICT');
  assert.equal((await api('DELETE', `/v1/stores/${owner.storeId}/members/${viewer.user.id}`, { token: owner.token })).status, 204);
  assertProblem(await api('GET', `/v1/stores/${owner.storeId}`, { token: viewer.token }), 404, 'NOT_FOUND');
});

test('an admin cannot grant ownership', async () => {
  const owner = await ownerWithStore(api);
  const admin = await memberWithRole(api, owner.token, owner.storeId, 'admin');
  const other = await signup(api);
  assertProblem(await api('POST', `/v1/stores/${owner.storeId}/members`, { token: admin.token, body: { email: other.email, role: 'owner' } }), 403, 'FORBIDDEN');
  assert.equal((await api('POST', `/v1/stores/${owner.storeId}/members`, { token: admin.token, body: { email: other.email, role: 'editor' } })).status, 201);
});

test('currency: ISO 4217, DZD by default, set on create and by owners and admins', async () => {
  const { token } = await signup(api);
  const plain = await api('POST', '/v1/stores', { token, body: { name: 'Plain' } });
  assert.equal(plain.body.currency, 'DZD');
  const euro = await api('POST', '/v1/stores', { token, body: { name: 'Euro', currency: 'EUR' } });
  assert.equal(euro.status, 201, euro.text);
  assert.equal(euro.body.currency, 'EUR');
  assert.equal((await api('GET', `/v1/stores/${euro.body.id}`, { token })).body.currency, 'EUR');
  assert.deepEqual(
    (await api('GET', '/v1/stores', { token })).body.data.map((s: any) => s.currency),
    ['EUR', 'DZD'],
  );
  for (const currency of ['EURO', 'eur', 'XYZ', 12]) {
    const bad = await api('POST', '/v1/stores', { token, body: { name: 'Bad', currency } });
    assertProblem(bad, 400, 'VALIDATION_FAILED');
    assert.equal(bad.body.errors[0].path, 'currency');
  }
  const badPatch = await api('PATCH', `/v1/stores/${plain.body.id}`, { token, body: { currency: 'DOLLARS' } });
  assertProblem(badPatch, 400, 'VALIDATION_FAILED');
  assert.equal(badPatch.body.errors[0].path, 'currency');

  const admin = await memberWithRole(api, token, plain.body.id, 'admin');
  const editor = await memberWithRole(api, token, plain.body.id, 'editor');
  assertProblem(await api('PATCH', `/v1/stores/${plain.body.id}`, { token: editor.token, body: { currency: 'EUR' } }), 403, 'FORBIDDEN');
  const byAdmin = await api('PATCH', `/v1/stores/${plain.body.id}`, { token: admin.token, body: { currency: 'USD' } });
  assert.equal(byAdmin.status, 200, byAdmin.text);
  assert.equal(byAdmin.body.currency, 'USD');
});

test('currency: a store with orders keeps its currency (409); product prices keep their face value', async () => {
  const s = await ownerWithStore(api);
  const store = `/v1/stores/${s.storeId}`;
  const cheap = await api('POST', `${store}/products`, { token: s.token, body: { name: 'Cheap', price: 19.99 } });
  const round = await api('POST', `${store}/products`, { token: s.token, body: { name: 'Round', price: 20 } });
  // 19.99 has no JPY spelling: nothing changes.
  assertProblem(await api('PATCH', store, { token: s.token, body: { currency: 'JPY', name: 'Renamed' } }), 409, 'CONFLICT');
  assert.equal((await api('GET', store, { token: s.token })).body.currency, 'DZD');
  assert.equal((await api('GET', store, { token: s.token })).body.name, 'Test Store');
  assert.equal((await api('PATCH', `${store}/products/${cheap.body.id}`, { token: s.token, body: { price: 19 } })).status, 200);
  const yen = await api('PATCH', store, { token: s.token, body: { currency: 'JPY' } });
  assert.equal(yen.status, 200, yen.text);
  assert.equal(yen.body.currency, 'JPY');
  assert.equal((await api('GET', `${store}/products/${round.body.id}`, { token: s.token })).body.price, 20);
  const dinar = await api('PATCH', store, { token: s.token, body: { currency: 'KWD' } });
  assert.equal(dinar.body.currency, 'KWD');
  assert.equal((await api('GET', `${store}/products/${cheap.body.id}`, { token: s.token })).body.price, 19);
  const [row] = await svc.service.deps.orm.em.fork().getConnection().execute('select price from products where id = ?', [round.body.id]);
  assert.equal(Number(row.price), 20000);

  assert.equal((await api('POST', `${store}/orders`, { token: s.token, body: { customerName: 'Ada', items: [{ productId: round.body.id }] } })).status, 201);
  const refused = await api('PATCH', store, { token: s.token, body: { currency: 'EUR' } });
  assertProblem(refused, 409, 'CONFLICT');
  assert.equal((await api('GET', store, { token: s.token })).body.currency, 'KWD');
  // The same currency again is no change, and a rename still works.
  const same = await api('PATCH', store, { token: s.token, body: { currency: 'KWD', name: 'Kuwait' } });
  assert.equal(same.status, 200, same.text);
  assert.equal(same.body.name, 'Kuwait');
});
