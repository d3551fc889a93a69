import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertProblem, client, ownerWithStore, signup, startTestService, type Api, type TestService } from './helpers.js';
import { gql, oauthToken } from './catalog-helpers.js';

let svc: TestService;
let api: Api;
let admin: Awaited<ReturnType<typeof signup>>;
let user: Awaited<ReturnType<typeof signup>>;

before(async () => {
  svc = await startTestService();
  api = client(svc.url);
  // The first account of a fresh database is the platform admin.
  admin = await signup(api, 'Admin');
  user = await signup(api, 'User');
  assert.equal(admin.user.platformRole, 'admin');
  assert.equal(user.user.platformRole, 'user');
});
after(() => svc.close());

const O = '/v1/options';
const sql = (text: string, params: unknown[] = []) => svc.service.deps.orm.em.fork().getConnection().execute(text, params);

describe('options', () => {
  test('PUT creates (201) then replaces (200); GET one and all; DELETE', async () => {
    const created = await api('PUT', `${O}/site.name`, { token: admin.token, body: { value: 'Souk', public: true } });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.key, 'site.name');
    assert.equal(created.body.value, 'Souk');
    assert.equal(created.body.public, true);
    const replaced = await api('PUT', `${O}/site.name`, { token: admin.token, body: { value: { en: 'Souk', ar: 'سوق' } } });
    assert.equal(replaced.status, 200);
    assert.deepEqual(replaced.body.value, { en: 'Souk', ar: 'سوق' });
    assert.equal(replaced.body.public, false, 'PUT replaces: public defaults to false');
    assert.equal(replaced.body.createdAt, created.body.createdAt);
    for (const value of [42, [1, 'two'], true, null, 'text']) {
      const r = await api('PUT', `${O}/any-json`, { token: admin.token, body: { value } });
      assert.ok(r.status === 200 || r.status === 201);
      assert.deepEqual((await api('GET', `${O}/any-json`, { token: admin.token })).body.value, value);
    }
    const one = await api('GET', `${O}/site.name`, { token: admin.token });
    assert.deepEqual(one.body, replaced.body);
    const all = await api('GET', O, { token: admin.token });
    assert.deepEqual(all.body.data.map((o: any) => o.key), ['any-json', 'site.name']);
    assert.equal((await api('DELETE', `${O}/any-json`, { token: admin.token })).status, 204);
    assertProblem(await api('GET', `${O}/any-json`, { token: admin.token }), 404, 'NOT_FOUND');
    assertProblem(await api('DELETE', `${O}/any-json`, { token: admin.token }), 404, 'NOT_FOUND');
  });

  test('bad input: key, missing value, a value over 64 KiB (413), unknown fields', async () => {
    const key = await api('PUT', `${O}/bad%20key`, { token: admin.token, body: { value: 1 } });
    assertProblem(key, 400, 'VALIDATION_FAILED');
    assert.equal(key.body.errors[0].path, 'key');
    const missing = await api('PUT', `${O}/k`, { token: admin.token, body: { public: true } });
    assertProblem(missing, 400, 'VALIDATION_FAILED');
    assert.equal(missing.body.errors[0].path, 'value');
    const big = await api('PUT', `${O}/big`, { token: admin.token, body: { value: 'x'.repeat(64 * 1024) } });
    assertProblem(big, 413, 'PAYLOAD_TOO_LARGE');
    assert.equal(big.body.errors[0].path, 'value');
    const justUnder = await api('PUT', `${O}/big`, { token: admin.token, body: { value: 'x'.repeat(64 * 1024 - 2) } });
    assert.equal(justUnder.status, 201);
    assertProblem(await api('PUT', `${O}/k`, { token: admin.token, body: { value: 1, extra: true } }), 400, 'VALIDATION_FAILED');
    await api('DELETE', `${O}/big`, { token: admin.token });
  });

  test('platform admins only: 401 without a token, 403 for users and app tokens', async () => {
    const routes: Array<[string, string, unknown?]> = [
      ['GET', O],
      ['GET', `${O}/site.name`],
      ['PUT', `${O}/site.name`, { value: 1 }],
      ['DELETE', `${O}/site.name`],
      ['POST', `${O}/reload`],
    ];
    const owner = await ownerWithStore(api);
    const app = await oauthToken(api, admin.token, ['store.read', 'store.settings']);
    for (const [method, path, body] of routes) {
      assertProblem(await api(method, path, { body }), 401, 'UNAUTHENTICATED');
      assertProblem(await api(method, path, { token: user.token, body }), 403, 'FORBIDDEN');
      assertProblem(await api(method, path, { token: owner.token, body }), 403, 'FORBIDDEN');
      assertProblem(await api(method, path, { token: app, body }), 403, 'FORBIDDEN');
    }
  });

  test('reads come from the cache; POST /reload re-reads the table and moves the version', async () => {
    await api('PUT', `${O}/cached`, { token: admin.token, body: { value: 'before', public: true } });
    // Changed behind the service's back: the cache does not know yet.
    await sql(`update platform_options set value = '"behind"' where key = 'cached'`);
    assert.equal((await api('GET', `${O}/cached`, { token: admin.token })).body.value, 'before');
    assert.equal((await api('GET', '/v1/configs')).body.options.cached, 'before');
    const v1 = (await api('POST', `${O}/reload`, { token: admin.token })).body;
    assert.equal(v1.reloaded, true);
    assert.equal(typeof v1.version, 'number');
    assert.equal((await api('GET', `${O}/cached`, { token: admin.token })).body.value, 'behind');
    const v2 = (await api('POST', `${O}/reload`, { token: admin.token })).body;
    assert.ok(v2.version > v1.version);
    await api('PUT', `${O}/cached`, { token: admin.token, body: { value: 1 } });
    const v3 = (await api('POST', `${O}/reload`, { token: admin.token })).body;
    assert.equal(v3.version, v2.version + 2);
  });

  test('concurrent writes: every one lands and the cache ends on the last version (20 in parallel)', async () => {
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => api('PUT', `${O}/race-${i % 4}`, { token: admin.token, body: { value: i } })));
    for (const r of results) assert.ok(r.status === 200 || r.status === 201, r.text);
    assert.equal(results.filter((r) => r.status === 201).length, 4);
    const [{ version }] = await sql('select version from platform_options_version');
    const reload = (await api('POST', `${O}/reload`, { token: admin.token })).body;
    assert.equal(reload.version, Number(version) + 1);
    const rows = await sql(`select key, value from platform_options where key like 'race-%' order by key`);
    const listed = (await api('GET', O, { token: admin.token })).body.data.filter((o: any) => o.key.startsWith('race-'));
    assert.deepEqual(listed.map((o: any) => [o.key, o.value]), rows.map((r: any) => [r.key, r.value]));
  });
});

