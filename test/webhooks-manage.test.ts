import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertProblem, client, memberWithRole, ownerWithStore, signup, startTestService, type Api, type TestService } from './helpers.js';
import { issueToken } from '../src/domains/auth/auth.service.js';
import type { Ctx } from '../src/core/context.js';

let svc: TestService;
let api: Api;

before(async () => {
  svc = await startTestService();
  api = client(svc.url);
});
after(() => svc.close());

const ALL = ['orderCreated', 'orderUpdated', 'orderDeleted', 'productCreated', 'productUpdated', 'productDeleted'];
const base = (storeId: string) => `/v1/stores/${storeId}/integrations/webhooks`;
const FIELDS = ['active', 'createdAt', 'events', 'hasSecret', 'headers', 'id', 'metadata', 'name', 'storeId', 'updatedAt', 'url'];

describe('create', () => {
  test('returns 201 with every field and the secret once; reads mask it', async () => {
    const s = await ownerWithStore(api);
    const res = await api('POST', base(s.storeId), {
      token: s.token,
      headers: { 'content-type': 'application/json' },
      body: { name: 'Orders', url: 'https://example.com/hook', headers: { 'X-Api-Key': 'k' }, metadata: { team: 'ops' } },
    });
    assert.equal(res.status, 201, res.text);
    const w = res.body;
    assert.match(w.id, /^wh_/);
    assert.match(w.secret, /^whsec_[0-9a-f]{48}$/);
    assert.deepEqual(Object.keys(w).sort(), [...FIELDS, 'secret'].sort());
    assert.equal(w.storeId, s.storeId);
    assert.equal(w.name, 'Orders');
    assert.equal(w.url, 'https://example.com/hook');
    assert.deepEqual(w.events, ALL);
    assert.deepEqual(w.headers, { 'X-Api-Key': 'k' });
    assert.deepEqual(w.metadata, { team: 'ops' });
    assert.equal(w.active, true);
    assert.equal(w.hasSecret, true);
    assert.match(w.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    const one = await api('GET', `${base(s.storeId)}/${w.id}`, { token: s.token });
    assert.equal(one.status, 200);
    assert.deepEqual(Object.keys(one.body).sort(), FIELDS);
    assert.equal(one.body.hasSecret, true);
    const list = await api('GET', base(s.storeId), { token: s.token });
    assert.equal(list.status, 200);
    assert.equal(list.body.data.length, 1);
    assert.deepEqual(Object.keys(list.body.data[0]).sort(), FIELDS);
    assert.ok(!list.text.includes(w.secret));
  });

  test('the secret is stored encrypted, not in plaintext', async () => {
    const s = await ownerWithStore(api);
    const res = await api('POST', base(s.storeId), { token: s.token, body: { name: 'A', url: 'https://example.com/a' } });
    const rows = await svc.service.deps.orm.em.fork().getConnection().execute('select secret_enc from webhooks where id = ?', [res.body.id]);
    assert.equal(rows.length, 1);
    assert.ok(!String(rows[0].secret_enc).includes(res.body.secret.slice(6)));
  });

  test('events: omitted → all six, [] → none, legacy spellings normalized, unknown → 400', async () => {
    const s = await ownerWithStore(api);
    const none = await api('POST', base(s.storeId), { token: s.token, body: { name: 'None', url: 'https://example.com/n', events: [] } });
    assert.deepEqual(none.body.events, []);
    const legacy = await api('POST', base(s.storeId), {
      token: s.token,
      body: { name: 'Legacy', url: 'https://example.com/l', events: ['order.created', 'ORDER_UPDATED', 'product_updated', 'Product-Deleted', 'order deleted'] },
    });
    assert.equal(legacy.status, 201, legacy.text);
    assert.deepEqual(legacy.body.events, ['orderCreated', 'orderUpdated', 'productUpdated', 'productDeleted', 'orderDeleted']);
    const bad = await api('POST', base(s.storeId), { token: s.token, body: { name: 'Bad', url: 'https://example.com/b', events: ['order.shipped'] } });
    assertProblem(bad, 400, 'VALIDATION_FAILED');
    assert.equal(bad.body.errors[0].path, 'events.0');
  });

  test('name and url are required; url must be https; active defaults true and can be false', async () => {
    const s = await ownerWithStore(api);
    const noName = await api('POST', base(s.storeId), { token: s.token, body: { url: 'https://example.com' } });
    assertProblem(noName, 400, 'VALIDATION_FAILED');
    assert.equal(noName.body.errors[0].path, 'name');
    assertProblem(await api('POST', base(s.storeId), { token: s.token, body: { name: 'x' } }), 400, 'VALIDATION_FAILED');
    const http = await api('POST', base(s.storeId), { token: s.token, body: { name: 'x', url: 'http://example.com/hook' } });
    assertProblem(http, 400, 'VALIDATION_FAILED');
    assert.equal(http.body.errors[0].path, 'url');
    assertProblem(await api('POST', base(s.storeId), { token: s.token, body: { name: 'x', url: 'not a url' } }), 400, 'VALIDATION_FAILED');
    assertProblem(await api('POST', base(s.storeId), { token: s.token, body: { name: 'x', url: 'https://example.com', bogus: 1 } }), 400, 'VALIDATION_FAILED');
    assertProblem(await api('POST', base(s.storeId), { token: s.token, body: { name: 'x', url: 'https://example.com', active: 'yes' } }), 400, 'VALIDATION_FAILED');
    const off = await api('POST', base(s.storeId), { token: s.token, body: { name: 'Off', url: 'https://example.com/off', active: false } });
    assert.equal(off.body.active, false);
  });

  test('transport and X-Svc- headers are refused, in any case', async () => {
    const s = await ownerWithStore(api);
    for (const name of ['Host', 'content-type', 'Content-Length', 'Transfer-Encoding', 'Connection', 'Keep-Alive', 'Upgrade', 'TE', 'Trailer', 'user-agent', 'Proxy-Authorization', 'x-svc-event', 'X-SVC-Anything']) {
      const res = await api('POST', base(s.storeId), { token: s.token, body: { name: 'H', url: 'https://example.com', headers: { [name]: 'v' } } });
      assertProblem(res, 400, 'VALIDATION_FAILED');
      assert.equal(res.body.errors[0].path, `headers.${name}`);
    }
    assertProblem(await api('POST', base(s.storeId), { token: s.token, body: { name: 'H', url: 'https://example.com', headers: { 'X-Num': 1 } } }), 400, 'VALIDATION_FAILED');
  });

  test('the 11th webhook of a store is 422 LIMIT_EXCEEDED, also when created at once', async () => {
    const s = await ownerWithStore(api);
    const results = await Promise.all(
      Array.from({ length: 14 }, (_, i) => api('POST', base(s.storeId), { token: s.token, body: { name: `W${i}`, url: `https://example.com/${i}` } })),
    );
    assert.equal(results.filter((r) => r.status === 201).length, 10);
    for (const r of results.filter((r) => r.status !== 201)) assertProblem(r, 422, 'LIMIT_EXCEEDED');
    assert.equal((await api('GET', base(s.storeId), { token: s.token })).body.data.length, 10);
  });
});

describe('update and delete', () => {
  test('PATCH changes fields; rotateSecret returns a new secret, only then', async () => {
    const s = await ownerWithStore(api);
    const w = (await api('POST', base(s.storeId), { token: s.token, body: { name: 'A', url: 'https://example.com/a' } })).body;
    const patched = await api('PATCH', `${base(s.storeId)}/${w.id}`, { token: s.token, body: { name: 'B', events: ['product.created'], active: false } });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.body.name, 'B');
    assert.deepEqual(patched.body.events, ['productCreated']);
    assert.equal(patched.body.active, false);
    assert.equal('secret' in patched.body, false);
    const rotated = await api('PATCH', `${base(s.storeId)}/${w.id}`, { token: s.token, body: { rotateSecret: true } });
    assert.match(rotated.body.secret, /^whsec_[0-9a-f]{48}$/);
    assert.notEqual(rotated.body.secret, w.secret);
    assertProblem(await api('PATCH', `${base(s.storeId)}/${w.id}`, { token: s.token, body: { url: 'ftp://example.com' } }), 400, 'VALIDATION_FAILED');
    assertProblem(await api('PATCH', `${base(s.storeId)}/${w.id}`, { token: s.token, body: { headers: { Host: 'x' } } }), 400, 'VALIDATION_FAILED');
    assert.equal((await api('GET', `${base(s.storeId)}/${w.id}`, { token: s.token })).body.url, 'https://example.com/a');
  });

  test('DELETE answers 204 and the webhook and its history are gone', async () => {
    const s = await ownerWithStore(api);
    const w = (await api('POST', base(s.storeId), { token: s.token, body: { name: 'A', url: 'https://example.com/a' } })).body;
    const del = await api('DELETE', `${base(s.storeId)}/${w.id}`, { token: s.token, headers: { 'content-type': 'application/json' } });
    assert.equal(del.status, 204);
    assert.equal(del.text, '');
    assertProblem(await api('GET', `${base(s.storeId)}/${w.id}`, { token: s.token }), 404, 'NOT_FOUND');
    assertProblem(await api('GET', `${base(s.storeId)}/${w.id}/history`, { token: s.token }), 404, 'NOT_FOUND');
    assertProblem(await api('DELETE', `${base(s.storeId)}/${w.id}`, { token: s.token }), 404, 'NOT_FOUND');
  });
});

