import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertProblem, client, memberWithRole, ownerWithStore, signup, startTestService, type Api, type TestService } from './helpers.js';
import { issueToken } from '../src/domains/auth/auth.service.js';
import { loadIntegration } from '../src/domains/integrations/integration.access.js';
import type { Ctx } from '../src/core/context.js';

let svc: TestService;
let api: Api;

before(async () => {
  svc = await startTestService();
  api = client(svc.url);
});
after(() => svc.close());

type Owner = Awaited<ReturnType<typeof ownerWithStore>>;

const CARRIER = { provider: 'yalidine', config: { apiId: '08467949173865045243', fromWilaya: 16 }, secrets: { apiToken: 'tok-5MKfvcyQtO3eouL6tDv0VDFhUT8Sc7w5' } };

const put = (s: Owner, key: string, body: unknown, token = s.token) => api('PUT', `/v1/stores/${s.storeId}/integrations/${key}`, { token, body });
const patch = (s: Owner, key: string, body: unknown, token = s.token) => api('PATCH', `/v1/stores/${s.storeId}/integrations/${key}`, { token, body });
const get = (s: Owner, key: string, token = s.token) => api('GET', `/v1/stores/${s.storeId}/integrations/${key}`, { token });

async function oauthToken(userId: string, scopes: string[]): Promise<string> {
  const em = svc.service.deps.orm.em.fork();
  const { token } = issueToken({ em } as unknown as Ctx, userId, { kind: 'oauth', scopes });
  await em.flush();
  return token;
}

function assertField(res: { body: any }, path: string) {
  assert.ok(res.body.errors?.some((e: { path: string }) => e.path === path), `expected an error at ${path}: ${JSON.stringify(res.body)}`);
}

