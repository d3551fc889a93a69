import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertProblem, client, ownerWithStore, signup, startTestService, type Api, type TestService } from './helpers.js';

let svc: TestService;
let api: Api;
before(async () => {
  svc = await startTestService();
  api = client(svc.url);
});
after(() => svc.close());

const orderCount = async (token: string, storeId: string) => (await api('GET', `/v1/stores/${storeId}/orders?limit=200`, { token })).body.data.length;

describe('Idempotency-Key on creates and triggers', () => {
  test('the same key and body answer the stored create again, marked replayed; another body → 409', async () => {
    const o = await ownerWithStore(api);
    const headers = { 'idempotency-key': 'order-1' };
    const first = await api('POST', `/v1/stores/${o.storeId}/orders`, { token: o.token, headers, body: { customerName: 'Ada' } });
    assert.equal(first.status, 201);
    assert.equal(first.headers.get('idempotent-replayed'), null);
    const again = await api('POST', `/v1/stores/${o.storeId}/orders`, { token: o.token, headers, body: { customerName: 'Ada' } });
    assert.equal(again.status, 201);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(again.body, first.body);
    assert.equal(again.headers.get('location'), first.headers.get('location'));
    assert.equal(await orderCount(o.token, o.storeId), 1);

    const other = await api('POST', `/v1/stores/${o.storeId}/orders`, { token: o.token, headers, body: { customerName: 'Bob' } });
    assertProblem(other, 409, 'CONFLICT');
    // The same key on another route is another request too.
    const product = await api('POST', `/v1/stores/${o.storeId}/products`, { token: o.token, headers, body: { name: 'Tea', price: 100 } });
    assertProblem(product, 409, 'CONFLICT');
    assert.equal(await orderCount(o.token, o.storeId), 1);
  });

  test('keys are per caller; a failed request frees its key; a malformed key → 400', async () => {
    const o = await ownerWithStore(api);
    const editor = await signup(api, 'Editor');
    await api('POST', `/v1/stores/${o.storeId}/members`, { token: o.token, body: { email: editor.email, role: 'editor' } });
    const headers = { 'idempotency-key': 'shared-key' };
    const a = await api('POST', `/v1/stores/${o.storeId}/products`, { token: o.token, headers, body: { name: 'A', price: 1 } });
    const b = await api('POST', `/v1/stores/${o.storeId}/products`, { token: editor.token, headers, body: { name: 'A', price: 1 } });
    assert.equal(a.status, 201);
    assert.equal(b.status, 201);
    assert.notEqual(a.body.id, b.body.id);

    const bad = await api('POST', `/v1/stores/${o.storeId}/products`, { token: o.token, headers: { 'idempotency-key': 'retry-me' }, body: { name: 'B', price: -1 } });
    assert.equal(bad.status, 400);
    const good = await api('POST', `/v1/stores/${o.storeId}/products`, { token: o.token, headers: { 'idempotency-key': 'retry-me' }, body: { name: 'B', price: 2 } });
    assert.equal(good.status, 201);
    assert.equal(good.headers.get('idempotent-replayed'), null);

    const malformed = await api('POST', `/v1/stores/${o.storeId}/products`, { token: o.token, headers: { 'idempotency-key': 'has space' }, body: { name: 'C', price: 1 } });
    assertProblem(malformed, 400, 'VALIDATION_FAILED');
    assert.equal(malformed.body.errors[0].path, 'Idempotency-Key');
  });

  test('a secret in a kept answer comes back on replay (webhook create)', async () => {
    const o = await ownerWithStore(api);
    const body = { name: 'Hook', url: 'https://hooks.example/souk' };
    const headers = { 'idempotency-key': 'hook-1' };
    const first = await api('POST', `/v1/stores/${o.storeId}/integrations/webhooks`, { token: o.token, headers, body });
    const again = await api('POST', `/v1/stores/${o.storeId}/integrations/webhooks`, { token: o.token, headers, body });
    assert.equal(first.status, 201);
    assert.match(first.body.secret, /^whsec_/);
    assert.equal(again.body.secret, first.body.secret);
    assert.equal((await api('GET', `/v1/stores/${o.storeId}/integrations/webhooks`, { token: o.token })).body.data.length, 1);
  });

  test('a replay is authorized as a new request would be: a member removed since gets what a stranger gets, not the kept answer', async () => {
    const o = await ownerWithStore(api);
    const editor = await signup(api, 'Editor');
    await api('POST', `/v1/stores/${o.storeId}/members`, { token: o.token, body: { email: editor.email, role: 'editor' } });
    const create = (key: string) => api('POST', `/v1/stores/${o.storeId}/products`, { token: editor.token, headers: { 'idempotency-key': key }, body: { name: 'Kept', price: 5 } });
    assert.equal((await create('before-removal')).status, 201);
    assert.equal((await create('before-removal')).headers.get('idempotent-replayed'), 'true');
    assert.equal((await api('DELETE', `/v1/stores/${o.storeId}/members/${editor.user.id}`, { token: o.token })).status, 204);
    const replay = await create('before-removal');
    const fresh = await create('after-removal');
    assertProblem(replay, 404, 'NOT_FOUND');
    assert.equal(replay.headers.get('idempotent-replayed'), null);
    assert.deepEqual(replay.body, fresh.body);
  });

  test('keys are per store as well as per caller: one key on the same route of two stores makes two creates', async () => {
    const o = await ownerWithStore(api);
    const second = (await api('POST', '/v1/stores', { token: o.token, body: { name: 'Second' } })).body.id as string;
    const headers = { 'idempotency-key': 'one-key' };
    const a = await api('POST', `/v1/stores/${o.storeId}/products`, { token: o.token, headers, body: { name: 'Tea', price: 1 } });
    const b = await api('POST', `/v1/stores/${second}/products`, { token: o.token, headers, body: { name: 'Tea', price: 1 } });
    assert.equal(a.status, 201);
    assert.equal(b.status, 201, b.text);
    assert.equal(b.headers.get('idempotent-replayed'), null);
    assert.equal(b.body.storeId, second);
    const again = await api('POST', `/v1/stores/${second}/products`, { token: o.token, headers, body: { name: 'Tea', price: 1 } });
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.equal(again.body.id, b.body.id);
  });

  test('parallel requests with one key: one create runs, the rest get its answer or 409, never a second create', async () => {
    for (let round = 0; round < 5; round++) {
      const o = await ownerWithStore(api);
      const headers = { 'idempotency-key': `race-${round}` };
      const answers = await Promise.all(
        Array.from({ length: 12 }, () => api('POST', `/v1/stores/${o.storeId}/orders`, { token: o.token, headers, body: { customerName: 'Race' } })),
      );
      const fresh = answers.filter((r) => r.status === 201 && r.headers.get('idempotent-replayed') === null);
      assert.equal(fresh.length, 1, answers.map((r) => r.status).join(','));
      for (const r of answers) {
        if (r.status === 201) assert.equal(r.body.id, fresh[0].body.id);
        else assertProblem(r, 409, 'CONFLICT');
      }
      assert.equal(await orderCount(o.token, o.storeId), 1);
    }
  });
});

