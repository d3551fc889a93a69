import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { client, signup, startTestService, statementsOf, until, type Api, type TestService } from './helpers.js';

/**
 * A conditional catalogue read answered from memory (storefront.freshness): no statement reads
 * the catalogue while the store's data has not moved, and any committed change (here or on
 * another replica) makes the remembered ETag stale.
 */
let A: TestService;
let api: Api;

const LIMITS = { SOUK_STOREFRONT_MAX_READS_PER_ADDRESS: '100000', SOUK_STOREFRONT_MAX_CHECKOUTS_PER_ADDRESS: '100000' };

before(async () => {
  A = await startTestService(LIMITS);
  api = client(A.url);
});
const defaultApi = () => api;
after(() => A.close());

async function shop(readsPerAddress = 100000, api = defaultApi()) {
  const owner = await signup(api, 'Owner');
  const created = await api('POST', '/v1/stores', { token: owner.token, body: { name: 'Revalidated' } });
  assert.equal(created.status, 201, created.text);
  const res = await api('PATCH', `/v1/stores/${created.body.id}`, { token: owner.token, body: { storefront: { limits: { readsPerAddress } } } });
  assert.equal(res.status, 200, res.text);
  const p = await api('POST', `/v1/stores/${created.body.id}/products`, { token: owner.token, body: { name: 'Tea', price: 100, stock: 10 } });
  assert.equal(p.status, 201, p.text);
  return { token: owner.token, storeId: created.body.id as string, slug: res.body.slug as string, productId: p.body.id as string };
}

const get = (base: string, path: string, etag?: string, headers: Record<string, string> = {}) =>
  fetch(`${base}${path}`, { headers: { ...headers, ...(etag ? { 'if-none-match': etag } : {}) } });