describe('who may do what', () => {
  test('non-members get 404; viewers read but cannot write (403); editors write', async () => {
    const s = await ownerWithStore(api);
    const w = (await api('POST', base(s.storeId), { token: s.token, body: { name: 'A', url: 'https://example.com/a' } })).body;
    const stranger = await signup(api);
    assertProblem(await api('GET', base(s.storeId), { token: stranger.token }), 404, 'NOT_FOUND');
    assertProblem(await api('POST', base(s.storeId), { token: stranger.token, body: { name: 'x', url: 'https://example.com' } }), 404, 'NOT_FOUND');
    assertProblem(await api('GET', `${base(s.storeId)}/${w.id}/history`, { token: stranger.token }), 404, 'NOT_FOUND');
    const viewer = await memberWithRole(api, s.token, s.storeId, 'viewer');
    assert.equal((await api('GET', base(s.storeId), { token: viewer.token })).status, 200);
    assert.equal((await api('GET', `${base(s.storeId)}/${w.id}/history`, { token: viewer.token })).status, 200);
    assertProblem(await api('POST', base(s.storeId), { token: viewer.token, body: { name: 'x', url: 'https://example.com' } }), 403, 'FORBIDDEN');
    assertProblem(await api('PATCH', `${base(s.storeId)}/${w.id}`, { token: viewer.token, body: { name: 'y' } }), 403, 'FORBIDDEN');
    assertProblem(await api('DELETE', `${base(s.storeId)}/${w.id}`, { token: viewer.token }), 403, 'FORBIDDEN');
    assertProblem(await api('POST', `${base(s.storeId)}/${w.id}/test`, { token: viewer.token }), 403, 'FORBIDDEN');
    assertProblem(await api('POST', `${base(s.storeId)}/send`, { token: viewer.token, body: { event: 'orderCreated', data: {} } }), 403, 'FORBIDDEN');
    const editor = await memberWithRole(api, s.token, s.storeId, 'editor');
    assert.equal((await api('POST', base(s.storeId), { token: editor.token, body: { name: 'E', url: 'https://example.com/e' } })).status, 201);
    assertProblem(await api('GET', base(s.storeId)), 401, 'UNAUTHENTICATED');
  });

  test('a webhook of another store is not found through this one', async () => {
    const a = await ownerWithStore(api);
    const b = await ownerWithStore(api);
    const w = (await api('POST', base(a.storeId), { token: a.token, body: { name: 'A', url: 'https://example.com/a' } })).body;
    assertProblem(await api('GET', `${base(b.storeId)}/${w.id}`, { token: b.token }), 404, 'NOT_FOUND');
  });
});

