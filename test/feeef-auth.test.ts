import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { client, startTestService, type Api, type TestService } from './helpers.js';
import { assertFeeefProblem, feeefClient, feeefSignup, type FeeefClient } from './feeef-helpers.js';
import { SDK_CALLS } from './feeef-sdk-calls.js';
import { formatProblems, lintOpenApi } from '../scripts/openapi-lint.js';
import { readFileSync } from 'node:fs';
import { FEEEF_ROUTES } from '../rest-compat/feeef/index.js';

// Feeef's SDK (feeef.js 0.12.12) against /feeef/v1: identity, tokens, sign-in codes, users, apps, OAuth.

let svc: TestService;
let api: Api;
let admin: Awaited<ReturnType<typeof feeefSignup>>;
before(async () => {
  svc = await startTestService();
  api = client(svc.url);
  // The first account of a database is a platform admin (docs/decisions.md).
  admin = await feeefSignup(svc.url, 'Admin');
});
after(() => svc.close());

test('sign-up and sign-in work with the empty bearer the SDK sends before sign-in, and answer Feeef auth shapes', async () => {
  const ff = feeefClient(svc.url);
  assert.equal(ff.token, '');
  const email = `anna${Date.now()}@example.com`;
  const up = await ff.post('/users/auth/signup', { name: 'Anna', email, password: 'correct horse battery', phone: '0555', fcmToken: null });
  assert.equal(up.status, 201, up.text);
  assert.equal(up.data.token.type, 'bearer');
  assert.deepEqual(up.data.token.abilities, ['*']);
  assert.equal(typeof up.data.token.token, 'string');
  assert.ok(Date.parse(up.data.token.expiresAt) > Date.now());
  assert.equal(up.data.user.email, email);
  assert.equal(up.data.user.emailVerifiedAt, null);
  assert.equal(up.data.user.password, undefined);

  const ff2 = feeefClient(svc.url, '');
  const inn = await ff2.post('/users/auth/signin', { email, password: 'correct horse battery' });
  assert.equal(inn.status, 200, inn.text);
  ff2.token = inn.data.token.token;
  // signinWithToken / me(): {user, token}, the token echoing the bearer so the SDK keeps its header.
  const me = await ff2.get('/users/auth');
  assert.equal(me.status, 200, me.text);
  assert.equal(me.data.user.id, up.data.user.id);
  assert.equal(me.data.token.token, ff2.token);
  assert.equal(me.data.token.type, 'bearer');
  assert.ok(me.data.token.lastUsedAt);

  // "Bearer undefined" (the SDK built without an apiKey) is no token either; a wrong token is 401.
  assertFeeefProblem(await feeefClient(svc.url, 'undefined').get('/users/auth'), 401, 'UNAUTHENTICATED');
  assertFeeefProblem(await feeefClient(svc.url, 'nope').post('/users/auth/signin', { email, password: 'correct horse battery' }), 401, 'UNAUTHENTICATED');
  assertFeeefProblem(await ff2.post('/users/auth/signin', { email, password: 'correct horse battery', remember: true }), 400, 'VALIDATION_FAILED');

  // /v1 still refuses the empty bearer: only the face reads it as no token.
  const v1 = await fetch(`${svc.url}/v1/users/auth/signin`, {
    method: 'POST',
    headers: { authorization: 'Bearer ', 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: 'correct horse battery' }),
  });
  assert.equal(v1.status, 401);
});

test('sign-out is a body-less form POST; the token stops working', async () => {
  const { ff } = await feeefSignup(svc.url);
  const out = await ff.post('/users/auth/signout');
  assert.equal(out.status, 204, out.text);
  assertFeeefProblem(await ff.get('/users/auth'), 401, 'UNAUTHENTICATED');
});

test('updateMe maps oldPassword/newPassword; the reset mail takes ?email= with an empty form body', async () => {
  const { ff, email } = await feeefSignup(svc.url, 'Before');
  const renamed = await ff.put('/users/auth', { name: 'After', photoUrl: 'https://x.example/p.png' });
  assert.equal(renamed.status, 200, renamed.text);
  assert.equal(renamed.data.name, 'After');
  assertFeeefProblem(await ff.put('/users/auth', { newPassword: 'another long password' }), 400, 'VALIDATION_FAILED');
  const changed = await ff.put('/users/auth', { oldPassword: 'correct horse battery', newPassword: 'another long password' });
  assert.equal(changed.status, 200, changed.text);
  const again = await feeefClient(svc.url).post('/users/auth/signin', { email, password: 'another long password' });
  assert.equal(again.status, 200, again.text);

  const reset = await feeefClient(svc.url).post('/users/auth/reset-password', null, { email });
  assert.equal(reset.status, 202, reset.text);
  const status = await feeefClient(svc.url).get('/users/auth/reset-password', { uid: 'x', token: 'not-a-token' });
  assert.equal(status.status, 200, status.text);
  assert.equal(status.data.valid, false);
});