describe('PUT /v1/stores/{id}/integrations/{key}', () => {
  test('creates (201) then replaces (200); secrets come back masked, never in clear', async () => {
    const s = await ownerWithStore(api);
    const created = await put(s, 'carrier', CARRIER);
    assert.equal(created.status, 201, created.text);
    const i = created.body;
    assert.deepEqual(
      { key: i.key, kind: i.kind, provider: i.provider, enabled: i.enabled, status: i.status, config: i.config, lastError: i.lastError, lastSuccessAt: i.lastSuccessAt },
      { key: 'carrier', kind: 'carrier', provider: 'yalidine', enabled: true, status: 'unverified', config: CARRIER.config, lastError: null, lastSuccessAt: null },
    );
    assert.equal(i.secrets.apiToken.set, true);
    assert.equal(i.secrets.apiToken.last4, 'c7w5');
    assert.ok(!Number.isNaN(Date.parse(i.secrets.apiToken.updatedAt)));
    assert.ok(!Number.isNaN(Date.parse(i.updatedAt)));
    assert.ok(!created.text.includes(CARRIER.secrets.apiToken));

    const replaced = await put(s, 'carrier', { config: { apiId: 'other-id', fromWilaya: '5' } });
    assert.equal(replaced.status, 200, replaced.text);
    assert.equal(replaced.body.provider, 'yalidine', 'the kind default');
    assert.deepEqual(replaced.body.config, { apiId: 'other-id', fromWilaya: '5' });
    assert.equal(replaced.body.secrets.apiToken.last4, 'c7w5', 'an omitted secrets object keeps the stored secrets');

    const list = await api('GET', `/v1/stores/${s.storeId}/integrations`, { token: s.token });
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.data.map((x: any) => x.key), ['carrier']);
    assert.ok(!list.text.includes(CARRIER.secrets.apiToken));
    const one = await get(s, 'carrier');
    assert.equal(one.status, 200);
    assert.deepEqual(one.body, replaced.body);
  });

  test('secrets are encrypted at rest and decrypt for the adapters (loadIntegration)', async () => {
    const s = await ownerWithStore(api);
    assert.equal((await put(s, 'carrier', CARRIER)).status, 201);
    const em = svc.service.deps.orm.em.fork();
    const [row] = await em.execute(`select secrets_enc::text as s, config::text as c from store_integrations where store_id = ? and key = 'carrier'`, [s.storeId]);
    assert.ok(!row.s.includes(CARRIER.secrets.apiToken));
    assert.match(row.s, /v1\./);
    const loaded = await loadIntegration({ em, deps: svc.service.deps } as unknown as Ctx, s.storeId, 'carrier');
    assert.equal(loaded?.secrets.apiToken, CARRIER.secrets.apiToken);
    assert.equal(loaded?.config.apiId, CARRIER.config.apiId);
  });

  test('a PUT with secrets replaces the whole set; short secrets show no last4', async () => {
    const s = await ownerWithStore(api);
    await put(s, 'notes', { config: {}, secrets: { a: 'aaaaaaaa1111', b: 'bbbbbbbb2222' } });
    const res = await put(s, 'notes', { config: { x: 1 }, secrets: { c: 'short' } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(Object.keys(res.body.secrets), ['c']);
    assert.equal(res.body.secrets.c.last4, null);
  });

  test('keys: pattern, reserved names', async () => {
    const s = await ownerWithStore(api);
    for (const key of ['Carrier', 'a', '1abc', 'has_underscore', `a${'b'.repeat(41)}`]) {
      const res = await put(s, key, { config: {} });
      assertProblem(res, 400, 'VALIDATION_FAILED');
      assertField(res, 'key');
    }
    for (const key of ['webhooks', 'connectors']) {
      const res = await put(s, key, { config: {} });
      assertProblem(res, 400, 'VALIDATION_FAILED');
      assertField(res, 'key');
    }
    assert.equal((await put(s, `a${'b'.repeat(40)}`, { config: {} })).status, 201);
  });

  test('typed configs are validated with the path at fault', async () => {
    const s = await ownerWithStore(api);
    const cases: Array<[string, unknown, string]> = [
      ['carrier', { config: { fromWilaya: 16 } }, 'config.apiId'],
      ['carrier', { config: { apiId: 'x', fromWilaya: 16, extra: true } }, 'config.extra'],
      ['carrier', { config: { apiId: 'x', fromWilaya: 70 } }, 'config.fromWilaya'],
      ['carrier', { config: { apiId: 'x', fromWilaya: 'sixteen' } }, 'config.fromWilaya'],
      ['carrier', { config: { apiId: 'x', fromWilaya: 16, orderStatusMap: { teleported: 'shipped' } } }, 'config.orderStatusMap.teleported'],
      ['carrier', { config: { apiId: 'x', fromWilaya: 16, orderStatusMap: { delivered: 3 } } }, 'config.orderStatusMap.delivered'],
      ['carrier', { provider: 'dhl', config: { apiId: 'x', fromWilaya: 16 } }, 'provider'],
      ['carrier', { provider: 'ecotrack', config: { apiId: 'x', fromWilaya: 16 } }, 'config.baseUrl'],
      ['carrier', { provider: 'noest', config: { userGuid: 'G1', apiId: 'x', fromWilaya: 16 } }, 'config.apiId'],
      ['carrier', { config: { apiId: 'x', fromWilaya: 16 }, secrets: { password: 'x' } }, 'secrets.password'],
      ['carrier', { config: { apiId: 'x', fromWilaya: 16 }, secrets: { apiToken: '' } }, 'secrets.apiToken'],
      ['payments', { config: { providers: ['cod', 'paypal'] } }, 'config.providers.1'],
      ['payments', { config: {} }, 'config.providers'],
      ['payments', { config: { providers: ['cod', 'cod'] } }, 'config.providers'],
      ['custom-thing', { config: {}, secrets: { 'bad name': 'x' } }, 'secrets.bad name'],
    ];
    for (const [key, body, path] of cases) {
      const res = await put(s, key, body);
      assertProblem(res, 400, 'VALIDATION_FAILED');
      assertField(res, path);
    }
    const missing = await put(s, 'custom-thing', {});
    assertProblem(missing, 400, 'VALIDATION_FAILED');
    assert.equal((await api('GET', `/v1/stores/${s.storeId}/integrations`, { token: s.token })).body.data.length, 0, 'nothing half-written');
  });

  test('payments: the shape the payment routes read', async () => {
    const s = await ownerWithStore(api);
    const res = await put(s, 'payments', {
      enabled: true,
      config: { providers: ['cod', 'chargily', 'stripe'], defaultMethod: 'cod' },
      secrets: { chargilySecretKey: 'test_sk_chargily_123456', stripeSecretKey: 'sk_test_abcdef123456', stripeWebhookSecret: 'whsec_0123456789' },
    });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.kind, 'payments');
    assert.equal(res.body.provider, null);
    assert.deepEqual(Object.keys(res.body.secrets).sort(), ['chargilySecretKey', 'stripeSecretKey', 'stripeWebhookSecret']);
    assert.equal(res.body.secrets.stripeWebhookSecret.last4, '6789');
  });

  test('other keys are custom: free JSON up to 16 KiB, else 413', async () => {
    const s = await ownerWithStore(api);
    const ok = await put(s, 'my-erp', { provider: 'odoo', config: { nested: { list: [1, 2, 3] }, text: 'x'.repeat(16_000) } });
    assert.equal(ok.status, 201, ok.text);
    assert.equal(ok.body.kind, 'custom');
    assert.equal(ok.body.provider, 'odoo');
    const big = await put(s, 'my-erp', { config: { text: 'x'.repeat(16 * 1024) } });
    assertProblem(big, 413, 'PAYLOAD_TOO_LARGE');
    assert.equal((await get(s, 'my-erp')).body.config.text.length, 16_000, 'unchanged');
    const bigPatch = await patch(s, 'my-erp', { config: { more: 'y'.repeat(2000) } });
    assertProblem(bigPatch, 413, 'PAYLOAD_TOO_LARGE');
  });

  test('at most 50 per store, counted under a lock: 20 racing creations past 45 leave exactly 50', async () => {
    const s = await ownerWithStore(api);
    for (let i = 0; i < 45; i++) assert.equal((await put(s, `k-${i}`, { config: {} })).status, 201);
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => put(s, `race-${i}`, { config: {} })));
    assert.equal(results.filter((r) => r.status === 201).length, 5);
    for (const r of results.filter((r) => r.status !== 201)) assertProblem(r, 422, 'LIMIT_EXCEEDED');
    assert.equal((await api('GET', `/v1/stores/${s.storeId}/integrations`, { token: s.token })).body.data.length, 50);
    assert.equal((await put(s, 'k-0', { config: { replaced: true } })).status, 200, 'replacing is not creating');
  });

  test('20 racing PUTs of one new key: one 201, the rest 200', async () => {
    const s = await ownerWithStore(api);
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => put(s, 'same', { config: { i } })));
    assert.deepEqual(results.map((r) => r.status).sort((a, b) => a - b), [...Array(19).fill(200), 201]);
  });
});

