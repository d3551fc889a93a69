import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertProblem, client, memberWithRole, ownerWithStore, startTestService, type Api, type TestService } from './helpers.js';
import { oauthToken } from './catalog-helpers.js';

let svc: TestService;
let api: Api;
let owner: Awaited<ReturnType<typeof ownerWithStore>>;
const fx: Record<string, string> = {};

interface Call {
  method: string;
  path: (s: string) => string;
  body?: unknown;
  /** Reads need store.read; writes catalog.write (editor+ with store.settings). */
  write: boolean;
  /** Changes or removes the fixture: only checked where it must be refused. */
  destructive?: boolean;
  /** Without storeId: the public marketplace instead of a 400. */
  market?: boolean;
}

const calls: Call[] = [
  { method: 'GET', path: (s) => `/v1/template_components?storeId=${s}`, write: false, market: true },
  { method: 'POST', path: (s) => `/v1/template_components?storeId=${s}`, body: { title: 't', code: '' }, write: true },
  { method: 'GET', path: (s) => `/v1/template_components/${fx.tpc}?storeId=${s}`, write: false, market: true },
  { method: 'PATCH', path: (s) => `/v1/template_components/${fx.tpc}?storeId=${s}`, body: { title: 'x' }, write: true },
  { method: 'PUT', path: (s) => `/v1/template_components/${fx.tpc}?storeId=${s}`, body: { title: 'x', code: '' }, write: true },
  { method: 'DELETE', path: (s) => `/v1/template_components/${fx.tpc}?storeId=${s}`, write: true, destructive: true },
  { method: 'POST', path: (s) => `/v1/template_components/${fx.tpc}/fork?storeId=${s}`, write: true },
  { method: 'GET', path: (s) => `/v1/shipping_prices?storeId=${s}`, write: false },
  { method: 'POST', path: (s) => `/v1/shipping_prices?storeId=${s}`, body: { name: 'p' }, write: true },
  { method: 'GET', path: (s) => `/v1/shipping_prices/${fx.shp}?storeId=${s}`, write: false },
  { method: 'PATCH', path: (s) => `/v1/shipping_prices/${fx.shp}?storeId=${s}`, body: { name: 'x' }, write: true },
  { method: 'PUT', path: (s) => `/v1/shipping_prices/${fx.shp}?storeId=${s}`, body: { prices: {} }, write: true },
  { method: 'DELETE', path: (s) => `/v1/shipping_prices/${fx.shp}?storeId=${s}`, write: true, destructive: true },
  { method: 'GET', path: (s) => `/v1/shipping_methods?storeId=${s}`, write: false },
  { method: 'POST', path: (s) => `/v1/shipping_methods?storeId=${s}`, body: { name: 'm' }, write: true },
  { method: 'GET', path: (s) => `/v1/shipping_methods/${fx.shm}?storeId=${s}`, write: false },
  { method: 'PATCH', path: (s) => `/v1/shipping_methods/${fx.shm}?storeId=${s}`, body: { name: 'x' }, write: true },
  { method: 'PUT', path: (s) => `/v1/shipping_methods/${fx.shm}?storeId=${s}`, body: { name: 'x' }, write: true },
  { method: 'DELETE', path: (s) => `/v1/shipping_methods/${fx.shm}?storeId=${s}`, write: true, destructive: true },
  { method: 'POST', path: (s) => `/v1/shipping_methods/${fx.shm}/fork?storeId=${s}`, write: true },
  { method: 'GET', path: (s) => `/v1/store_templates?storeId=${s}`, write: false },
  { method: 'POST', path: (s) => `/v1/store_templates?storeId=${s}`, body: { name: 't' }, write: true },
  { method: 'GET', path: (s) => `/v1/store_templates/${fx.stt}?storeId=${s}`, write: false },
  { method: 'PATCH', path: (s) => `/v1/store_templates/${fx.stt}?storeId=${s}`, body: { name: 'x' }, write: true },
  { method: 'DELETE', path: (s) => `/v1/store_templates/${fx.stt}?storeId=${s}`, write: true, destructive: true },
  { method: 'GET', path: (s) => `/v1/store_templates/${fx.stt}/locales?storeId=${s}`, write: false },
  { method: 'POST', path: (s) => `/v1/store_templates/${fx.stt}/locales?storeId=${s}`, body: { locale: 'fr' }, write: true, destructive: true },
  { method: 'PUT', path: (s) => `/v1/store_templates/${fx.stt}/locales?storeId=${s}`, body: { locales: [{ locale: 'en' }] }, write: true },
  { method: 'PUT', path: (s) => `/v1/store_templates/${fx.stt}/locales/en?storeId=${s}`, body: { messages: { a: 'b' } }, write: true },
  { method: 'DELETE', path: (s) => `/v1/store_templates/${fx.stt}/locales/en?storeId=${s}`, write: true, destructive: true },
  { method: 'GET', path: (s) => `/v1/pages?storeId=${s}`, write: false },
  { method: 'POST', path: (s) => `/v1/pages?storeId=${s}`, body: { title: 'p' }, write: true },
  { method: 'GET', path: (s) => `/v1/pages/${fx.pg}?storeId=${s}`, write: false },
  { method: 'GET', path: (s) => `/v1/pages/fixture-page?storeId=${s}`, write: false },
  { method: 'PATCH', path: (s) => `/v1/pages/${fx.pg}?storeId=${s}`, body: { title: 'x' }, write: true },
  { method: 'PUT', path: (s) => `/v1/pages/${fx.pg}?storeId=${s}`, body: { title: 'x' }, write: true },
  { method: 'DELETE', path: (s) => `/v1/pages/${fx.pg}?storeId=${s}`, write: true, destructive: true },
];