test('tokens and connected apps are bare arrays; revoke one, then revoke all', async () => {
  const { ff, email } = await feeefSignup(svc.url);
  const other = feeefClient(svc.url);
  other.token = (await other.post('/users/auth/signin', { email, password: 'correct horse battery' })).data.token.token;
  const list = await ff.get('/users/auth/tokens');
  assert.equal(list.status, 200, list.text);
  assert.ok(Array.isArray(list.data));
  assert.equal(list.data.length, 2);
  for (const t of list.data) {
    assert.equal(t.identifier, t.id);
    assert.equal(t.token, undefined);
    assert.deepEqual(t.abilities, ['*']);
  }
  const theirs = list.data.find((t: any) => !t.current);
  assert.equal((await ff.delete(`/users/auth/tokens/${encodeURIComponent(theirs.identifier)}`)).status, 204);
  assertFeeefProblem(await other.get('/users/auth'), 401, 'UNAUTHENTICATED');

  const apps = await ff.get('/users/auth/connected-apps');
  assert.equal(apps.status, 200, apps.text);
  assert.deepEqual(apps.data, []);

  const all = await ff.post('/users/auth/tokens/revoke-all');
  assert.equal(all.status, 200, all.text);
  assert.deepEqual(all.data, { revoked: 1, total: 1 });
  assertFeeefProblem(await ff.get('/users/auth'), 401, 'UNAUTHENTICATED');
});

test("users/auth/code is Souk's session transfer; users/auth/transfer (wallet money) is 501", async () => {
  const { ff, user } = await feeefSignup(svc.url);
  const code = await ff.post('/users/auth/code', { redirect: 'feeef://home' });
  assert.equal(code.status, 200, code.text);
  assert.equal(code.data.redirect, 'feeef://home');
  assert.ok(code.data.expiresInSeconds > 0 && code.data.expiresInSeconds <= 300);
  const device = feeefClient(svc.url);
  const signed = await device.post('/users/auth/code/consume', { authCode: code.data.authCode });
  assert.equal(signed.status, 200, signed.text);
  assert.equal(signed.data.user.id, user.id);
  device.token = signed.data.token.token;
  assert.equal((await device.get('/users/auth')).status, 200);
  assertFeeefProblem(await device.post('/users/auth/code/consume', { authCode: code.data.authCode }), 401, 'UNAUTHENTICATED');
  assertFeeefProblem(await feeefClient(svc.url).post('/users/auth/code'), 401, 'UNAUTHENTICATED');

  const money = await ff.post('/users/auth/transfer', { recipientEmail: 'x@example.com', amount: 10 });
  assertFeeefProblem(money, 501, 'NOT_IMPLEMENTED');
  assert.match(money.data.detail, /wallet/);
  for (const path of ['/passkeys', '/social/google/callback', '/deposits', '/countries', '/users/auth/fcm-token']) {
    const res = path === '/passkeys' || path === '/deposits' || path.startsWith('/countries') ? await ff.get(path) : await ff.post(path, { code: 'x' });
    assertFeeefProblem(res, 501, 'NOT_IMPLEMENTED');
  }
});