describe('storefront: revalidation from memory', () => {
  test('a second conditional read of an unchanged product reads nothing; the 304 keeps its ETag and caching headers', async () => {
    const s = await shop();
    const path = `/v1/storefront/${s.slug}/products/${s.productId}`;
    const first = await get(A.url, path);
    assert.equal(first.status, 200);
    const etag = first.headers.get('etag')!;
    // The first conditional read runs (and remembers); the next ones need no statement on the catalogue.
    assert.equal((await get(A.url, path, etag)).status, 304);
    let answer!: Response;
    const statements = await statementsOf(A, async () => {
      answer = await get(A.url, path, etag);
    });
    assert.equal(answer.status, 304);
    assert.equal(answer.headers.get('etag'), etag);
    assert.equal(answer.headers.get('cache-control'), first.headers.get('cache-control'));
    assert.equal(answer.headers.get('access-control-allow-origin'), '*');
    assert.deepEqual(
      statements.filter((t) => /\b(products|stores)\b/i.test(t)),
      [],
    );
    // Another ETag is not the remembered one: the read runs and answers the body.
    const other = await get(A.url, path, '"not-it"');
    assert.equal(other.status, 200);
    assert.equal(other.headers.get('etag'), etag);
  });

  test('every kind of change a shopper can see makes the remembered ETag stale before the write answers', async () => {
    const s = await shop();
    const changes: Array<[string, () => Promise<unknown>]> = [
      ['product price', () => api('PATCH', `/v1/stores/${s.storeId}/products/${s.productId}`, { token: s.token, body: { price: 150 } })],
      ['stock', () => api('PATCH', `/v1/stores/${s.storeId}/products/${s.productId}`, { token: s.token, body: { stock: 0 } })],
      ['store currency display', () => api('PATCH', `/v1/stores/${s.storeId}`, { token: s.token, body: { storefront: { showStockLevels: true } } })],
      ['store name', () => api('PATCH', `/v1/stores/${s.storeId}`, { token: s.token, body: { name: 'Renamed' } })],
    ];
    const paths = [`/v1/storefront/${s.slug}/products/${s.productId}`, `/v1/storefront/${s.slug}/products?limit=5`, `/v1/storefront/${s.slug}`];
    for (const [what, change] of changes) {
      const tags = new Map<string, string>();
      for (const path of paths) {
        const r = await get(A.url, path);
        tags.set(path, r.headers.get('etag')!);
        assert.equal((await get(A.url, path, tags.get(path))).status, 304, `${what}: ${path} remembered`);
      }
      const res = (await change()) as { status: number; text: string };
      assert.ok(res.status < 300, `${what}: ${res.text}`);
      const moved = [];
      for (const path of paths) {
        const r = await get(A.url, path, tags.get(path));
        if (r.status === 200) moved.push(path);
        else assert.equal(r.status, 304);
      }
      // Each change shows in at least the product's own answer (the store's name only in the store's).
      assert.ok(moved.length > 0, `${what}: nothing answered a new body`);
      for (const path of moved) {
        const full = await get(A.url, path);
        assert.notEqual(full.headers.get('etag'), tags.get(path), `${what}: ${path}`);
      }
    }
  });

  test('a shipping method and a published page change their answers', async () => {
    const s = await shop();
    const ship = `/v1/storefront/${s.slug}/shipping?state=16`;
    const before = await get(A.url, ship);
    const etag = before.headers.get('etag')!;
    assert.equal((await get(A.url, ship, etag)).status, 304);
    const m = await api('POST', `/v1/shipping_methods?storeId=${s.storeId}`, { token: s.token, body: { name: 'Flat', status: 'published', price: 500 } });
    assert.equal(m.status, 201, m.text);
    const after = await get(A.url, ship, etag);
    assert.equal(after.status, 200);
    assert.equal(((await after.json()) as { options: unknown[] }).options.length, 2);
  });

  test('a 304 from memory still counts against the read limit and carries the store CORS decision', async () => {
    const s = await shop(6);
    await api('PATCH', `/v1/stores/${s.storeId}`, { token: s.token, body: { storefront: { allowedOrigins: ['https://shop.example'] } } });
    const path = `/v1/storefront/${s.slug}/products/${s.productId}`;
    const origin = { origin: 'https://shop.example' };
    const etag = (await get(A.url, path, undefined, origin)).headers.get('etag')!;
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) {
      const r = await get(A.url, path, etag, origin);
      statuses.push(r.status);
      if (r.status === 304) assert.equal(r.headers.get('access-control-allow-origin'), 'https://shop.example');
      else assert.ok(r.headers.get('retry-after'));
    }
    assert.deepEqual(statuses, [304, 304, 304, 304, 304, 429, 429, 429]);
  });

  test('the 304 answered before routing carries what the routed one does; a token or a key still takes the route', async () => {
    const headersOf = (r: Response) =>
      Object.fromEntries([...r.headers].filter(([name]) => !['date', 'x-request-id', 'connection', 'keep-alive'].includes(name)).sort(([a], [b]) => a.localeCompare(b)));
    /** Anonymous: from memory before the router. With a member's token: through the route (the token is checked first). */
    const compare = async (base: string, s: Awaited<ReturnType<typeof shop>>, what: string) => {
      const path = `/v1/storefront/${s.slug}/products/${s.productId}`;
      const etag = (await get(base, path)).headers.get('etag')!;
      assert.equal((await get(base, path, etag)).status, 304);
      for (const origin of [{}, { origin: 'https://shop.example' }, { origin: 'https://elsewhere.example' }] as Record<string, string>[]) {
        const early = await get(base, path, etag, origin);
        const routed = await get(base, path, etag, { ...origin, authorization: `Bearer ${s.token}` });
        assert.equal(early.status, 304);
        assert.equal(routed.status, 304);
        assert.deepEqual(headersOf(early), headersOf(routed), `${what} ${JSON.stringify(origin)}`);
        assert.match(early.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
        assert.equal((await get(base, path, etag, { ...origin, 'x-request-id': 'shop-42' })).headers.get('x-request-id'), 'shop-42');
      }
      return { path, etag };
    };
    const open = await shop();
    await compare(A.url, open, 'no list');
    const listed = await shop();
    await api('PATCH', `/v1/stores/${listed.storeId}`, { token: listed.token, body: { storefront: { allowedOrigins: ['https://shop.example'] } } });
    const { path, etag } = await compare(A.url, listed, 'a list');
    // A (tests default to SOUK_CORS_ORIGINS=*) runs the members' CORS plugin, which varies every answer
    // by Origin; in production without SOUK_CORS_ORIGINS it is off. Both ways the two 304s agree.
    // Its own database: the embedded one is a single process's.
    const B = await startTestService({ ...LIMITS, NODE_ENV: 'production', SOUK_SECRET_KEY: 'a'.repeat(64) });
    try {
      const apiB = client(B.url);
      await compare(B.url, await shop(100000, apiB), 'production without SOUK_CORS_ORIGINS, no list');
      const listedB = await shop(100000, apiB);
      await apiB('PATCH', `/v1/stores/${listedB.storeId}`, { token: listedB.token, body: { storefront: { allowedOrigins: ['https://shop.example'] } } });
      await compare(B.url, listedB, 'production without SOUK_CORS_ORIGINS, a list');
    } finally {
      await B.close();
    }
    const refused = await get(A.url, path, etag, { authorization: 'Bearer not-a-token' });
    assert.equal(refused.status, 401);
    const unknownKey = await get(A.url, path, etag, { 'x-souk-storefront-key': 'sfk_unknown' });
    assert.equal(unknownKey.status, 401);
  });

  test('writes racing conditional reads never leave a stale ETag answered 304 (5 rounds)', async () => {
    for (let round = 0; round < 5; round++) {
      const s = await shop();
      const path = `/v1/storefront/${s.slug}/products/${s.productId}`;
      const seen = new Set<string>([(await get(A.url, path)).headers.get('etag')!]);
      let writing = true;
      const writer = (async () => {
        for (let i = 1; i <= 15; i++) await api('PATCH', `/v1/stores/${s.storeId}/products/${s.productId}`, { token: s.token, body: { price: 100 + i } });
        writing = false;
      })();
      const reader = async () => {
        while (writing) {
          const tags = [...seen];
          const r = await get(A.url, path, tags[tags.length - 1]);
          const tag = r.headers.get('etag');
          if (tag) seen.add(tag);
        }
      };
      await Promise.all([writer, reader(), reader(), reader(), reader()]);
      // Every ETag seen, asked about once the writes are done: only the current one may be 304.
      const answers = [];
      for (const tag of seen) answers.push({ tag, status: (await get(A.url, path, tag)).status });
      const current = (await get(A.url, path)).headers.get('etag')!;
      for (const a of answers) assert.equal(a.status, a.tag === current ? 304 : 200, `round ${round}: ${a.tag} vs ${current}`);
    }
  });
});

const skip = process.env.DATABASE_URL ? false : 'needs a real PostgreSQL (DATABASE_URL): replicas share one database server';

describe('storefront: revalidation on two replicas', { skip }, () => {
  test('a change committed on one replica makes the other forget its remembered ETag (its NOTIFY)', async () => {
    const B = await startTestService(LIMITS, { databaseUrl: A.databaseUrl, dataDir: A.dataDir });
    try {
      const s = await shop();
      const path = `/v1/storefront/${s.slug}/products/${s.productId}`;
      const etag = (await get(B.url, path)).headers.get('etag')!;
      assert.equal((await get(B.url, path, etag)).status, 304);
      assert.equal((await get(B.url, path, etag)).status, 304);
      const res = await api('PATCH', `/v1/stores/${s.storeId}/products/${s.productId}`, { token: s.token, body: { price: 175 } });
      assert.equal(res.status, 200, res.text);
      const moved = await until('replica B sees the change', async () => ((await get(B.url, path, etag)).status === 200 ? true : undefined));
      assert.ok(moved);
      const body = (await (await get(B.url, path)).json()) as { price: number };
      assert.equal(body.price, 175);
    } finally {
      await B.close();
    }
  });
});
