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

const base = '/v1/template_components';
const SCHEMA = { type: 'object', properties: { heading: { type: 'string', minLength: 2 }, count: { type: 'integer', minimum: 0 } }, required: ['heading'] };

async function create(storeId: string, token: string, body: Record<string, unknown> = {}) {
  const res = await api('POST', `${base}?storeId=${storeId}`, { token, body: { title: 'Hero', code: 'export default () => <h1/>', propsSchema: SCHEMA, propsDefault: { heading: 'Hello' }, ...body } });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

describe('template components: create and read', () => {
  test('create answers 201 with every field and defaults', async () => {
    const c = await create(owner.storeId, owner.token);
    assert.match(c.id, /^tpc_[0-9a-f]+$/);
    assert.equal(c.storeId, owner.storeId);
    assert.equal(c.title, 'Hero');
    assert.equal(c.code, 'export default () => <h1/>');
    assert.deepEqual(c.propsSchema, SCHEMA);
    assert.deepEqual(c.propsDefault, { heading: 'Hello' });
    assert.equal(c.policy, 'private');
    assert.equal(c.version, 1);
    assert.equal(c.parentId, null);
    assert.equal(c.updateAvailable, false);
    assert.deepEqual(c.tags, []);
    for (const k of ['subtitle', 'body', 'category', 'imageUrl', 'slotsSchema', 'slotsDefault']) assert.equal(c[k], null, k);
    const shown = await api('GET', `${base}/${c.id}?storeId=${owner.storeId}`, { token: owner.token });
    assert.deepEqual(shown.body, c);
  });

  test('a schema that is not JSON Schema is 400 at its path; code is stored, never run', async () => {
    const bad = await api('POST', `${base}?storeId=${owner.storeId}`, { token: owner.token, body: { title: 'x', code: 'process.exit(1)', propsSchema: { type: 'object', properties: { a: { type: 'strin' } } } } });
    assertProblem(bad, 400, 'VALIDATION_FAILED');
    assert.ok(bad.body.errors.some((e: any) => e.path === 'propsSchema.properties.a.type'), bad.text);
    const badPattern = await api('POST', `${base}?storeId=${owner.storeId}`, { token: owner.token, body: { title: 'x', code: '', propsSchema: { type: 'string', pattern: '(' } } });
    assertProblem(badPattern, 400, 'VALIDATION_FAILED');
    assert.ok(badPattern.body.errors[0].path.startsWith('propsSchema'), badPattern.text);
    const unresolved = await api('POST', `${base}?storeId=${owner.storeId}`, { token: owner.token, body: { title: 'x', code: '', propsSchema: { $ref: 'https://example.com/remote.json' } } });
    assertProblem(unresolved, 400, 'VALIDATION_FAILED');
    assert.equal(unresolved.body.errors[0].path, 'propsSchema');
    const ok = await create(owner.storeId, owner.token, { code: 'process.exit(1)' });
    assert.equal(ok.code, 'process.exit(1)');
  });

  test('defaults must validate against the schema (400 with the path)', async () => {
    const short = await api('POST', `${base}?storeId=${owner.storeId}`, { token: owner.token, body: { title: 'x', code: '', propsSchema: SCHEMA, propsDefault: { heading: 'H' } } });
    assertProblem(short, 400, 'VALIDATION_FAILED');
    assert.deepEqual(short.body.errors.map((e: any) => e.path), ['propsDefault.heading']);
    const missing = await api('POST', `${base}?storeId=${owner.storeId}`, { token: owner.token, body: { title: 'x', code: '', propsSchema: SCHEMA } });
    assertProblem(missing, 400, 'VALIDATION_FAILED');
    assert.deepEqual(missing.body.errors, [{ path: 'propsDefault.heading', message: 'is required' }]);
    const slots = await api('POST', `${base}?storeId=${owner.storeId}`, {
      token: owner.token,
      body: { title: 'x', code: '', slotsSchema: { type: 'object', properties: { items: { type: 'array', maxItems: 1 } } }, slotsDefault: { items: [1, 2] } },
    });
    assertProblem(slots, 400, 'VALIDATION_FAILED');
    assert.equal(slots.body.errors[0].path, 'slotsDefault.items');
  });

  test('a catastrophic pattern runs in linear time: its author gets the plain answer, the server keeps its CPU', async () => {
    const started = Date.now();
    const res = await api('POST', `${base}?storeId=${owner.storeId}`, {
      token: owner.token,
      body: { title: 'x', code: '', propsSchema: { type: 'object', properties: { t: { type: 'string', pattern: '^(a+)+$' } } }, propsDefault: { t: `${'a'.repeat(60_000)}!` } },
    });
    assertProblem(res, 400, 'VALIDATION_FAILED');
    assert.deepEqual(res.body.errors[0], { path: 'propsDefault.t', message: 'must match pattern "^(a+)+$"' });
    assert.ok(Date.now() - started < 10_000);
    assert.equal((await api('GET', '/healthz')).status, 200);
  });

  test('a pattern the linear-time engine cannot run (backreference, lookaround) is refused at its schema', async () => {
    for (const pattern of ['^(a)\\1$', '^(?=a)a$']) {
      const res = await api('POST', `${base}?storeId=${owner.storeId}`, {
        token: owner.token,
        body: { title: 'x', code: '', propsSchema: { type: 'object', properties: { t: { type: 'string', pattern } } } },
      });
      assertProblem(res, 400, 'VALIDATION_FAILED');
      assert.equal(res.body.errors[0].path, 'propsSchema');
      assert.match(res.body.errors[0].message, /linear-time engine/);
    }
  });

  test('storeId selects the store: missing → 400 at storeId, a store of someone else → 404', async () => {
    const missing = await api('POST', base, { token: owner.token, body: { title: 'x', code: '' } });
    assertProblem(missing, 400, 'VALIDATION_FAILED');
    assert.deepEqual(missing.body.errors, [{ path: 'storeId', message: 'is required' }]);
    const other = await ownerWithStore(api);
    assertProblem(await api('POST', `${base}?storeId=${other.storeId}`, { token: owner.token, body: { title: 'x', code: '' } }), 404, 'NOT_FOUND');
    const mine = await create(owner.storeId, owner.token);
    assertProblem(await api('GET', `${base}/${mine.id}?storeId=${other.storeId}`, { token: other.token }), 404, 'NOT_FOUND');
    assertProblem(await api('PATCH', `${base}/${mine.id}?storeId=${other.storeId}`, { token: other.token, body: { title: 'stolen' } }), 404, 'NOT_FOUND');
  });

  test('the marketplace: without storeId, public and deprecated entries of every store, no token needed', async () => {
    const seller = await ownerWithStore(api);
    const pub = await create(seller.storeId, seller.token, { title: 'Public hero', policy: 'public' });
    const dep = await create(seller.storeId, seller.token, { policy: 'deprecated' });
    const unlisted = await create(seller.storeId, seller.token, { policy: 'unlisted' });
    const priv = await create(seller.storeId, seller.token);
    const market = await api('GET', `${base}?limit=200`);
    assert.equal(market.status, 200);
    const ids = market.body.data.map((c: any) => c.id);
    assert.ok(ids.includes(pub.id) && ids.includes(dep.id));
    assert.ok(!ids.includes(unlisted.id) && !ids.includes(priv.id));
    assert.ok(market.body.data.every((c: any) => c.policy === 'public' || c.policy === 'deprecated'));
    const onlyPublic = await api('GET', `${base}?policy=public&q=public%20hero`);
    assert.deepEqual(onlyPublic.body.data.map((c: any) => c.id), [pub.id]);
    assert.deepEqual((await api('GET', `${base}?policy=private`)).body.data, []);
    // One store's library: every policy, for members only.
    const lib = await api('GET', `${base}?storeId=${seller.storeId}`, { token: seller.token });
    assert.deepEqual(lib.body.data.map((c: any) => c.id), [priv.id, unlisted.id, dep.id, pub.id]);
    assertProblem(await api('GET', `${base}?storeId=${seller.storeId}`), 401, 'UNAUTHENTICATED');
    assertProblem(await api('GET', `${base}?storeId=${seller.storeId}`, { token: owner.token }), 404, 'NOT_FOUND');
    // By id without storeId: shared entries only.
    assert.equal((await api('GET', `${base}/${unlisted.id}`)).status, 200);
    assert.equal((await api('GET', `${base}/${pub.id}`)).body.title, 'Public hero');
    assertProblem(await api('GET', `${base}/${priv.id}`), 404, 'NOT_FOUND');
    // Pagination.
    const first = await api('GET', `${base}?storeId=${seller.storeId}&limit=3`, { token: seller.token });
    assert.equal(first.body.data.length, 3);
    const second = await api('GET', `${base}?storeId=${seller.storeId}&limit=3&cursor=${first.body.nextCursor}`, { token: seller.token });
    assert.deepEqual(second.body.data.map((c: any) => c.id), [pub.id]);
    assert.equal(second.body.nextCursor, null);
  });
});

describe('template components: update, version, delete', () => {
  test('PATCH changes given fields; version moves with code and schemas only', async () => {
    const c = await create(owner.storeId, owner.token);
    const url = `${base}/${c.id}?storeId=${owner.storeId}`;
    let res = await api('PATCH', url, { token: owner.token, body: { title: 'Renamed', tags: ['hero', 'top'], propsDefault: { heading: 'Hi there' } } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.title, 'Renamed');
    assert.deepEqual(res.body.tags, ['hero', 'top']);
    assert.equal(res.body.version, 1);
    assert.equal(res.body.code, c.code);
    res = await api('PATCH', url, { token: owner.token, body: { code: 'v2' } });
    assert.equal(res.body.version, 2);
    res = await api('PATCH', url, { token: owner.token, body: { code: 'v2' } });
    assert.equal(res.body.version, 2, 'the same code is no change');
    // Same schema, keys in another order: no change.
    const reordered = { required: ['heading'], properties: { count: { minimum: 0, type: 'integer' }, heading: { minLength: 2, type: 'string' } }, type: 'object' };
    res = await api('PATCH', url, { token: owner.token, body: { propsSchema: reordered } });
    assert.equal(res.body.version, 2);
    res = await api('PATCH', url, { token: owner.token, body: { slotsSchema: { type: 'object' } } });
    assert.equal(res.body.version, 3);
    res = await api('PATCH', url, { token: owner.token, body: { subtitle: null, category: 'hero' } });
    assert.equal(res.body.category, 'hero');
    assert.equal(res.body.version, 3);
    assert.ok(Date.parse(res.body.updatedAt) >= Date.parse(c.updatedAt));
  });

  test('PATCH keeps the document valid: a schema the stored default breaks is 400', async () => {
    const c = await create(owner.storeId, owner.token);
    const url = `${base}/${c.id}?storeId=${owner.storeId}`;
    const res = await api('PATCH', url, { token: owner.token, body: { propsSchema: { ...SCHEMA, properties: { heading: { type: 'string', minLength: 10 } } } } });
    assertProblem(res, 400, 'VALIDATION_FAILED');
    assert.equal(res.body.errors[0].path, 'propsDefault.heading');
    assertProblem(await api('PATCH', url, { token: owner.token, body: { policy: 'secret' } }), 400, 'VALIDATION_FAILED');
    assertProblem(await api('PATCH', url, { token: owner.token, body: { version: 9 } }), 400, 'VALIDATION_FAILED');
    assert.equal((await api('GET', url, { token: owner.token })).body.version, 1);
  });

  test('PUT replaces: omitted fields take their defaults; title and code are required', async () => {
    const c = await create(owner.storeId, owner.token, { subtitle: 'sub', tags: ['a'], policy: 'public' });
    const url = `${base}/${c.id}?storeId=${owner.storeId}`;
    const res = await api('PUT', url, { token: owner.token, body: { title: 'Fresh', code: 'new code' } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.title, 'Fresh');
    assert.equal(res.body.subtitle, null);
    assert.deepEqual(res.body.tags, []);
    assert.equal(res.body.policy, 'private');
    assert.deepEqual(res.body.propsSchema, {});
    assert.deepEqual(res.body.propsDefault, {});
    assert.equal(res.body.version, 2);
    const missing = await api('PUT', url, { token: owner.token, body: { title: 'No code' } });
    assertProblem(missing, 400, 'VALIDATION_FAILED');
    assert.equal(missing.body.errors[0].path, 'code');
  });

  test('concurrent code changes each move the version once (20 in parallel)', async () => {
    const c = await create(owner.storeId, owner.token);
    const url = `${base}/${c.id}?storeId=${owner.storeId}`;
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => api('PATCH', url, { token: owner.token, body: { code: `version ${i}` } })));
    for (const r of results) assert.equal(r.status, 200, r.text);
    assert.deepEqual(results.map((r) => r.body.version).sort((a, b) => a - b), Array.from({ length: 20 }, (_, i) => i + 2));
    assert.equal((await api('GET', url, { token: owner.token })).body.version, 21);
  });

  test('DELETE answers 204 and the entry is gone', async () => {
    const c = await create(owner.storeId, owner.token);
    const url = `${base}/${c.id}?storeId=${owner.storeId}`;
    const del = await api('DELETE', url, { token: owner.token });
    assert.equal(del.status, 204);
    assert.equal(del.text, '');
    assertProblem(await api('GET', url, { token: owner.token }), 404, 'NOT_FOUND');
    assertProblem(await api('DELETE', url, { token: owner.token }), 404, 'NOT_FOUND');
  });
});

describe('template components: fork and updateAvailable', () => {
  test('a fork is a private copy with parentId; updateAvailable once the source moves on', async () => {
    const seller = await ownerWithStore(api);
    const source = await create(seller.storeId, seller.token, { policy: 'public', tags: ['x'] });
    const fork = await api('POST', `${base}/${source.id}/fork?storeId=${owner.storeId}`, { token: owner.token });
    assert.equal(fork.status, 201, fork.text);
    assert.notEqual(fork.body.id, source.id);
    assert.equal(fork.body.storeId, owner.storeId);
    assert.equal(fork.body.parentId, source.id);
    assert.equal(fork.body.parentVersion, 1);
    assert.equal(fork.body.policy, 'private');
    assert.equal(fork.body.title, source.title);
    assert.equal(fork.body.code, source.code);
    assert.deepEqual(fork.body.propsSchema, source.propsSchema);
    assert.equal(fork.body.updateAvailable, false);
    const forkUrl = `${base}/${fork.body.id}?storeId=${owner.storeId}`;
    // A title-only change on the source is no new version.
    await api('PATCH', `${base}/${source.id}?storeId=${seller.storeId}`, { token: seller.token, body: { title: 'Renamed source' } });
    assert.equal((await api('GET', forkUrl, { token: owner.token })).body.updateAvailable, false);
    await api('PATCH', `${base}/${source.id}?storeId=${seller.storeId}`, { token: seller.token, body: { code: 'improved' } });
    const after = await api('GET', forkUrl, { token: owner.token });
    assert.equal(after.body.updateAvailable, true);
    assert.equal(after.body.code, source.code, 'the fork keeps its own code');
    const listed = await api('GET', `${base}?storeId=${owner.storeId}&limit=200`, { token: owner.token });
    assert.equal(listed.body.data.find((c: any) => c.id === fork.body.id).updateAvailable, true);
    // Named at fork time.
    const named = await api('POST', `${base}/${source.id}/fork?storeId=${owner.storeId}`, { token: owner.token, body: { title: 'My hero' } });
    assert.equal(named.body.title, 'My hero');
    assert.equal(named.body.parentVersion, 2);
  });

  test('who may fork what', async () => {
    const seller = await ownerWithStore(api);
    const priv = await create(seller.storeId, seller.token);
    const unlisted = await create(seller.storeId, seller.token, { policy: 'unlisted' });
    assertProblem(await api('POST', `${base}/${priv.id}/fork?storeId=${owner.storeId}`, { token: owner.token }), 404, 'NOT_FOUND');
    assert.equal((await api('POST', `${base}/${unlisted.id}/fork?storeId=${owner.storeId}`, { token: owner.token })).status, 201);
    // Within one's own store a private entry can be forked.
    assert.equal((await api('POST', `${base}/${priv.id}/fork?storeId=${seller.storeId}`, { token: seller.token })).status, 201);
    const missing = await api('POST', `${base}/${unlisted.id}/fork`, { token: owner.token });
    assertProblem(missing, 400, 'VALIDATION_FAILED');
    assert.equal(missing.body.errors[0].path, 'storeId');
    const viewer = await memberWithRole(api, owner.token, owner.storeId, 'viewer');
    assertProblem(await api('POST', `${base}/${unlisted.id}/fork?storeId=${owner.storeId}`, { token: viewer.token }), 403, 'FORBIDDEN');
    assertProblem(await api('POST', `${base}/tpc_0000/fork?storeId=${owner.storeId}`, { token: owner.token }), 404, 'NOT_FOUND');
  });

  test('GraphQL twin: the same library and fork', async () => {
    const c = await create(owner.storeId, owner.token, { policy: 'public' });
    const list = await gql(svc.url, owner.token, 'query($s: ID) { templateComponents(storeId: $s, limit: 200) { data { id version } } }', { s: owner.storeId });
    assert.ok(list.data.templateComponents.data.some((x: any) => x.id === c.id));
    const fork = await gql(svc.url, owner.token, 'mutation($s: ID!, $id: ID!) { forkTemplateComponent(storeId: $s, id: $id, input: {title: "G"}) { id parentId title updateAvailable } }', { s: owner.storeId, id: c.id });
    assert.equal(fork.data.forkTemplateComponent.parentId, c.id);
    assert.equal(fork.data.forkTemplateComponent.title, 'G');
    const denied = await gql(svc.url, undefined, 'mutation($s: ID!) { createTemplateComponent(storeId: $s, input: {title: "x", code: ""}) { id } }', { s: owner.storeId });
    assert.equal(denied.errors?.[0].extensions.code, 'UNAUTHENTICATED');
  });
});

describe('template components: imageUrl is served by the marketplace', () => {
  test('http(s) only on create, PATCH and PUT: javascript:, data: and scheme-less URLs → 400', async () => {
    const c = await create(owner.storeId, owner.token, { imageUrl: 'https://cdn.example/hero.png' });
    for (const imageUrl of ['javascript:alert(document.cookie)', 'data:text/html,<script>alert(1)</script>', 'JAVASCRIPT:alert(1)', '//cdn.example/x.png']) {
      const tries = await Promise.all([
        api('POST', `${base}?storeId=${owner.storeId}`, { token: owner.token, body: { title: 'X', code: 'x', imageUrl } }),
        api('PATCH', `${base}/${c.id}?storeId=${owner.storeId}`, { token: owner.token, body: { imageUrl } }),
        api('PUT', `${base}/${c.id}?storeId=${owner.storeId}`, { token: owner.token, body: { title: 'X', code: 'x', imageUrl } }),
      ]);
      for (const res of tries) {
        assertProblem(res, 400, 'VALIDATION_FAILED');
        assert.equal(res.body.errors[0].path, 'imageUrl', res.text);
      }
    }
    assert.equal((await api('GET', `${base}/${c.id}?storeId=${owner.storeId}`, { token: owner.token })).body.imageUrl, 'https://cdn.example/hero.png');
  });
});