test('users CRUD: PUT is partial, ?by=id is accepted, a user sees only themselves', async () => {
  assert.equal(admin.user.platformRole, 'admin');
  const created = await admin.ff.post('/users', { name: 'Made', email: `made${Date.now()}@example.com`, password: 'long enough pass', phone: '0' });
  assert.equal(created.status, 201, created.text);
  const updated = await admin.ff.put(`/users/${created.data.id}`, { name: 'Renamed' });
  assert.equal(updated.data.name, 'Renamed');
  assert.equal(updated.data.email, created.data.email);
  assertFeeefProblem(await admin.ff.put(`/users/${created.data.id}`, { password: 'long enough pass', password_confirmation: 'other' }), 400, 'VALIDATION_FAILED');
  const page = await admin.ff.get('/users', { page: 1, limit: 1 });
  assert.equal(page.status, 200, page.text);
  assert.equal(page.data.data.length, 1);
  assert.ok(page.data.meta.total >= 2);
  assert.equal(page.data.meta.perPage, 1);
  assert.equal(page.data.meta.currentPage, 1);
  assert.equal(page.data.meta.lastPage, page.data.meta.total);
  const second = await admin.ff.get('/users', { page: 2, limit: 1 });
  assert.notEqual(second.data.data[0].id, page.data.data[0].id);
  assertFeeefProblem(await admin.ff.get(`/users/${created.data.id}`, { by: 'email' }), 400, 'VALIDATION_FAILED');

  const plain = await feeefSignup(svc.url);
  const own = await plain.ff.get('/users', { page: 1 });
  assert.deepEqual(own.data.data.map((u: any) => u.id), [plain.user.id]);
  assert.equal(own.data.meta.total, 1);
  assertFeeefProblem(await plain.ff.get(`/users/${created.data.id}`, { by: 'id' }), 404, 'NOT_FOUND');

  assert.equal((await admin.ff.delete(`/users/${created.data.id}`, { by: 'id' })).status, 204);
  assertFeeefProblem(await admin.ff.get(`/users/${created.data.id}`), 404, 'NOT_FOUND');
});

test('apps: create, list with meta, PUT partial, regenerate the secret with an empty form body, app data namespaces', async () => {
  const { ff, user } = await feeefSignup(svc.url, 'Dev');
  const created = await ff.post('/apps', { name: 'My App', redirectUris: ['https://app.example/cb'], scopes: ['profile'], logoUrl: 'https://app.example/l.png' });
  assert.equal(created.status, 201, created.text);
  assert.equal(created.data.clientId, created.data.id);
  assert.equal(created.data.userId, user.id);
  assert.equal(created.data.active, true);
  assert.match(created.data.clientSecret, /.{16,}/);
  const id = created.data.id;

  const list = await ff.get('/apps', { page: 1, limit: 20 });
  assert.equal(list.status, 200, list.text);
  assert.equal(list.data.meta.total, 1);
  assert.equal(list.data.data[0].clientSecret, undefined);

  const found = await ff.get(`/apps/${id}`, { by: 'id' });
  assert.equal(found.data.name, 'My App');
  const put = await ff.put(`/apps/${id}`, { name: 'Renamed App' });
  assert.equal(put.status, 200, put.text);
  assert.deepEqual(put.data.redirectUris, ['https://app.example/cb']);
  assertFeeefProblem(await ff.put(`/apps/${id}`, { active: false }), 400, 'VALIDATION_FAILED');

  const regen = await ff.post(`/apps/${id}/regenerate-secret`);
  assert.equal(regen.status, 200, regen.text);
  assert.notEqual(regen.data.clientSecret, created.data.clientSecret);

  const pub = await ff.put(`/apps/${id}/public-data`, { public: { theme: { color: 'red' } } });
  assert.equal(pub.status, 200, pub.text);
  assert.deepEqual(pub.data, { public: { theme: { color: 'red' } } });
  assert.deepEqual((await feeefClient(svc.url).get(`/apps/${id}/public-data`)).status, 401);
  assert.deepEqual((await ff.get(`/apps/${id}/public-data`)).data, { public: { theme: { color: 'red' } } });
  assert.deepEqual((await ff.put(`/apps/${id}/private-data`, { private: { keys: { a: 1 } } })).data, { private: { keys: { a: 1 } } });
  assert.deepEqual((await ff.get(`/apps/${id}/private-data`)).data, { private: { keys: { a: 1 } } });
  assert.deepEqual((await ff.put(`/apps/${id}/user-data/me`, { public: { prefs: { on: true } } })).data, { public: { prefs: { on: true } } });
  assert.deepEqual((await ff.get(`/apps/${id}/user-data/me`)).data, { public: { prefs: { on: true } }, protected: {} });
  assertFeeefProblem(await ff.put(`/apps/${id}/user-data/me`, { public: {}, protected: { plan: {} } }), 403, 'FORBIDDEN');
  // A user who never connected the app is not revealed.
  assertFeeefProblem(await ff.get(`/apps/${id}/user-data/users/${user.id}`), 404, 'NOT_FOUND');

  assert.equal((await ff.delete(`/apps/${id}`, { by: 'id' })).status, 204);
  assertFeeefProblem(await ff.get(`/apps/${id}`), 404, 'NOT_FOUND');
});

