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