/** An OAuth token of the user with the scopes, issued in-process. */
async function oauthToken(userId: string, scopes: string[]): Promise<string> {
  const em = svc.service.deps.orm.em.fork();
  const { token } = issueToken({ em } as unknown as Ctx, userId, { kind: 'oauth', scopes });
  await em.flush();
  return token;
}

describe('OAuth tokens', () => {
  test("store.integrations manages webhooks (reads included) within the granting user's role; other scopes are refused", async () => {
    const s = await ownerWithStore(api);
    const integrations = await oauthToken(s.user.id, ['store.integrations']);
    const created = await api('POST', base(s.storeId), { token: integrations, body: { name: 'App', url: 'https://example.com/app' } });
    assert.equal(created.status, 201, created.text);
    assert.equal((await api('GET', base(s.storeId), { token: integrations })).status, 200);
    assert.equal((await api('GET', `${base(s.storeId)}/${created.body.id}/history`, { token: integrations })).status, 200);
    // Scope ∩ role: a viewer's app reads but never writes; an editor's app writes.
    const viewer = await memberWithRole(api, s.token, s.storeId, 'viewer');
    const viewerApp = await oauthToken(viewer.user.id, ['store.integrations']);
    assert.equal((await api('GET', base(s.storeId), { token: viewerApp })).status, 200);
    assertProblem(await api('PATCH', `${base(s.storeId)}/${created.body.id}`, { token: viewerApp, body: { name: 'Renamed' } }), 403, 'FORBIDDEN');
    assertProblem(await api('POST', base(s.storeId), { token: viewerApp, body: { name: 'V', url: 'https://example.com/v' } }), 403, 'FORBIDDEN');
    assertProblem(await api('DELETE', `${base(s.storeId)}/${created.body.id}`, { token: viewerApp }), 403, 'FORBIDDEN');
    const editor = await memberWithRole(api, s.token, s.storeId, 'editor');
    const editorApp = await oauthToken(editor.user.id, ['store.integrations']);
    assert.equal((await api('PATCH', `${base(s.storeId)}/${created.body.id}`, { token: editorApp, body: { name: 'Renamed' } })).status, 200);
    // The role is read at each call: the same token loses the write once its user is demoted.
    assert.equal((await api('PATCH', `/v1/stores/${s.storeId}/members/${editor.user.id}`, { token: s.token, body: { role: 'viewer' } })).status, 200);
    assertProblem(await api('PATCH', `${base(s.storeId)}/${created.body.id}`, { token: editorApp, body: { name: 'Again' } }), 403, 'FORBIDDEN');
    const readOnly = await oauthToken(s.user.id, ['store.read']);
    assert.equal((await api('GET', base(s.storeId), { token: readOnly })).status, 200);
    assertProblem(await api('POST', base(s.storeId), { token: readOnly, body: { name: 'No', url: 'https://example.com/no' } }), 403, 'FORBIDDEN');
    const ordersOnly = await oauthToken(s.user.id, ['store.orders']);
    assertProblem(await api('GET', base(s.storeId), { token: ordersOnly }), 403, 'FORBIDDEN');
  });
});