test('oauth/token, introspect and revoke take forms and answer snake_case', async () => {
  const dev = await feeefSignup(svc.url, 'Dev');
  const redirectUri = 'https://app.example/cb';
  const app = (await dev.ff.post('/apps', { name: 'OAuth App', redirectUris: [redirectUri], scopes: ['profile', 'store.read'] })).data;
  const user = await feeefSignup(svc.url, 'Grantor');
  const codeVerifier = randomBytes(32).toString('base64url');
  // Consent is Souk's /v1 route: the face has no browser consent page.
  const consent = await api('POST', '/v1/users/auth/code', {
    token: user.token,
    body: { appId: app.id, redirectUri, scopes: ['profile'], codeChallenge: createHash('sha256').update(codeVerifier).digest('base64url'), codeChallengeMethod: 'S256' },
  });
  assert.equal(consent.status, 200, consent.text);
  const ff = feeefClient(svc.url);
  const fields = { grant_type: 'authorization_code', code: consent.body.code, redirect_uri: redirectUri, client_id: app.id, client_secret: app.clientSecret, code_verifier: codeVerifier };
  assertFeeefProblem(await ff.form('/oauth/token', { ...fields, grant_type: 'password' }), 400, 'VALIDATION_FAILED');
  const token = await ff.form('/oauth/token', fields);
  assert.equal(token.status, 200, token.text);
  assert.equal(token.data.token_type.toLowerCase(), 'bearer');
  assert.equal(token.data.scope, 'profile');
  assert.ok(token.data.expires_in > 0);

  const live = await ff.form('/oauth/introspect', { token: token.data.access_token });
  assert.equal(live.status, 200, live.text);
  assert.equal(live.data.active, true);
  assert.equal(live.data.scope, 'profile');
  assert.equal(live.data.client_id, app.id);
  assert.equal(live.data.username, user.email);

  const app2 = feeefClient(svc.url, token.data.access_token);
  await userDataParts(dev.ff, app2, user, app.id);

  const me = await app2.get('/users/auth');
  assert.equal(me.status, 200, me.text);
  assert.deepEqual(me.data.token.abilities, ['profile']);

  assert.deepEqual((await ff.form('/oauth/revoke', { token: token.data.access_token })).data, { revoked: true });
  assert.deepEqual((await ff.form('/oauth/introspect', { token: token.data.access_token })).data, { active: false });
  assert.deepEqual((await ff.form('/oauth/revoke', { token: 'unknown' })).data, { revoked: false });
});

/**
 * apps.putUserDataForUser / getUserDataForUser / getUserDataMe / putUserDataMe as the SDK sends
 * them: the app (or its owner) writes all three parts, the user sees public and protected only
 * and writes public only.
 */
async function userDataParts(owner: FeeefClient, appToken: FeeefClient, user: { ff: FeeefClient; user: any }, appId: string) {
  const forUser = `/apps/${appId}/user-data/users/${user.user.id}`;
  const me = `/apps/${appId}/user-data/me`;
  const all = { public: { prefs: { lang: 'ar' } }, private: { crm: { score: 7 } }, protected: { plan: { tier: 'pro' } } };
  const put = await owner.put(forUser, all);
  assert.equal(put.status, 200, put.text);
  assert.deepEqual(put.data, all);
  // A part the body leaves out stays as it is.
  const byApp = await appToken.put(forUser, { protected: { plan: { tier: 'team' } } });
  assert.equal(byApp.status, 200, byApp.text);
  assert.deepEqual(byApp.data, { ...all, protected: { plan: { tier: 'team' } } });
  assert.deepEqual((await appToken.get(forUser)).data, { ...all, protected: { plan: { tier: 'team' } } });
  assert.deepEqual((await owner.get(forUser)).data, { ...all, protected: { plan: { tier: 'team' } } });

  // The user sees the public and protected parts, never the private one (nor does the app through /me).
  const seen = await user.ff.get(me);
  assert.equal(seen.status, 200, seen.text);
  assert.deepEqual(seen.data, { public: { prefs: { lang: 'ar' } }, protected: { plan: { tier: 'team' } } });
  assert.deepEqual((await appToken.get(me)).data, seen.data);

  // The user writes the public part only.
  assert.deepEqual((await user.ff.put(me, { public: { prefs: { lang: 'fr' } } })).data, { public: { prefs: { lang: 'fr' } } });
  assertFeeefProblem(await user.ff.put(me, { public: {}, protected: { plan: { tier: 'free' } } }), 403, 'FORBIDDEN');
  assertFeeefProblem(await user.ff.put(me, { public: {}, private: { crm: {} } }), 403, 'FORBIDDEN');
  assertFeeefProblem(await user.ff.put(forUser, { protected: { plan: { tier: 'free' } } }), 403, 'FORBIDDEN');
  assertFeeefProblem(await user.ff.get(forUser), 403, 'FORBIDDEN');
  assert.deepEqual((await appToken.get(forUser)).data, { public: { prefs: { lang: 'fr' } }, private: { crm: { score: 7 } }, protected: { plan: { tier: 'team' } } });

  // Each part is a JSON object of at most 64 KiB; the problem names the part.
  for (const [body, status, code, path] of [
    [{ private: [1] }, 400, 'VALIDATION_FAILED', 'private'],
    [{ protected: 'text' }, 400, 'VALIDATION_FAILED', 'protected'],
    [{ public: null }, 400, 'VALIDATION_FAILED', 'public'],
    [{ secret: {} }, 400, 'VALIDATION_FAILED', 'secret'],
    [{ private: { blob: 'x'.repeat(64 * 1024) } }, 413, 'PAYLOAD_TOO_LARGE', 'private'],
    [{ public: {}, protected: { blob: 'x'.repeat(64 * 1024) } }, 413, 'PAYLOAD_TOO_LARGE', 'protected'],
  ] as const) {
    const res = await owner.put(forUser, body);
    assertFeeefProblem(res, status, code);
    assert.equal(res.data.errors?.[0]?.path, path, res.text);
  }
  // A refused write changes nothing, not even the parts beside the refused one.
  assert.deepEqual((await owner.get(forUser)).data, { public: { prefs: { lang: 'fr' } }, private: { crm: { score: 7 } }, protected: { plan: { tier: 'team' } } });
}

