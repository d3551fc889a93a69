import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertProblem, client, memberWithRole, ownerWithStore, startTestService, type Api, type TestService } from './helpers.js';
import { gql } from './catalog-helpers.js';

let svc: TestService;
let api: Api;
let owner: Awaited<ReturnType<typeof ownerWithStore>>;

before(async () => {
  svc = await startTestService();
  api = client(svc.url);
  owner = await ownerWithStore(api);
});
after(() => svc.close());

const T = '/v1/store_templates';
const EN = { 'cart.title': 'Your cart', 'cart.items': '{count, plural, =0 {No items} one {# item} other {# items}}', greeting: 'Hello {name}!' };

async function template(body: Record<string, unknown> = {}) {
  const res = await api('POST', `${T}?storeId=${owner.storeId}`, { token: owner.token, body: { name: 'Lithium', ...body } });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

const locales = (id: string) => `${T}/${id}/locales?storeId=${owner.storeId}`;
const locale = (id: string, tag: string) => `${T}/${id}/locales/${encodeURIComponent(tag)}?storeId=${owner.storeId}`;

describe('store templates', () => {
  test('create, list, show, PATCH, DELETE', async () => {
    const t = await template({ defaultLocale: 'EN-us' });
    assert.match(t.id, /^stt_/);
    assert.equal(t.storeId, owner.storeId);
    assert.equal(t.name, 'Lithium');
    assert.equal(t.defaultLocale, 'en-US');
    const list = await api('GET', `${T}?storeId=${owner.storeId}`, { token: owner.token });
    assert.ok(list.body.data.some((x: any) => x.id === t.id));
    assert.deepEqual((await api('GET', `${T}/${t.id}?storeId=${owner.storeId}`, { token: owner.token })).body, t);
    const patched = await api('PATCH', `${T}/${t.id}?storeId=${owner.storeId}`, { token: owner.token, body: { name: 'Lithium 2', defaultLocale: 'ar' } });
    assert.equal(patched.body.name, 'Lithium 2');
    assert.equal(patched.body.defaultLocale, 'ar');
    assertProblem(await api('PATCH', `${T}/${t.id}?storeId=${owner.storeId}`, { token: owner.token, body: { defaultLocale: 'en_US' } }), 400, 'VALIDATION_FAILED');
    assert.equal((await api('DELETE', `${T}/${t.id}?storeId=${owner.storeId}`, { token: owner.token })).status, 204);
    assertProblem(await api('GET', `${T}/${t.id}?storeId=${owner.storeId}`, { token: owner.token }), 404, 'NOT_FOUND');
    assertProblem(await api('GET', locales(t.id), { token: owner.token }), 404, 'NOT_FOUND');
    const missing = await api('GET', T, { token: owner.token });
    assertProblem(missing, 400, 'VALIDATION_FAILED');
    assert.equal(missing.body.errors[0].path, 'storeId');
  });
});

describe('locales', () => {
  test('the first locale becomes the default; GET gives the bundle with coverage', async () => {
    const t = await template();
    const en = await api('POST', locales(t.id), { token: owner.token, body: { locale: 'en-us', messages: EN } });
    assert.equal(en.status, 201, en.text);
    assert.equal(en.body.locale, 'en-US');
    assert.equal(en.body.isDefault, true);
    assert.deepEqual(en.body.messages, EN);
    const fr = await api('POST', locales(t.id), { token: owner.token, body: { locale: 'FR', messages: { 'cart.title': 'Votre panier' } } });
    assert.equal(fr.status, 201);
    assert.equal(fr.body.locale, 'fr');
    assert.equal(fr.body.isDefault, false);
    const ar = await api('POST', locales(t.id), { token: owner.token, body: { locale: 'ar', messages: {} } });
    assert.equal(ar.status, 201);
    const bundle = await api('GET', locales(t.id), { token: owner.token });
    assert.equal(bundle.status, 200);
    assert.equal(bundle.body.defaultLocale, 'en-US');
    assert.deepEqual(bundle.body.locales, ['ar', 'en-US', 'fr']);
    assert.deepEqual(bundle.body.messages.fr, { 'cart.title': 'Votre panier' });
    assert.deepEqual(bundle.body.coverage, {
      'en-US': { missing: [], percent: 100 },
      fr: { missing: ['cart.items', 'greeting'], percent: 33.33 },
      ar: { missing: ['cart.items', 'cart.title', 'greeting'], percent: 0 },
    });
    assert.deepEqual(bundle.body.rows.map((r: any) => [r.locale, r.isDefault]), [['ar', false], ['en-US', true], ['fr', false]]);
    assert.equal((await api('GET', `${T}/${t.id}?storeId=${owner.storeId}`, { token: owner.token })).body.defaultLocale, 'en-US');
    assertProblem(await api('POST', locales(t.id), { token: owner.token, body: { locale: 'en-US', messages: {} } }), 409, 'CONFLICT');
    assertProblem(await api('POST', locales(t.id), { token: owner.token, body: { locale: 'EN-US' } }), 409, 'CONFLICT');
  });

  test('bad input: a tag that is not BCP 47, a message that is not ICU (400 at its key), nested messages', async () => {
    const t = await template();
    const tag = await api('POST', locales(t.id), { token: owner.token, body: { locale: 'en_US', messages: {} } });
    assertProblem(tag, 400, 'VALIDATION_FAILED');
    assert.equal(tag.body.errors[0].path, 'locale');
    const icu = await api('POST', locales(t.id), { token: owner.token, body: { locale: 'en', messages: { ok: 'fine', 'cart.items': '{count, plural, one {# item}' } } });
    assertProblem(icu, 400, 'VALIDATION_FAILED');
    assert.equal(icu.body.errors[0].path, 'messages.cart.items');
    const unclosed = await api('POST', locales(t.id), { token: owner.token, body: { locale: 'en', messages: { hello: 'Hello {name' } } });
    assertProblem(unclosed, 400, 'VALIDATION_FAILED');
    assert.equal(unclosed.body.errors[0].path, 'messages.hello');
    const nested = await api('POST', locales(t.id), { token: owner.token, body: { locale: 'en', messages: { cart: { title: 'x' } } } });
    assertProblem(nested, 400, 'VALIDATION_FAILED');
    assert.equal(nested.body.errors[0].path, 'messages.cart');
    const put = await api('PUT', locale(t.id, 'fr'), { token: owner.token, body: { messages: { bad: '{n, select}' } } });
    assertProblem(put, 400, 'VALIDATION_FAILED');
    assert.equal(put.body.errors[0].path, 'messages.bad');
    const set = await api('PUT', locales(t.id), { token: owner.token, body: { locales: [{ locale: 'en', messages: {} }, { locale: 'de', messages: { x: '{' } }] } });
    assertProblem(set, 400, 'VALIDATION_FAILED');
    assert.equal(set.body.errors[0].path, 'locales.1.messages.x');
    const dup = await api('PUT', locales(t.id), { token: owner.token, body: { locales: [{ locale: 'en' }, { locale: 'EN' }] } });
    assertProblem(dup, 400, 'VALIDATION_FAILED');
    assert.equal(dup.body.errors[0].path, 'locales.1.locale');
    assert.deepEqual((await api('GET', locales(t.id), { token: owner.token })).body.locales, []);
  });

  test('PUT /{locale}: 201 when new, 200 when it exists; isDefault moves the default', async () => {
    const t = await template();
    const created = await api('PUT', locale(t.id, 'ar-dz'), { token: owner.token, body: { messages: { hi: 'مرحبا' } } });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.locale, 'ar-DZ');
    assert.equal(created.body.isDefault, true);
    const fr = await api('PUT', locale(t.id, 'fr'), { token: owner.token, body: { messages: { hi: 'Salut' } } });
    assert.equal(fr.status, 201);
    assert.equal(fr.body.isDefault, false);
    const updated = await api('PUT', locale(t.id, 'fr'), { token: owner.token, body: { messages: { hi: 'Bonjour' }, isDefault: true } });
    assert.equal(updated.status, 200);
    assert.equal(updated.body.isDefault, true);
    assert.deepEqual(updated.body.messages, { hi: 'Bonjour' });
    const bundle = (await api('GET', locales(t.id), { token: owner.token })).body;
    assert.equal(bundle.defaultLocale, 'fr');
    assert.deepEqual(bundle.rows.filter((r: any) => r.isDefault).map((r: any) => r.locale), ['fr']);
    // Only the default flag: the messages stay.
    const flagOnly = await api('PUT', locale(t.id, 'ar-DZ'), { token: owner.token, body: { isDefault: true } });
    assert.equal(flagOnly.status, 200);
    assert.deepEqual(flagOnly.body.messages, { hi: 'مرحبا' });
    assertProblem(await api('PUT', locale(t.id, 'ar-DZ'), { token: owner.token, body: { isDefault: false } }), 409, 'CONFLICT');
  });

  test('DELETE /{locale}: 204; the default only once it is the last (409 before)', async () => {
    const t = await template();
    await api('POST', locales(t.id), { token: owner.token, body: { locale: 'en', messages: EN } });
    await api('POST', locales(t.id), { token: owner.token, body: { locale: 'fr', messages: {} } });
    assertProblem(await api('DELETE', locale(t.id, 'en'), { token: owner.token }), 409, 'CONFLICT');
    const del = await api('DELETE', locale(t.id, 'FR'), { token: owner.token });
    assert.equal(del.status, 204);
    assertProblem(await api('DELETE', locale(t.id, 'fr'), { token: owner.token }), 404, 'NOT_FOUND');
    assert.equal((await api('DELETE', locale(t.id, 'en'), { token: owner.token })).status, 204);
    const empty = (await api('GET', locales(t.id), { token: owner.token })).body;
    assert.deepEqual(empty.locales, []);
    assert.equal(empty.defaultLocale, null);
    assertProblem(await api('DELETE', locale(t.id, 'not a tag'), { token: owner.token }), 400, 'VALIDATION_FAILED');
  });

  test('PUT on the collection replaces the set and its default', async () => {
    const t = await template();
    await api('POST', locales(t.id), { token: owner.token, body: { locale: 'en', messages: EN } });
    await api('POST', locales(t.id), { token: owner.token, body: { locale: 'fr', messages: { greeting: 'Salut {name} !' } } });
    let res = await api('PUT', locales(t.id), { token: owner.token, body: { locales: [{ locale: 'fr', messages: { a: 'A' } }, { locale: 'de-de', messages: { a: 'A', b: 'B' }, isDefault: true }] } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.defaultLocale, 'de-DE');
    assert.deepEqual(res.body.locales, ['de-DE', 'fr']);
    assert.deepEqual(res.body.messages.fr, { a: 'A' });
    assert.deepEqual(res.body.coverage.fr, { missing: ['b'], percent: 50 });
    // No flag: the default stays while it is in the set, else the first one given.
    res = await api('PUT', locales(t.id), { token: owner.token, body: { locales: [{ locale: 'fr' }, { locale: 'de-DE' }] } });
    assert.equal(res.body.defaultLocale, 'de-DE');
    res = await api('PUT', locales(t.id), { token: owner.token, body: { locales: [{ locale: 'it' }, { locale: 'es' }] } });
    assert.equal(res.body.defaultLocale, 'it');
    const two = await api('PUT', locales(t.id), { token: owner.token, body: { locales: [{ locale: 'it', isDefault: true }, { locale: 'es', isDefault: true }] } });
    assertProblem(two, 400, 'VALIDATION_FAILED');
    assert.equal(two.body.errors[0].path, 'locales.1.isDefault');
    res = await api('PUT', locales(t.id), { token: owner.token, body: { locales: [] } });
    assert.deepEqual(res.body.locales, []);
    assert.equal(res.body.defaultLocale, null);
  });

  test('concurrent first locales: exactly one default (20 runs)', async () => {
    for (let run = 0; run < 20; run++) {
      const t = await template();
      const results = await Promise.all(['en', 'fr', 'ar', 'de'].map((tag) => api('PUT', locale(t.id, tag), { token: owner.token, body: { messages: { k: tag } } })));
      for (const r of results) assert.equal(r.status, 201, r.text);
      assert.equal(results.filter((r) => r.body.isDefault).length, 1, `run ${run}`);
      const bundle = (await api('GET', locales(t.id), { token: owner.token })).body;
      assert.equal(bundle.rows.filter((r: any) => r.isDefault).length, 1);
    }
  });

  test('members read, editors write; another store sees nothing; GraphQL twin', async () => {
    const t = await template();
    const viewer = await memberWithRole(api, owner.token, owner.storeId, 'viewer');
    assert.equal((await api('GET', locales(t.id), { token: viewer.token })).status, 200);
    assertProblem(await api('POST', locales(t.id), { token: viewer.token, body: { locale: 'en' } }), 403, 'FORBIDDEN');
    const stranger = await ownerWithStore(api);
    assertProblem(await api('GET', `${T}/${t.id}/locales?storeId=${stranger.storeId}`, { token: stranger.token }), 404, 'NOT_FOUND');
    assertProblem(await api('GET', locales(t.id), { token: stranger.token }), 404, 'NOT_FOUND');
    const r = await gql(svc.url, owner.token, 'mutation($s: ID!, $id: ID!) { createStoreTemplateLocale(storeId: $s, id: $id, input: {locale: "pt-br", messages: {a: "b"}}) { locale isDefault } }', { s: owner.storeId, id: t.id });
    assert.deepEqual(r.data.createStoreTemplateLocale, { locale: 'pt-BR', isDefault: true });
    const q = await gql(svc.url, viewer.token, 'query($s: ID!, $id: ID!) { storeTemplateLocales(storeId: $s, id: $id) { defaultLocale coverage } }', { s: owner.storeId, id: t.id });
    assert.equal(q.data.storeTemplateLocales.defaultLocale, 'pt-BR');
  });
});