describe('GraphQL twins', () => {
  test('webhooks(storeId) lists with the REST fields, never the secret', async () => {
    const s = await ownerWithStore(api);
    const created = await api('POST', '/graphql', {
      token: s.token,
      body: {
        query: 'mutation($s: ID!, $i: WebhookCreateInput!) { createWebhook(storeId: $s, input: $i) { id secret events } }',
        variables: { s: s.storeId, i: { name: 'G', url: 'https://example.com/g', events: ['ORDER_CREATED'] } },
      },
    });
    assert.match(created.body.data.createWebhook.secret, /^whsec_/);
    assert.deepEqual(created.body.data.createWebhook.events, ['orderCreated']);
    const list = await api('POST', '/graphql', {
      token: s.token,
      body: { query: `query($s: ID!) { webhooks(storeId: $s) { ${FIELDS.join(' ')} } }`, variables: { s: s.storeId } },
    });
    assert.equal(list.body.data.webhooks.length, 1);
    assert.equal(list.body.data.webhooks[0].hasSecret, true);
    const bad = await api('POST', '/graphql', {
      token: s.token,
      body: { query: 'mutation($s: ID!, $i: WebhookCreateInput!) { createWebhook(storeId: $s, input: $i) { id } }', variables: { s: s.storeId, i: { name: 'G', url: 'http://x.y' } } },
    });
    assert.equal(bad.body.errors[0].extensions.code, 'VALIDATION_FAILED');
  });
});