test('the face has its own OpenAPI document; /v1 gains no /feeef path', async () => {
  const doc: any = await (await fetch(`${svc.url}/feeef/v1/openapi.json`)).json();
  assert.equal(doc.servers[0].url.endsWith('/feeef/v1'), true);
  assert.ok(doc.paths['/users/auth/signin'].post);
  assert.ok(doc.paths['/users/auth/transfer'].post.responses['501']);
  assert.ok(doc.paths['/users/{id}'].get.parameters.some((p: any) => p.name === 'by'));
  const v1: any = await (await fetch(`${svc.url}/v1/openapi.json`)).json();
  assert.equal(Object.keys(v1.paths).filter((p) => p.includes('feeef')).length, 0);
  const lint = await lintOpenApi(doc);
  assert.equal(lint.errors, 0, formatProblems(lint.problems));
});

test("every SDK call that does a job Souk does has a route; every other answers 501", async () => {
  const doc: any = await (await fetch(`${svc.url}/feeef/v1/openapi.json`)).json();
  const served: string[] = [];
  for (const c of SDK_CALLS) {
    const op = doc.paths[c.path]?.[c.method.toLowerCase()];
    assert.ok(op, `${c.call}: ${c.method} ${c.path} is not in the face's document`);
    const success = Object.keys(op.responses).some((s) => s.startsWith('2'));
    if (c.souk) {
      assert.ok(success && !op.responses['501']?.description?.startsWith('NOT_IMPLEMENTED'), `${c.call} should be served`);
      served.push(c.call);
    } else {
      assert.ok(!success && op.responses['501'], `${c.call} should answer 501`);
    }
  }
  assert.equal(new Set(SDK_CALLS.map((c) => c.call)).size, SDK_CALLS.length);
  assert.equal(served.length, 168);
  assert.equal(SDK_CALLS.length, 347);
});

test('docs/feeef.md has a line for each route of the face and names each SDK call it serves', () => {
  const doc = readFileSync(new URL('../docs/feeef.md', import.meta.url), 'utf8');
  for (const { route } of FEEEF_ROUTES) assert.ok(doc.includes(`| \`${route.method} ${route.path}\` |`), `docs/feeef.md lacks ${route.method} ${route.path}`);
  for (const c of SDK_CALLS.filter((x) => x.souk)) {
    const repo = c.call.split('.').slice(0, -1).join('.');
    const line = doc.split('\n').find((l) => l.startsWith(`- \`${repo}\`: `) && doc.indexOf(l) < doc.indexOf('Not served'));
    assert.ok(line?.includes(`\`${c.call.split('.').pop()}\``), `docs/feeef.md does not list ${c.call}`);
  }
});
