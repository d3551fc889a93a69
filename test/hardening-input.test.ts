import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { assertProblem, client, ownerWithStore, signup, startTestService, type Api, type ApiResponse, type TestService } from './helpers.js';

/** Bad text and bad shapes (issue 10): 400 at the field, never a 500. */
let svc: TestService;
let api: Api;
let owner: Awaited<ReturnType<typeof ownerWithStore>>;
before(async () => {
  svc = await startTestService();
  api = client(svc.url);
  owner = await ownerWithStore(api);
});
after(() => svc.close());

const short = (res: ApiResponse) => `${res.status} ${res.text.slice(0, 300)}`;

function assertField(res: ApiResponse, path: string | RegExp) {
  if (res.status !== 400) assert.fail(`expected 400 at ${path}, got ${short(res)}`);
  assertProblem(res, 400, 'VALIDATION_FAILED');
  const paths = (res.body.errors ?? []).map((e: { path: string }) => e.path);
  assert.ok(
    paths.some((p: string) => (typeof path === 'string' ? p === path : path.test(p))),
    `expected an error at ${path}, got ${short(res)}`,
  );
}

/** A raw HTTP/1.1 exchange, for requests fetch would refuse or rewrite. */
function rawRequest(request: string): Promise<{ status: number; headers: string; body: string }> {
  const { port } = new URL(svc.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => socket.end(request));
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head, ...rest] = text.split('\r\n\r\n');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), headers: head, body: rest.join('\r\n\r\n') });
    });
  });
}

const NUL = '\u0000';
const LONE = '\ud800';

describe('U+0000 and lone surrogates: 400 at the field, wherever they come in', () => {
  test('body strings, nested strings and object keys', async () => {
    const base = `/v1/stores/${owner.storeId}`;
    assertField(await api('POST', '/v1/stores', { token: owner.token, body: { name: `a${NUL}b` } }), 'name');
    assertField(await api('POST', `${base}/products`, { token: owner.token, body: { name: 'x', price: 1, metadata: { deep: [{ v: `1${NUL}` }] } } }), 'metadata.deep.0.v');
    assertField(await api('POST', `${base}/products`, { token: owner.token, body: { name: 'x', price: 1, metadata: { [`k${NUL}`]: 1 } } }), /^metadata\./);
    assertField(await api('POST', `${base}/orders`, { token: owner.token, body: { customerName: 'x', items: [{ name: `T${NUL}`, price: 1 }] } }), 'items.0.name');
  });

  test('lone surrogates in JSON escapes', async () => {
    const base = `/v1/stores/${owner.storeId}`;
    assertField(await api('POST', '/v1/stores', { token: owner.token, raw: '{"name":"a\\ud800"}' }), 'name');
    assertField(await api('POST', `${base}/products`, { token: owner.token, raw: '{"name":"x","price":1,"metadata":{"a":"\\udc00x"}}' }), 'metadata.a');
    assertField(await api('POST', `${base}/products`, { token: owner.token, raw: '{"name":"x","price":1,"metadata":{"\\udfff":1}}' }), /^metadata\./);
    // A well-formed pair is fine.
    assert.equal((await api('POST', '/v1/stores', { token: owner.token, raw: '{"name":"a\\ud83d\\ude00"}' })).status, 201);
  });

  test('sign-in and sign-up emails, without a token', async () => {
    assertField(await api('POST', '/v1/users/auth/signin', { body: { email: `a${NUL}@x.y`, password: 'whatever123' } }), 'email');
    assertField(await api('POST', '/v1/users/auth/signup', { body: { email: `a${LONE}@x.y`, password: 'whatever123', name: 'n' } }), 'email');
    assertField(await api('POST', '/v1/users/auth/signup', { raw: '{"email":"a\\udc00@x.y","password":"whatever123","name":"n"}' }), 'email');
    assertField(await api('POST', '/v1/users/auth/reset-password', { body: { email: `${NUL}@x.y` } }), 'email');
  });

  test('query strings and path parameters', async () => {
    const base = `/v1/stores/${owner.storeId}`;
    assertField(await api('GET', `${base}/orders?q=a%00b`, { token: owner.token }), 'q');
    assertField(await api('GET', `${base}/orders?status=x&createdAfter=2024-01-01%00`, { token: owner.token }), 'createdAfter');
    // Percent-encoded surrogate halves are not UTF-8: decoded as U+FFFD, they are ordinary text.
    assert.equal((await api('GET', `${base}/orders?status=%ED%A0%80`, { token: owner.token })).status, 200);
    assertField(await api('GET', `/v1/stores/st_%00/products`, { token: owner.token }), 'storeId');
    assertField(await api('GET', `${base}/products/prod_%00`, { token: owner.token }), 'productId');
    assertField(await api('GET', `${base}/events?cursor=%00`, { token: owner.token }), 'cursor');
    assertField(await api('GET', `/v1/users/auth/reset-password?token=x%00`), 'token');
    // A route outside the GraphQL table (the event stream) too.
    assertField(await api('GET', `/v1/stores/st_%00/events/stream`, { token: owner.token, headers: { accept: 'text/event-stream' } }), 'storeId');
  });

  test('GraphQL variables and literals', async () => {
    const gql = (query: string, variables?: unknown) => api('POST', '/graphql', { token: owner.token, body: { query, variables } });
    const byVar = await gql('mutation($input: StoreCreateInput!) { createStore(input: $input) { id } }', { input: { name: `x${NUL}` } });
    assert.equal(byVar.status, 200, byVar.text);
    assert.equal(byVar.body.errors[0].extensions.code, 'VALIDATION_FAILED', byVar.text);
    assert.deepEqual(byVar.body.errors[0].extensions.errors.map((e: any) => e.path), ['input.name']);
    const literal = await gql('mutation { createStore(input: {name: "x\\u0000"}) { id } }');
    assert.equal(literal.body.errors[0].extensions.code, 'VALIDATION_FAILED', literal.text);
    const get = await api('GET', `/graphql?query=${encodeURIComponent('query($id: ID!) { store(id: $id) { id } }')}&variables=${encodeURIComponent(JSON.stringify({ id: `st_${NUL}` }))}`, {
      token: owner.token,
      headers: { 'apollo-require-preflight': '1' },
    });
    assert.equal(get.body.errors[0].extensions.code, 'VALIDATION_FAILED', get.text);
    assert.deepEqual(get.body.errors[0].extensions.errors.map((e: any) => e.path), ['id']);
  });
});