describe('PATCH and DELETE', () => {
  test('PATCH merges config (RFC 7396) and sets or removes secrets; a change makes it unverified', async () => {
    const s = await ownerWithStore(api);
    await put(s, 'carrier', { ...CARRIER, config: { ...CARRIER.config, orderStatusMap: { in_transit: 'shipped', delivered: 'delivered' } } });
    await svc.service.deps.orm.em.fork().execute(`update store_integrations set status = 'active' where store_id = ?`, [s.storeId]);
    const res = await patch(s, 'carrier', { config: { fromWilaya: 31, orderStatusMap: { in_transit: null, returned: 'returned' } } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.config, { apiId: CARRIER.config.apiId, fromWilaya: 31, orderStatusMap: { delivered: 'delivered', returned: 'returned' } });
    assert.equal(res.body.status, 'unverified');
    assert.equal(res.body.secrets.apiToken.last4, 'c7w5');

    const rotated = await patch(s, 'carrier', { secrets: { apiToken: 'new-token-abcdefgh9876' } });
    assert.equal(rotated.body.secrets.apiToken.last4, '9876');
    const removed = await patch(s, 'carrier', { secrets: { apiToken: null } });
    assert.deepEqual(removed.body.secrets, {});

    const invalidMerge = await patch(s, 'carrier', { config: { apiId: null } });
    assertProblem(invalidMerge, 400, 'VALIDATION_FAILED');
    assertField(invalidMerge, 'config.apiId');
    const disabled = await patch(s, 'carrier', { enabled: false });
    assert.equal(disabled.body.enabled, false);
    assertProblem(await patch(s, 'nothing-here', { enabled: true }), 404, 'NOT_FOUND');
  });

  test('DELETE answers 204 and the key is gone', async () => {
    const s = await ownerWithStore(api);
    await put(s, 'carrier', CARRIER);
    const res = await api('DELETE', `/v1/stores/${s.storeId}/integrations/carrier`, { token: s.token });
    assert.equal(res.status, 204);
    assert.equal(res.text, '');
    assertProblem(await get(s, 'carrier'), 404, 'NOT_FOUND');
    assertProblem(await api('DELETE', `/v1/stores/${s.storeId}/integrations/carrier`, { token: s.token }), 404, 'NOT_FOUND');
  });
});

describe('who may read and write', () => {
  test('members read (masked); admin+ with store.integrations write', async () => {
    const s = await ownerWithStore(api);
    await put(s, 'carrier', CARRIER);
    const viewer = await memberWithRole(api, s.token, s.storeId, 'viewer');
    const editor = await memberWithRole(api, s.token, s.storeId, 'editor');
    const admin = await memberWithRole(api, s.token, s.storeId, 'admin');
    const seen = await get(s, 'carrier', viewer.token);
    assert.equal(seen.status, 200);
    assert.ok(!seen.text.includes(CARRIER.secrets.apiToken));
    assertProblem(await put(s, 'carrier', CARRIER, viewer.token), 403, 'FORBIDDEN');
    assertProblem(await put(s, 'carrier', CARRIER, editor.token), 403, 'FORBIDDEN');
    assertProblem(await patch(s, 'carrier', { enabled: false }, editor.token), 403, 'FORBIDDEN');
    assertProblem(await api('DELETE', `/v1/stores/${s.storeId}/integrations/carrier`, { token: editor.token }), 403, 'FORBIDDEN');
    assert.equal((await put(s, 'carrier', CARRIER, admin.token)).status, 200);

    const stranger = await signup(api);
    assertProblem(await get(s, 'carrier', stranger.token), 404, 'NOT_FOUND');
    assertProblem(await put(s, 'carrier', CARRIER, stranger.token), 404, 'NOT_FOUND');
    assertProblem(await api('GET', `/v1/stores/${s.storeId}/integrations`), 401, 'UNAUTHENTICATED');

    const readApp = await oauthToken(admin.user.id, ['store.read']);
    assert.equal((await get(s, 'carrier', readApp)).status, 200);
    assertProblem(await put(s, 'carrier', CARRIER, readApp), 403, 'FORBIDDEN');
    const integrationsApp = await oauthToken(admin.user.id, ['store.integrations']);
    assert.equal((await patch(s, 'carrier', { enabled: true }, integrationsApp)).status, 200);
    const editorApp = await oauthToken(editor.user.id, ['store.integrations']);
    assertProblem(await patch(s, 'carrier', { enabled: true }, editorApp), 403, 'FORBIDDEN');
  });
});
