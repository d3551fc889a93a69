import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertProblem, client, startTestService, type Api, type TestService } from './helpers.js';
import { geoCities, geoStates, isStateCode } from '../src/domains/geo/geo.data.js';

let svc: TestService;
let api: Api;

/** Another service on the first one's PostgreSQL database; PGlite (one process per data dir) gets its own. */
const sameDatabase = () => (svc.databaseUrl ? { databaseUrl: svc.databaseUrl, dataDir: svc.dataDir } : undefined);

const CODES = Array.from({ length: 69 }, (_, i) => String(i + 1).padStart(2, '0'));
/** The eleven wilayas created in 2025, as Law 26-06 numbers them. */
const NEW_WILAYAS: Record<string, string> = {
  '59': 'Aflou',
  '60': 'Barika',
  '61': 'El Kantara',
  '62': 'Bir El Ater',
  '63': 'El Aricha',
  '64': 'Ksar Chellala',
  '65': 'Aïn Oussera',
  '66': 'Messaad',
  '67': 'Ksar El Boukhari',
  '68': 'Bou Saâda',
  '69': 'El Abiodh Sidi Cheikh',
};
const ARABIC = /^[\u0600-\u06FF\s'()-]+$/u;

/** The dataset is installed beside the code, not committed (src/domains/geo/data/SOURCE.md). */
const installed = (() => {
  try {
    return geoStates('DZ') !== null;
  } catch {
    return false;
  }
})();
if (!installed) console.log('# geo: the GeoAlgeria data is not installed here (node scripts/geo-data.mjs <dataset>, or SOUK_GEO_DATA_DIR); its tests are skipped');

describe('geo data (CONTRACT-3 §17.3)', { skip: !installed && 'the geo dataset is not installed' }, () => {
  before(async () => {
    svc = await startTestService();
    api = client(svc.url);
  });
  after(async () => {
    await svc?.close();
  });

  test('the 69 wilayas of the 2025 division, codes 01 to 69, with Latin and Arabic names', async () => {
    const res = await api('GET', '/v1/geo/countries/DZ/states');
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.body.data.map((s: any) => s.code),
      CODES,
    );
    for (const s of res.body.data) {
      assert.deepEqual(Object.keys(s).sort(), ['code', 'name', 'nameAr']);
      assert.ok(s.name.length > 1 && ARABIC.test(s.nameAr), JSON.stringify(s));
    }
    const byCode = new Map(res.body.data.map((s: any) => [s.code, s]));
    assert.equal((byCode.get('16') as any).name, 'Alger');
    assert.equal((byCode.get('16') as any).nameAr, 'الجزائر');
    for (const [code, name] of Object.entries(NEW_WILAYAS)) assert.equal((byCode.get(code) as any).name, name);
  });

  test("a wilaya's communes, with postal codes (null where the dataset has none); 1,541 in all", async () => {
    const res = await api('GET', '/v1/geo/countries/DZ/states/16/cities');
    assert.equal(res.status, 200);
    const centre = res.body.data.find((c: any) => c.name === 'Alger Centre');
    assert.deepEqual(centre, { name: 'Alger Centre', nameAr: centre.nameAr, postalCode: '16000' });
    assert.ok(ARABIC.test(centre.nameAr));
    let total = 0;
    let withoutPostalCode = 0;
    for (const code of CODES) {
      const cities = geoCities('DZ', code)!;
      assert.ok(cities.length > 0, `wilaya ${code} has communes`);
      for (const c of cities) {
        assert.ok(c.name && ARABIC.test(c.nameAr), JSON.stringify(c));
        assert.ok(c.postalCode === null || /^\d{5}$/.test(c.postalCode), JSON.stringify(c));
        if (c.postalCode === null) withoutPostalCode++;
      }
      total += cities.length;
    }
    assert.equal(total, 1541);
    assert.ok(withoutPostalCode < 200, `${withoutPostalCode} communes without a postal code`);
    // The communes that moved to a new wilaya are listed under it, no longer under their mother wilaya.
    const bouSaada = geoCities('DZ', '68')!.map((c) => c.name);
    assert.ok(bouSaada.includes('Bou Saada') || bouSaada.some((n) => /^Bou Sa[aâ]da$/.test(n)), bouSaada.join(', '));
    assert.ok(!geoCities('DZ', '28')!.some((c) => /^Bou Sa[aâ]da$/.test(c.name)), "Bou Saâda is no longer a commune of M'Sila");
  });

  test('unknown country or wilaya: 404 NOT_FOUND, REST and GraphQL', async () => {
    for (const path of ['/v1/geo/countries/DZ/states/70/cities', '/v1/geo/countries/DZ/states/00/cities', '/v1/geo/countries/DZ/states/1/cities', '/v1/geo/countries/FR/states', '/v1/geo/countries/FR/states/01/cities']) {
      assertProblem(await api('GET', path), 404, 'NOT_FOUND');
    }
    const gql = await api('POST', '/graphql', { body: { query: '{ a: geoStates(country: "DZ") { code } b: geoCities(country: "DZ", state: "99") { name } }' } });
    assert.equal(gql.body.errors[0].extensions.code, 'NOT_FOUND');
    const ok = await api('POST', '/graphql', { body: { query: '{ geoCities(country: "DZ", state: "59") { name nameAr postalCode } }' } });
    assert.equal(ok.status, 200);
    assert.deepEqual(ok.body.data.geoCities, geoCities('DZ', '59'));
    assert.equal(isStateCode('DZ', '69'), true);
    assert.equal(isStateCode('DZ', '70'), false);
    assert.equal(isStateCode('FR', '01'), false);
    assert.equal(geoStates('XX'), null);
  });

  test('cacheable for a day with a strong ETag; If-None-Match answers 304 without a body', async () => {
    for (const path of ['/v1/geo/countries/DZ/states', '/v1/geo/countries/DZ/states/31/cities']) {
      const first = await api('GET', path);
      assert.equal(first.headers.get('cache-control'), 'public, max-age=86400, stale-while-revalidate=864000');
      const etag = first.headers.get('etag')!;
      assert.match(etag, /^"[^"]+"$/);
      const again = await fetch(svc.url + path, { headers: { 'if-none-match': etag } });
      assert.equal(again.status, 304);
      assert.equal(await again.text(), '');
      assert.equal(again.headers.get('etag'), etag);
      assert.equal(again.headers.get('cache-control'), 'public, max-age=86400, stale-while-revalidate=864000');
    }
    const other = await api('GET', '/v1/geo/countries/DZ/states/30/cities');
    assert.notEqual(other.headers.get('etag'), (await api('GET', '/v1/geo/countries/DZ/states/31/cities')).headers.get('etag'));
  });

  test('any origin may read them, without credentials, in production without SOUK_CORS_ORIGINS; preflights are answered', async () => {
    const prod = await startTestService({ NODE_ENV: 'production', SOUK_SECRET_KEY: 'a'.repeat(64) }, sameDatabase());
    try {
      const get = await fetch(`${prod.url}/v1/geo/countries/DZ/states`, { headers: { origin: 'https://shop.example' } });
      assert.equal(get.status, 200);
      assert.equal(get.headers.get('access-control-allow-origin'), '*');
      assert.equal(get.headers.get('access-control-allow-credentials'), null);
      assert.match(String(get.headers.get('access-control-expose-headers')), /etag/);
      const pre = await fetch(`${prod.url}/v1/geo/countries/DZ/states/16/cities`, {
        method: 'OPTIONS',
        headers: { origin: 'https://shop.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'if-none-match' },
      });
      assert.equal(pre.status, 204);
      assert.equal(pre.headers.get('access-control-allow-origin'), '*');
      assert.match(String(pre.headers.get('access-control-allow-headers')), /if-none-match/);
      // The other routes stay closed to browsers there.
      const closed = await fetch(`${prod.url}/v1/stores`, { headers: { origin: 'https://shop.example' } });
      assert.equal(closed.headers.get('access-control-allow-origin'), null);
      const closedPre = await fetch(`${prod.url}/v1/stores`, { method: 'OPTIONS', headers: { origin: 'https://shop.example', 'access-control-request-method': 'GET' } });
      assert.equal(closedPre.headers.get('access-control-allow-origin'), null);
    } finally {
      await prod.close();
    }
  });

  test('with SOUK_CORS_ORIGINS listing origins (with credentials), the geo routes still answer * without credentials', async () => {
    const listed = await startTestService({ SOUK_CORS_ORIGINS: 'https://dashboard.example' }, sameDatabase());
    try {
      for (const origin of ['https://dashboard.example', 'https://shop.example']) {
        const get = await fetch(`${listed.url}/v1/geo/countries/DZ/states`, { headers: { origin } });
        assert.equal(get.headers.get('access-control-allow-origin'), '*', origin);
        assert.equal(get.headers.get('access-control-allow-credentials'), null, origin);
      }
      const store = await fetch(`${listed.url}/v1/stores`, { headers: { origin: 'https://dashboard.example' } });
      assert.equal(store.headers.get('access-control-allow-origin'), 'https://dashboard.example');
      assert.equal(store.headers.get('access-control-allow-credentials'), 'true');
    } finally {
      await listed.close();
    }
  });

  test('a present but invalid bearer token is 401 here too', async () => {
    assertProblem(await api('GET', '/v1/geo/countries/DZ/states', { token: 'not-a-token' }), 401, 'UNAUTHENTICATED');
  });
});