describe('nesting and size of JSON values', () => {
  const nested = (depth: number) => {
    let v: unknown = 1;
    for (let i = 0; i < depth; i++) v = { a: v };
    return v as Record<string, unknown>;
  };

  test('metadata nested 32 levels is kept; 33 levels, or 5,000, is a 400', async () => {
    const base = `/v1/stores/${owner.storeId}`;
    const ok = await api('POST', `${base}/products`, { token: owner.token, body: { name: 'deep', price: 1, metadata: nested(32) } });
    assert.equal(ok.status, 201, short(ok));
    assertField(await api('POST', `${base}/products`, { token: owner.token, body: { name: 'deeper', price: 1, metadata: nested(33) } }), 'metadata');
    assertField(await api('PATCH', `${base}/products/${ok.body.id}`, { token: owner.token, body: { metadata: nested(33) } }), 'metadata');
    assertField(await api('POST', `${base}/orders`, { token: owner.token, body: { customerName: 'x', metadata: nested(33) } }), 'metadata');
    const raw = `{"name":"x","price":1,"metadata":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}`;
    const res = await api('POST', `${base}/products`, { token: owner.token, raw });
    assert.equal(res.status, 400, short(res));
    const arrays = `{"name":"x","price":1,"metadata":{"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`;
    const res2 = await api('POST', `${base}/products`, { token: owner.token, raw: arrays });
    assert.equal(res2.status, 400, short(res2));
  });

  test('app data nested 33 levels is a 400', async () => {
    const app = await api('POST', '/v1/apps', { token: owner.token, body: { name: 'A', redirectUris: ['https://example.com/cb'], scopes: ['store.read'] } });
    assert.equal(app.status, 201, app.text);
    const ok = await api('PUT', `/v1/apps/${app.body.id}/public-data`, { token: owner.token, body: nested(32) });
    assert.equal(ok.status, 200, ok.text);
    for (const route of ['public-data', 'private-data', 'user-data/me']) {
      const res = await api('PUT', `/v1/apps/${app.body.id}/${route}`, { token: owner.token, body: nested(33) });
      assertProblem(res, 400, 'VALIDATION_FAILED');
    }
  });

  test('metadata of products and orders: at most 64 KiB', async () => {
    const base = `/v1/stores/${owner.storeId}`;
    const big = { blob: 'x'.repeat(64 * 1024) };
    for (const res of [
      await api('POST', `${base}/products`, { token: owner.token, body: { name: 'big', price: 1, metadata: big } }),
      await api('POST', `${base}/orders`, { token: owner.token, body: { customerName: 'big', metadata: big } }),
    ]) {
      assert.ok(res.status === 413 || res.status === 400, short(res));
      assert.match(res.headers.get('content-type') ?? '', /problem\+json/);
    }
    const fits = await api('POST', `${base}/products`, { token: owner.token, body: { name: 'fits', price: 1, metadata: { blob: 'x'.repeat(60 * 1024) } } });
    assert.equal(fits.status, 201, short(fits));
  });
});