describe('configs', () => {
  test('public, with public options only, features, currencies and languages', async () => {
    await api('PUT', `${O}/brand.color`, { token: admin.token, body: { value: '#0a7', public: true } });
    await api('PUT', `${O}/internal.secret`, { token: admin.token, body: { value: 'hidden' } });
    const res = await api('GET', '/v1/configs');
    assert.equal(res.status, 200);
    const c = res.body;
    assert.deepEqual(Object.keys(c).sort(), ['currencies', 'features', 'languages', 'options']);
    assert.equal(c.options['brand.color'], '#0a7');
    assert.ok(!('internal.secret' in c.options));
    assert.ok(!res.text.includes('hidden'));
    assert.deepEqual(c.features, { smtp: false, ai: true, payments: ['cod', 'chargily', 'stripe'], carriers: ['yalidine'] });
    assert.deepEqual(c.currencies.find((x: any) => x.code === 'DZD'), { code: 'DZD', symbol: 'DZD', name: 'Algerian Dinar', precision: 2 });
    assert.equal(c.currencies.find((x: any) => x.code === 'JPY').precision, 0);
    assert.equal(c.currencies.find((x: any) => x.code === 'KWD').precision, 3);
    assert.deepEqual(c.languages, [
      { code: 'ar', name: 'Arabic', nativeName: 'العربية' },
      { code: 'fr', name: 'French', nativeName: 'français' },
      { code: 'en', name: 'English', nativeName: 'English' },
    ]);
  });

  test('the currencies and languages options narrow the lists', async () => {
    await api('PUT', `${O}/currencies`, { token: admin.token, body: { value: ['DZD', 'EUR', 'NOPE'] } });
    await api('PUT', `${O}/languages`, { token: admin.token, body: { value: ['kab', 'ar-DZ'] } });
    const c = (await api('GET', '/v1/configs')).body;
    assert.deepEqual(c.currencies.map((x: any) => x.code), ['DZD', 'EUR']);
    assert.deepEqual(c.languages.map((x: any) => x.code), ['kab', 'ar-DZ']);
    assert.equal(c.languages[0].name, 'Kabyle');
    await api('DELETE', `${O}/currencies`, { token: admin.token });
    await api('DELETE', `${O}/languages`, { token: admin.token });
  });

  test('ETag and 304; a public change gives a new tag', async () => {
    const first = await fetch(`${svc.url}/v1/configs`);
    const etag = first.headers.get('etag')!;
    assert.match(etag, /^"[^"]+"$/);
    const again = await fetch(`${svc.url}/v1/configs`, { headers: { 'if-none-match': etag } });
    assert.equal(again.status, 304);
    await api('PUT', `${O}/private.only`, { token: admin.token, body: { value: 1 } });
    assert.equal((await fetch(`${svc.url}/v1/configs`, { headers: { 'if-none-match': etag } })).status, 304, 'a private option changes nothing public');
    await api('PUT', `${O}/announcement`, { token: admin.token, body: { value: 'Eid sale', public: true } });
    const changed = await fetch(`${svc.url}/v1/configs`, { headers: { 'if-none-match': etag } });
    assert.equal(changed.status, 200);
    assert.notEqual(changed.headers.get('etag'), etag);
    assert.equal(((await changed.json()) as any).options.announcement, 'Eid sale');
  });

  test('GraphQL twins', async () => {
    const r = await gql(svc.url, undefined, '{ configs { features { payments } languages { code } } }');
    assert.deepEqual(r.data.configs.features.payments, ['cod', 'chargily', 'stripe']);
    const put = await gql(svc.url, admin.token, 'mutation { putOption(key: "gql.opt", input: {value: {a: 1}, public: true}) { created option { key value } } }');
    assert.deepEqual(put.data.putOption, { created: true, option: { key: 'gql.opt', value: { a: 1 } } });
    const denied = await gql(svc.url, user.token, '{ options { data { key } } }');
    assert.equal(denied.errors?.[0].extensions.code, 'FORBIDDEN');
  });
});
