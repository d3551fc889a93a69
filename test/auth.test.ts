import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertProblem, client, signup, startTestService, type Api, type TestService } from './helpers.js';

let svc: TestService;
let api: Api;
before(async () => {
  svc = await startTestService();
  api = client(svc.url);
});
after(() => svc.close());

test('signup returns 201 with a token and the user, never a password hash', async () => {
  const email = `new${Date.now()}@example.com`;
  const res = await api('POST', '/v1/users/auth/signup', { body: { email, password: 'password123', name: 'Nora' } });
  assert.equal(res.status, 201);
  assert.equal(typeof res.body.token, 'string');
  assert.match(res.body.user.id, /^usr_/);
  assert.equal(res.body.user.email, email);
  assert.equal(res.body.user.name, 'Nora');
  assert.match(res.body.user.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.ok(!/password/i.test(JSON.stringify(res.body.user)));
});

test('signup refuses a short password and a taken email', async () => {
  assertProblem(await api('POST', '/v1/users/auth/signup', { body: { email: 'short@example.com', password: '1234567', name: 'S' } }), 400, 'VALIDATION_FAILED');
  const { email } = await signup(api);
  assertProblem(await api('POST', '/v1/users/auth/signup', { body: { email: email.toUpperCase(), password: 'password123', name: 'Dup' } }), 409, 'CONFLICT');
});

test('signin with the right password gives a working token; a wrong one is 401', async () => {
  const { email } = await signup(api, 'Sam');
  const ok = await api('POST', '/v1/users/auth/signin', { body: { email, password: 'correct horse battery' } });
  assert.equal(ok.status, 200);
  const me = await api('GET', '/v1/users/auth', { token: ok.body.token });
  assert.equal(me.status, 200);
  assert.equal(me.body.email, email);
  assertProblem(await api('POST', '/v1/users/auth/signin', { body: { email, password: 'wrong password' } }), 401, 'UNAUTHENTICATED');
  assertProblem(await api('POST', '/v1/users/auth/signin', { body: { email: 'nobody@example.com', password: 'wrong password' } }), 401, 'UNAUTHENTICATED');
});

test('no token, an unknown token and a malformed header are 401', async () => {
  assertProblem(await api('GET', '/v1/users/auth'), 401, 'UNAUTHENTICATED');
  assertProblem(await api('GET', '/v1/users/auth', { token: 'souk_st_nope' }), 401, 'UNAUTHENTICATED');
  assertProblem(await api('GET', '/v1/users/auth', { headers: { authorization: 'Basic abc' } }), 401, 'UNAUTHENTICATED');
});

test('signout revokes the token at once and only that token', async () => {
  const { email, token } = await signup(api);
  const second = await api('POST', '/v1/users/auth/signin', { body: { email, password: 'correct horse battery' } });
  const out = await api('POST', '/v1/users/auth/signout', { token });
  assert.equal(out.status, 204);
  assert.equal(out.text, '');
  assertProblem(await api('GET', '/v1/users/auth', { token }), 401, 'UNAUTHENTICATED');
  assert.equal((await api('GET', '/v1/users/auth', { token: second.body.token })).status, 200);
});

test('tokens are stored hashed', async () => {
  const { token } = await signup(api);
  const rows = await svc.service.deps.orm.em.fork().getConnection().execute('select token_hash from auth_tokens');
  assert.ok(rows.length > 0);
  assert.ok(rows.every((r) => r.token_hash !== token && /^[0-9a-f]{64}$/.test(String(r.token_hash))));
});