test('dates: years 1..9999 only', async () => {
  const base = `/v1/stores/${owner.storeId}/orders`;
  for (const bad of ['0000-01-01', '-000001-01-01', '+010000-01-01', '10000-01-01', '2024-13-01', '2024-02-30T00:00:00Z']) {
    assertField(await api('GET', `${base}?createdAfter=${encodeURIComponent(bad)}`, { token: owner.token }), 'createdAfter');
    assertField(await api('GET', `${base}?createdBefore=${encodeURIComponent(bad)}`, { token: owner.token }), 'createdBefore');
  }
  for (const good of ['0001-01-01', '9999-12-31T23:59:59.999Z', '2024-02-29', '2024-05-01T10:00:00+02:00']) {
    const res = await api('GET', `${base}?createdAfter=${encodeURIComponent(good)}`, { token: owner.token });
    assert.equal(res.status, 200, `${good}: ${res.text}`);
  }
});

describe('webhook header values are RFC 9110 field values', () => {
  const create = (headers: Record<string, string>) =>
    api('POST', `/v1/stores/${owner.storeId}/integrations/webhooks`, { token: owner.token, body: { name: 'H', url: 'https://example.com/h', headers } });

  test('control characters, non-Latin-1 text and edge whitespace are refused at the header', async () => {
    for (const value of ['a\u0001b', 'tab\tend\u007f', '日本', 'euro €', ' leading', 'trailing ', 'a\u0085b'.replace('\u0085', '\u2028')]) {
      assertField(await create({ 'X-Token': value }), 'headers.X-Token');
    }
    const ok = await create({ 'X-Token': 'Bearer abc.def', 'X-Latin': 'café\tau lait', 'X-Empty': '' });
    assert.equal(ok.status, 201, short(ok));
    const patched = await api('PATCH', `/v1/stores/${owner.storeId}/integrations/webhooks/${ok.body.id}`, { token: owner.token, body: { headers: { 'X-Token': 'a\u0007' } } });
    assertField(patched, 'headers.X-Token');
    const tested = await api('POST', `/v1/stores/${owner.storeId}/integrations/webhooks/test`, { token: owner.token, body: { url: 'https://example.com/h', headers: { 'X-A': '\u00ff\u0100' } } });
    assertField(tested, 'headers.X-A');
  });

  test('Content-Encoding and Expect are refused like the other transport headers', async () => {
    for (const name of ['Content-Encoding', 'content-encoding', 'Expect', 'EXPECT']) assertField(await create({ [name]: 'gzip' }), `headers.${name}`);
  });
});

describe("fastify's own errors are problem+json", () => {
  test('a path parameter over the length limit: 414', async () => {
    const res = await api('GET', `/v1/stores/${'x'.repeat(500)}`, { token: owner.token });
    assert.equal(res.status, 414, res.text);
    assert.match(res.headers.get('content-type') ?? '', /application\/problem\+json/);
    assert.equal(res.body.status, 414);
    assert.equal(res.body.type, 'about:blank');
    assert.equal(typeof res.body.code, 'string');
  });

  test('bad percent-encoding in the path: 400', async () => {
    const res = await rawRequest(`GET /v1/stores/%E0%A4%A HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${owner.token}\r\nConnection: close\r\n\r\n`);
    assert.equal(res.status, 400, res.body);
    assert.match(res.headers, /content-type: application\/problem\+json/i);
    const body = JSON.parse(res.body);
    assert.equal(body.code, 'BAD_REQUEST');
    assert.equal(body.status, 400);
  });

  test('headers over the size limit: 431', async () => {
    const res = await rawRequest(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'y'.repeat(20_000)}\r\nConnection: close\r\n\r\n`);
    assert.equal(res.status, 431, res.body);
    assert.match(res.headers, /content-type: application\/problem\+json/i);
    const body = JSON.parse(res.body);
    assert.equal(body.status, 431);
    assert.equal(body.type, 'about:blank');
  });

  test('a malformed request line: 400 problem+json', async () => {
    const res = await rawRequest(`GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n`);
    assert.equal(res.status, 400, res.body);
    assert.match(res.headers, /content-type: application\/problem\+json/i);
  });
});

test('nothing above: a fresh account still signs in', async () => {
  const u = await signup(api);
  assert.ok(u.token);
});