before(async () => {
  svc = await startTestService();
  api = client(svc.url);
  owner = await ownerWithStore(api);
  const post = async (path: string, body: unknown) => {
    const r = await api('POST', `${path}?storeId=${owner.storeId}`, { token: owner.token, body });
    assert.equal(r.status, 201, r.text);
    return r.body.id as string;
  };
  fx.tpc = await post('/v1/template_components', { title: 'fixture', code: '' });
  fx.shp = await post('/v1/shipping_prices', { name: 'fixture' });
  fx.shm = await post('/v1/shipping_methods', { name: 'fixture' });
  fx.stt = await post('/v1/store_templates', { name: 'fixture' });
  fx.pg = await post('/v1/pages', { title: 'fixture', slug: 'fixture-page' });
  await api('PUT', `/v1/store_templates/${fx.stt}/locales/en?storeId=${owner.storeId}`, { token: owner.token, body: { messages: {} } });
});
after(() => svc.close());

const label = (c: Call) => `${c.method} ${c.path('S')}`;
const run = (c: Call, token?: string) => api(c.method, c.path(owner.storeId), { token, body: c.body });

describe('tenancy matrix of the catalog routes', () => {
  test('no token → 401; a member of another store → 404 (nothing revealed)', async () => {
    const stranger = await ownerWithStore(api);
    for (const c of calls) {
      assertProblem(await run(c), 401, 'UNAUTHENTICATED');
      const res = await run(c, stranger.token);
      assert.equal(res.status, 404, `${label(c)}: ${res.text}`);
      assertProblem(res, 404, 'NOT_FOUND');
    }
  });

  test('missing storeId → 400 at storeId on every route but the marketplace reads', async () => {
    for (const c of calls.filter((x) => !x.market)) {
      const url = c.path(owner.storeId).replace(/[?&]storeId=[^&]+/, '');
      const res = await api(c.method, url, { token: owner.token, body: c.body });
      assertProblem(res, 400, 'VALIDATION_FAILED');
      assert.deepEqual(res.body.errors, [{ path: 'storeId', message: 'is required' }], label(c));
    }
  });

  test('viewer: reads 200, writes 403', async () => {
    const viewer = await memberWithRole(api, owner.token, owner.storeId, 'viewer');
    for (const c of calls) {
      const res = await run(c, viewer.token);
      if (c.write) assertProblem(res, 403, 'FORBIDDEN');
      else assert.equal(res.status, 200, `${label(c)}: ${res.text}`);
    }
  });

  test('editor: every non-destructive write passes authorization', async () => {
    const editor = await memberWithRole(api, owner.token, owner.storeId, 'editor');
    for (const c of calls.filter((x) => !x.destructive)) {
      const res = await run(c, editor.token);
      assert.ok(res.status === 200 || res.status === 201, `${label(c)}: ${res.status} ${res.text}`);
    }
  });

  test('OAuth: scope ∩ role', async () => {
    const editor = await memberWithRole(api, owner.token, owner.storeId, 'editor');
    const viewer = await memberWithRole(api, owner.token, owner.storeId, 'viewer');
    const editorSettings = await oauthToken(api, editor.token, ['store.read', 'store.settings']);
    const editorRead = await oauthToken(api, editor.token, ['store.read']);
    const editorProducts = await oauthToken(api, editor.token, ['store.products']);
    const viewerSettings = await oauthToken(api, viewer.token, ['store.read', 'store.settings']);
    for (const c of calls.filter((x) => !x.destructive)) {
      const allowed = await run(c, editorSettings);
      assert.ok(allowed.status === 200 || allowed.status === 201, `${label(c)} with an editor's store.settings app: ${allowed.text}`);
      const readOnly = await run(c, editorRead);
      if (c.write) assertProblem(readOnly, 403, 'FORBIDDEN');
      else assert.equal(readOnly.status, 200, label(c));
      // A scope that names neither reading nor settings.
      assertProblem(await run(c, editorProducts), 403, 'FORBIDDEN');
      const capped = await run(c, viewerSettings);
      if (c.write) assertProblem(capped, 403, 'FORBIDDEN');
      else assert.equal(capped.status, 200, label(c));
    }
  });

  test('the public routes need no token and ignore membership', async () => {
    assert.equal((await api('GET', '/v1/configs')).status, 200);
    assert.equal((await api('GET', '/v1/template_components')).status, 200);
    await api('PATCH', `/v1/pages/${fx.pg}?storeId=${owner.storeId}`, { token: owner.token, body: { status: 'published', slug: 'fixture-page' } });
    const stranger = await ownerWithStore(api);
    assert.equal((await api('GET', `/v1/pages/view/fixture-page?storeId=${owner.storeId}`)).status, 200);
    assert.equal((await api('GET', `/v1/pages/view/fixture-page?storeId=${owner.storeId}`, { token: stranger.token })).status, 200);
    // A presented token must still be valid.
    assertProblem(await api('GET', '/v1/configs', { token: 'not-a-token' }), 401, 'UNAUTHENTICATED');
  });

  test('deleting a store takes its whole catalog with it', async () => {
    const gone = await ownerWithStore(api);
    const post = async (path: string, body: unknown) => (await api('POST', `${path}?storeId=${gone.storeId}`, { token: gone.token, body })).body.id as string;
    const price = await post('/v1/shipping_prices', { name: 'p', prices: { DZ: { '16': { home: 1 } } } });
    await post('/v1/shipping_methods', { name: 'm', shippingPriceId: price });
    await post('/v1/template_components', { title: 't', code: '' });
    const tpl = await post('/v1/store_templates', { name: 't' });
    await api('POST', `/v1/store_templates/${tpl}/locales?storeId=${gone.storeId}`, { token: gone.token, body: { locale: 'en', messages: { a: 'b' } } });
    const page = await post('/v1/pages', { title: 'p', slug: 'old', status: 'published' });
    await api('PATCH', `/v1/pages/${page}?storeId=${gone.storeId}`, { token: gone.token, body: { slug: 'new' } });
    assert.equal((await api('DELETE', `/v1/stores/${gone.storeId}`, { token: gone.token })).status, 204);
    const sql = (t: string) => svc.service.deps.orm.em.fork().getConnection().execute(t, [gone.storeId]);
    for (const table of ['shipping_prices', 'shipping_methods', 'template_components', 'store_templates', 'pages', 'page_redirects']) {
      assert.equal((await sql(`select count(*)::int as n from ${table} where store_id = ?`))[0].n, 0, table);
    }
    assert.equal((await svc.service.deps.orm.em.fork().getConnection().execute('select count(*)::int as n from store_template_locales where template_id = ?', [tpl]))[0].n, 0);
  });
});