describe('HTTP details', () => {
  test('every 201 names the new resource in Location, and it answers', async () => {
    const o = await ownerWithStore(api);
    const store = await api('POST', '/v1/stores', { token: o.token, body: { name: 'Second' } });
    assert.equal(store.headers.get('location'), `/v1/stores/${store.body.id}`);
    const product = await api('POST', `/v1/stores/${o.storeId}/products`, { token: o.token, body: { name: 'Tea', price: 100 } });
    const order = await api('POST', `/v1/stores/${o.storeId}/orders`, { token: o.token, body: { customerName: 'Ada' } });
    const promo = await api('POST', `/v1/promos?storeId=${o.storeId}`, { token: o.token, body: { code: 'TEN', type: 'percentage', value: 10 } });
    for (const created of [store, product, order, promo]) {
      assert.equal(created.status, 201);
      const location = created.headers.get('location');
      assert.ok(location, 'Location missing');
      const read = await api('GET', location, { token: o.token });
      assert.equal(read.status, 200, location);
      assert.equal(read.body.id, created.body.id);
    }
    const user = await api('POST', '/v1/users/auth/signup', { body: { email: `loc${Date.now()}@example.com`, password: 'correct horse battery', name: 'L' } });
    assert.equal(user.headers.get('location'), `/v1/users/${user.body.user.id}`);
  });

  test('every 401 carries WWW-Authenticate: Bearer realm="souk", with error="invalid_token" for a refused token', async () => {
    const none = await api('GET', '/v1/stores');
    assertProblem(none, 401, 'UNAUTHENTICATED');
    assert.equal(none.headers.get('www-authenticate'), 'Bearer realm="souk"');
    const bad = await api('GET', '/v1/stores', { token: 'nope' });
    assertProblem(bad, 401, 'UNAUTHENTICATED');
    assert.equal(bad.headers.get('www-authenticate'), 'Bearer realm="souk", error="invalid_token"');
    const wrong = await api('POST', '/v1/users/auth/signin', { body: { email: 'nobody@example.com', password: 'wrong password' } });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.headers.get('www-authenticate'), 'Bearer realm="souk"');
    const gql = await fetch(`${svc.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer nope' }, body: JSON.stringify({ query: '{ __typename }' }) });
    assert.equal(gql.status, 401);
    assert.equal(gql.headers.get('www-authenticate'), 'Bearer realm="souk", error="invalid_token"');
    const stream = await fetch(`${svc.url}/graphql/stream`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: 'Bearer nope' }, body: JSON.stringify({ query: 'subscription { __typename }' }) });
    assert.equal(stream.status, 401);
    assert.equal(stream.headers.get('www-authenticate'), 'Bearer realm="souk", error="invalid_token"');
    await stream.body?.cancel();
  });
});
