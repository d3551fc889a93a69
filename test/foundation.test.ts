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

describe('health and readiness', () => {
  test('GET /healthz answers ok', async () => {
    const res = await api('GET', '/healthz');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { status: 'ok' });
  });
  test('GET /readyz checks the database', async () => {
    const res = await api('GET', '/readyz');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { status: 'ready' });
  });
});

describe('error vocabulary over REST', () => {
  test('unknown route is a 404 problem', async () => {
    assertProblem(await api('GET', '/v1/no/such/route'), 404, 'NOT_FOUND');
  });
  test('malformed JSON is 400 BAD_REQUEST', async () => {
    const res = await api('POST', '/v1/users/auth/signup', { raw: '{"email": "a@b.c",' });
    assertProblem(res, 400, 'BAD_REQUEST');
  });
  test('unknown body field is 400 VALIDATION_FAILED naming the field', async () => {
    const res = await api('POST', '/v1/users/auth/signup', { body: { email: 'x@y.zz', password: 'longenough', name: 'N', admin: true } });
    assertProblem(res, 400, 'VALIDATION_FAILED');
    assert.deepEqual(res.body.errors, [{ path: 'admin', message: 'is not a known field' }]);
  });
  test('wrong type is 400 and the value is not echoed', async () => {
    const res = await api('POST', '/v1/users/auth/signup', { body: { email: 'x@y.zz', password: 'longenough', name: 12345678 } });
    assertProblem(res, 400, 'VALIDATION_FAILED');
    assert.equal(res.body.errors[0].path, 'name');
    assert.ok(!res.text.includes('12345678'), res.text);
  });
  test('missing field is 400', async () => {
    const res = await api('POST', '/v1/users/auth/signup', { body: { email: 'x@y.zz', password: 'longenough' } });
    assertProblem(res, 400, 'VALIDATION_FAILED');
    assert.deepEqual(res.body.errors, [{ path: 'name', message: 'is required' }]);
  });
  test('a body that is not an object is 400', async () => {
    assertProblem(await api('POST', '/v1/users/auth/signup', { body: [1, 2] }), 400, 'VALIDATION_FAILED');
  });
  test('a body over 1 MiB is 413', async () => {
    const res = await api('POST', '/v1/users/auth/signup', { raw: JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10) }) });
    assertProblem(res, 413, 'PAYLOAD_TOO_LARGE');
  });
  test('a bad query string is 400 BAD_REQUEST', async () => {
    const { token } = await signup(api);
    assertProblem(await api('GET', '/v1/stores?limit=abc', { token }), 400, 'BAD_REQUEST');
    assertProblem(await api('GET', '/v1/stores?bogus=1', { token }), 400, 'BAD_REQUEST');
    assertProblem(await api('GET', '/v1/stores?limit=500', { token }), 400, 'VALIDATION_FAILED');
  });
  test('a non-JSON content type is 400', async () => {
    const res = await api('POST', '/v1/users/auth/signin', { raw: 'email=a', headers: { 'content-type': 'text/plain' } });
    assertProblem(res, 400, 'BAD_REQUEST');
  });
  test('an empty body with a JSON content type counts as no body', async () => {
    const { token } = await signup(api);
    const res = await api('POST', '/v1/users/auth/signout', { token, raw: '', headers: { 'content-type': 'application/json' } });
    assert.equal(res.status, 204);
  });
});

describe('GraphQL', () => {
  test('errors carry extensions.code', async () => {
    const res = await api('POST', '/graphql', { body: { query: '{ me { id } }' } });
    // A field that needs a token and has none: 401, as on REST (test/http-conventions.test.ts).
    assert.equal(res.status, 401);
    assert.equal(res.body.errors[0].extensions.code, 'UNAUTHENTICATED');
    assert.equal(res.body.errors[0].extensions.stacktrace, undefined);
  });
  test('validation errors are VALIDATION_FAILED with field errors', async () => {
    const res = await api('POST', '/graphql', {
      body: { query: 'mutation($i: SignupInput!) { signup(input: $i) { token } }', variables: { i: { email: 'nope', password: 'short', name: 'N' } } },
    });
    assert.equal(res.body.errors[0].extensions.code, 'VALIDATION_FAILED');
    assert.deepEqual(res.body.errors[0].extensions.errors.map((e: any) => e.path).sort(), ['email', 'password']);
    assert.ok(!res.text.includes('"target"') && !res.text.includes('"value"'));
  });
  test('GET /graphql runs queries too', async () => {
    const { token } = await signup(api, 'Getter');
    const res = await api('GET', `/graphql?query=${encodeURIComponent('{ me { name } }')}`, { token, headers: { 'apollo-require-preflight': 'true' } });
    assert.equal(res.status, 200);
    assert.equal(res.body.data.me.name, 'Getter');
  });
  test('GET /graphql: a bearer token is preflight enough; an anonymous GET names the header it needs', async () => {
    const { token } = await signup(api, 'Getter');
    const query = `/graphql?query=${encodeURIComponent('{ __typename }')}`;
    const withToken = await api('GET', `/graphql?query=${encodeURIComponent('{ me { name } }')}`, { token });
    assert.equal(withToken.status, 200, withToken.text);
    assert.equal(withToken.body.data.me.name, 'Getter');
    const anonymous = await api('GET', query);
    assert.equal(anonymous.status, 400, anonymous.text);
    assert.match(anonymous.text, /apollo-require-preflight/);
    assert.equal((await api('GET', query, { headers: { 'apollo-require-preflight': 'true' } })).status, 200);
    // Mutations never run over GET, whatever the headers.
    const mutation = await api('GET', `/graphql?query=${encodeURIComponent('mutation { signout }')}`, { token });
    assert.notEqual(mutation.status, 200);
  });
  test('a syntax error is BAD_REQUEST', async () => {
    const res = await api('POST', '/graphql', { body: { query: '{ me { ' } });
    assert.equal(res.body.errors[0].extensions.code, 'BAD_REQUEST');
  });
  test('store(id) answers the same as REST', async () => {
    const owner = await ownerWithStore(api);
    const rest = await api('GET', `/v1/stores/${owner.storeId}`, { token: owner.token });
    const gql = await api('POST', '/graphql', { token: owner.token, body: { query: 'query($id: ID!) { store(id: $id) { id name createdAt } }', variables: { id: owner.storeId } } });
    assert.deepEqual(gql.body.data.store, { id: rest.body.id, name: rest.body.name, createdAt: rest.body.createdAt });
  });
});

describe('OpenAPI', () => {
  test('GET /v1/openapi.json documents every route of the table', async () => {
    const res = await api('GET', '/v1/openapi.json');
    assert.equal(res.status, 200);
    assert.equal(res.body.openapi, '3.1.0');
    assert.ok(res.body.paths['/v1/users/auth/signup'].post);
    assert.ok(res.body.paths['/v1/stores/{storeId}'].patch);
    const { ROUTES } = await import('../rest-compat/routes/index.js');
    for (const r of ROUTES) assert.ok(res.body.paths[r.path]?.[r.method.toLowerCase()], `${r.method} ${r.path} missing`);
  });
});
