// What a client's HTTP layer reads, the same on every face: a wrong method is 405 with Allow, a
// missing authentication is 401 on GraphQL as on REST, and a type error says what the value must
// be in words, not in GraphQL type names.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertProblem, client, ownerWithStore, startTestService, type Api, type TestService } from './helpers.js';

let svc: TestService;
let api: Api;
before(async () => {
  svc = await startTestService();
  api = client(svc.url);
});
after(async () => {
  await svc?.close();
});

const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

describe('a wrong method on a known path: 405 with Allow', () => {
  test('REST, the Feeef face, GraphQL streams and probes; an unknown path stays 404', async () => {
    const cases: Array<[string, string, string]> = [
      ['DELETE', '/v1/users/auth/signup', 'POST'],
      ['PUT', '/v1/stores/st_anything/orders', 'GET, HEAD, POST'],
      ['POST', '/healthz', 'GET, HEAD'],
      ['PATCH', '/graphql/stream', 'DELETE, GET, HEAD, POST, PUT'],
      ['DELETE', '/feeef/v1/users/auth/signup', 'POST'],
    ];
    for (const [method, path, allow] of cases) {
      const res = await api(method, path, { contract: false });
      assertProblem(res, 405, 'METHOD_NOT_ALLOWED');
      assert.equal(res.headers.get('allow'), allow, `${method} ${path}`);
      assert.match(res.body.detail, new RegExp(`does not take ${method}; it takes ${allow}`));
    }
    assertProblem(await api('GET', '/v1/no-such-thing', { contract: false }), 404, 'NOT_FOUND');
    assertProblem(await api('POST', '/feeef/v1/no-such-thing', { contract: false }), 404, 'NOT_FOUND');
  });

  test('every path of the OpenAPI document: its undocumented methods are 405, and Allow lists the documented ones', async () => {
    const doc = (await api('GET', '/v1/openapi.json')).body;
    const paths = Object.entries<Record<string, unknown>>(doc.paths);
    const matcher = (template: string) => new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}$`);
    let checked = 0;
    for (const [template, item] of paths) {
      const documented = HTTP_METHODS.filter((m) => item[m.toLowerCase()]);
      const path = template.replace(/\{[^}]+\}/g, 'x1');
      // A method another route answers on this very path (`GET …/orders/{orderId}` for `…/orders/applyMany`) is no wrong method.
      const wrong = HTTP_METHODS.find((m) => !documented.includes(m) && !paths.some(([t, i]) => i[m.toLowerCase()] && matcher(t).test(path)));
      if (!wrong) continue;
      const res = await api(wrong, path, { contract: false });
      assert.equal(res.status, 405, `${wrong} ${path}: ${res.status}`);
      const allow = res.headers.get('allow')!.split(', ');
      for (const m of documented) assert.ok(allow.includes(m), `${wrong} ${path}: Allow ${allow.join(', ')} lacks ${m}`);
      checked++;
    }
    assert.ok(checked > 100, `only ${checked} paths checked`);
  });
});

describe('authentication on GraphQL answers as REST does', () => {
  const query = (body: unknown, token?: string) => api('POST', '/graphql', { token, body, contract: false });

  test('no token where one is needed: 401 with WWW-Authenticate, the body as GraphQL writes it', async () => {
    const res = await query({ query: '{ me { id } }' });
    assert.equal(res.status, 401);
    assert.equal(res.headers.get('www-authenticate'), 'Bearer realm="souk"');
    assert.equal(res.body.errors[0].extensions.code, 'UNAUTHENTICATED');
    assertProblem(await api('GET', '/v1/users/auth', { contract: false }), 401, 'UNAUTHENTICATED');
    // A refused token, as before: 401, error="invalid_token".
    const refused = await query({ query: '{ me { id } }' }, 'souk_st_nope');
    assert.equal(refused.status, 401);
    assert.equal(refused.headers.get('www-authenticate'), 'Bearer realm="souk", error="invalid_token"');
    // A wrong password: 401 on both faces.
    const signin = await query({ query: 'mutation { signin(input: {email: "nobody@example.com", password: "wrong password"}) { token } }' });
    assert.equal(signin.status, 401);
  });

  test('public fields without a token, and every field with one, stay 200', async () => {
    assert.equal((await query({ query: '{ __typename }' })).status, 200);
    const owner = await ownerWithStore(api);
    const me = await query({ query: '{ me { id } }' }, owner.token);
    assert.equal(me.status, 200);
    // Other errors keep GraphQL's 200: only authentication is the transport's business.
    const missing = await query({ query: 'query($id: ID!) { store(id: $id) { id } }', variables: { id: 'st_nope' } }, owner.token);
    assert.equal(missing.status, 200);
    assert.equal(missing.body.errors[0].extensions.code, 'NOT_FOUND');
  });
});

describe('type errors say what the value must be', () => {
  test('REST and GraphQL: a number, an integer, a string, true or false, an object, one of an enum', async () => {
    const owner = await ownerWithStore(api);
    const products = `/v1/stores/${owner.storeId}/products`;
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ name: 'x', price: 'ten' }, 'price', 'must be a number'],
      [{ name: 'x', price: 10, stock: 1.5 }, 'stock', 'must be an integer'],
      [{ name: 'x', price: 10, stock: 2 ** 40 }, 'stock', 'must be an integer from -2147483648 to 2147483647'],
      [{ name: 123, price: 10 }, 'name', 'must be a string'],
      [{ name: 'x', price: 10, allowBackorder: 'yes' }, 'allowBackorder', 'must be true or false'],
      [{ name: 'x', price: 10, metadata: 'x' }, 'metadata', 'must be an object'],
      [{ name: 'x', price: 10, status: 'bogus' }, 'status', 'must be one of draft, active, archived'],
    ];
    for (const [body, path, message] of cases) {
      const res = await api('POST', products, { token: owner.token, body });
      assertProblem(res, 400, 'VALIDATION_FAILED');
      assert.deepEqual(res.body.errors, [{ path, message }], JSON.stringify(body));
    }
    const order = await api('POST', `/v1/stores/${owner.storeId}/orders`, { token: owner.token, body: { customerName: 'A', items: [{ productId: {}, quantity: 1 }] } });
    assert.deepEqual(order.body.errors, [{ path: 'items.0.productId', message: 'must be a string' }]);
    const gql = await api('POST', '/graphql', {
      token: owner.token,
      body: { query: 'mutation($s: ID!, $i: ProductCreateInput!) { createProduct(storeId: $s, input: $i) { id } }', variables: { s: owner.storeId, i: { name: 'x', price: 'ten' } } },
    });
    assert.deepEqual(gql.body.errors[0].extensions.errors, [{ path: 'i.price', message: 'must be a number' }]);
  });
});
