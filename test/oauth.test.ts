import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { assertProblem, client, memberWithRole, ownerWithStore, signup, startTestService, type Api, type TestService } from './helpers.js';

let svc: TestService;
let api: Api;
const REDIRECT = 'https://thirdparty.example/callback';

const sql = (query: string, params: unknown[] = []) => svc.service.deps.orm.em.fork().getConnection().execute(query, params);

before(async () => {
  svc = await startTestService();
  api = client(svc.url);
});
after(() => svc.close());

async function developerWithApp(scopes = ['profile', 'store.read', 'store.settings']) {
  const dev = await signup(api, 'Dev');
  const res = await api('POST', '/v1/apps', { token: dev.token, body: { name: 'Third Party', description: 'Does things', homepageUrl: 'https://thirdparty.example', redirectUris: [REDIRECT], scopes } });
  if (res.status !== 201) throw new Error(`app create failed: ${res.status} ${res.text}`);
  return { dev, app: res.body };
}

function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** The user consents; returns the code and the verifier the app keeps. */
async function authorize(userToken: string, appId: string, scopes: string[]) {
  const { verifier, challenge } = pkce();
  const res = await api('POST', '/v1/users/auth/code', {
    token: userToken,
    body: { appId, redirectUri: REDIRECT, scopes, state: 'xyz', codeChallenge: challenge, codeChallengeMethod: 'S256' },
  });
  if (res.status !== 200) throw new Error(`authorize failed: ${res.status} ${res.text}`);
  return { code: res.body.code as string, verifier, body: res.body };
}

describe('apps', () => {
  test('create shows the secret once; list, show, update, delete', async () => {
    const { dev, app } = await developerWithApp();
    assert.match(app.id, /^app_/);
    assert.match(app.clientSecret, /^souk_cs_/);
    assert.deepEqual(app.redirectUris, [REDIRECT]);
    const list = await api('GET', '/v1/apps', { token: dev.token });
    assert.deepEqual(list.body.data.map((a: any) => a.id), [app.id]);
    assert.equal(list.body.nextCursor, null);
    const shown = await api('GET', `/v1/apps/${app.id}`, { token: dev.token });
    assert.equal(shown.body.name, 'Third Party');
    assert.ok(!('clientSecret' in shown.body) && !shown.text.includes(app.clientSecret));
    const rows = await sql('select secret_hash from oauth_apps where id = ?', [app.id]);
    assert.equal(rows[0].secret_hash, createHash('sha256').update(app.clientSecret).digest('hex'));
    const put = await api('PUT', `/v1/apps/${app.id}`, { token: dev.token, body: { name: 'Renamed', scopes: ['profile'] } });
    assert.equal(put.status, 200);
    assert.equal(put.body.name, 'Renamed');
    assert.deepEqual(put.body.scopes, ['profile']);
    assert.equal((await api('DELETE', `/v1/apps/${app.id}`, { token: dev.token })).status, 204);
    assertProblem(await api('GET', `/v1/apps/${app.id}`, { token: dev.token }), 404, 'NOT_FOUND');
  });

  test('bad input, 401, and 403 for someone else\'s app', async () => {
    const { app } = await developerWithApp();
    const other = await signup(api);
    assertProblem(await api('GET', '/v1/apps'), 401, 'UNAUTHENTICATED');
    assertProblem(await api('POST', '/v1/apps', { body: { name: 'x', redirectUris: [REDIRECT], scopes: [] } }), 401, 'UNAUTHENTICATED');
    assertProblem(await api('POST', '/v1/apps', { token: other.token, body: { name: 'x', redirectUris: [REDIRECT], scopes: ['store.everything'] } }), 400, 'VALIDATION_FAILED');
    assertProblem(await api('POST', '/v1/apps', { token: other.token, body: { name: 'x', redirectUris: ['not a url'], scopes: [] } }), 400, 'VALIDATION_FAILED');
    assertProblem(await api('POST', '/v1/apps', { token: other.token, body: { name: 'x', redirectUris: [], scopes: [] } }), 400, 'VALIDATION_FAILED');
    assert.equal((await api('GET', `/v1/apps/${app.id}`, { token: other.token })).status, 200);
    assert.deepEqual((await api('GET', '/v1/apps', { token: other.token })).body.data, []);
    assertProblem(await api('PUT', `/v1/apps/${app.id}`, { token: other.token, body: { name: 'mine' } }), 403, 'FORBIDDEN');
    assertProblem(await api('DELETE', `/v1/apps/${app.id}`, { token: other.token }), 403, 'FORBIDDEN');
    assertProblem(await api('POST', `/v1/apps/${app.id}/regenerate-secret`, { token: other.token }), 403, 'FORBIDDEN');
    assertProblem(await api('GET', '/v1/apps/app_nope', { token: other.token }), 404, 'NOT_FOUND');
  });
});

describe('authorization code flow', () => {
  test('end to end: an app gets a token that works within its scope and is refused outside it', async () => {
    const { app } = await developerWithApp(['profile', 'store.read', 'store.settings']);
    const owner = await ownerWithStore(api);

    // A token with store.settings may rename the store.
    const wide = await authorize(owner.token, app.id, ['profile', 'store.settings', 'store.read']);
    assert.equal(wide.body.state, 'xyz');
    assert.equal(wide.body.redirectUri, REDIRECT);
    const ttl = Date.parse(wide.body.expiresAt) - Date.now();
    assert.ok(ttl > 9 * 60_000 && ttl <= 10 * 60_000);
    const exchanged = await api('POST', '/v1/users/auth/code/consume', {
      body: { code: wide.code, clientId: app.id, clientSecret: app.clientSecret, redirectUri: REDIRECT, codeVerifier: wide.verifier },
    });
    assert.equal(exchanged.status, 200);
    assert.equal(exchanged.body.tokenType, 'Bearer');
    assert.deepEqual([...exchanged.body.scopes].sort(), ['profile', 'store.read', 'store.settings']);
    assert.ok(exchanged.body.expiresIn > 0);
    const appToken = exchanged.body.accessToken;
    assert.equal((await api('GET', '/v1/users/auth', { token: appToken })).body.id, owner.user.id);
    const renamed = await api('PATCH', `/v1/stores/${owner.storeId}`, { token: appToken, body: { name: 'Renamed by app' } });
    assert.equal(renamed.status, 200);
    assert.equal(renamed.body.name, 'Renamed by app');

    // A token with only store.read may read and is refused the write.
    const narrow = await authorize(owner.token, app.id, ['store.read']);
    const readOnly = (
      await api('POST', '/v1/users/auth/code/consume', {
        body: { code: narrow.code, clientId: app.id, clientSecret: app.clientSecret, redirectUri: REDIRECT, codeVerifier: narrow.verifier },
      })
    ).body.accessToken;
    assert.equal((await api('GET', `/v1/stores/${owner.storeId}`, { token: readOnly })).status, 200);
    assertProblem(await api('PATCH', `/v1/stores/${owner.storeId}`, { token: readOnly, body: { name: 'Nope' } }), 403, 'FORBIDDEN');
    assertProblem(await api('GET', '/v1/users/auth', { token: readOnly }), 403, 'FORBIDDEN');
    // App tokens never manage the account.
    assertProblem(await api('GET', '/v1/users/auth/tokens', { token: appToken }), 403, 'FORBIDDEN');
    assertProblem(await api('POST', '/v1/users/auth/transfer', { token: appToken }), 403, 'FORBIDDEN');

    // The app acts for its user: a viewer's token with store.settings still cannot rename.
    const viewer = await memberWithRole(api, owner.token, owner.storeId, 'viewer');
    const v = await authorize(viewer.token, app.id, ['store.settings']);
    const viewerToken = (
      await api('POST', '/v1/users/auth/code/consume', { body: { code: v.code, clientId: app.id, clientSecret: app.clientSecret, redirectUri: REDIRECT, codeVerifier: v.verifier } })
    ).body.accessToken;
    assertProblem(await api('PATCH', `/v1/stores/${owner.storeId}`, { token: viewerToken, body: { name: 'Nope' } }), 403, 'FORBIDDEN');

    // Connected apps lists it; revoking there cuts the app off at once.
    const connected = await api('GET', '/v1/users/auth/connected-apps', { token: owner.token });
    assert.equal(connected.status, 200);
    assert.equal(connected.body.data.length, 1);
    assert.equal(connected.body.data[0].app.id, app.id);
    assert.deepEqual(connected.body.data[0].scopes, ['profile', 'store.read', 'store.settings']);
    assert.equal(connected.body.data[0].tokenIds.length, 2);
    const tokens = await api('GET', '/v1/users/auth/tokens', { token: owner.token });
    const oauthRow = tokens.body.data.find((t: any) => t.kind === 'oauth');
    assert.deepEqual(oauthRow.app, { id: app.id, name: 'Third Party' });
    assert.equal((await api('DELETE', `/v1/users/auth/tokens/${app.id}`, { token: owner.token })).status, 204);
    assertProblem(await api('GET', `/v1/stores/${owner.storeId}`, { token: appToken }), 401, 'UNAUTHENTICATED');
    assertProblem(await api('GET', `/v1/stores/${owner.storeId}`, { token: readOnly }), 401, 'UNAUTHENTICATED');
    assert.deepEqual((await api('GET', '/v1/users/auth/connected-apps', { token: owner.token })).body.data, []);
    assertProblem(await api('GET', '/v1/users/auth/connected-apps'), 401, 'UNAUTHENTICATED');
  });

  test('a code is single use; replaying it revokes the token it gave', async () => {
    const { app } = await developerWithApp();
    const user = await signup(api);
    const a = await authorize(user.token, app.id, ['profile']);
    const body = { code: a.code, clientId: app.id, clientSecret: app.clientSecret, redirectUri: REDIRECT, codeVerifier: a.verifier };
    const first = await api('POST', '/v1/users/auth/code/consume', { body });
    assert.equal(first.status, 200);
    assert.equal((await api('GET', '/v1/users/auth', { token: first.body.accessToken })).status, 200);
    const inspected = await api('POST', '/v1/users/auth/code/inspect', { body: { code: a.code } });
    assert.equal(inspected.body.consumed, true);
    assertProblem(await api('POST', '/v1/users/auth/code/consume', { body }), 400, 'BAD_REQUEST');
    assertProblem(await api('GET', '/v1/users/auth', { token: first.body.accessToken }), 401, 'UNAUTHENTICATED');
  });

  test('PKCE mismatch, wrong redirect, wrong client or secret, and expiry are refused', async () => {
    const { app } = await developerWithApp();
    const { app: otherApp } = await developerWithApp();
    const user = await signup(api);
    const a = await authorize(user.token, app.id, ['profile']);
    const good = { code: a.code, clientId: app.id, clientSecret: app.clientSecret, redirectUri: REDIRECT, codeVerifier: a.verifier };
    assertProblem(await api('POST', '/v1/users/auth/code/consume', { body: { ...good, codeVerifier: pkce().verifier } }), 400, 'BAD_REQUEST');
    assertProblem(await api('POST', '/v1/users/auth/code/consume', { body: { ...good, redirectUri: `${REDIRECT}/other` } }), 400, 'BAD_REQUEST');
    assertProblem(await api('POST', '/v1/users/auth/code/consume', { body: { ...good, clientSecret: 'souk_cs_wrong' } }), 401, 'UNAUTHENTICATED');
    assertProblem(await api('POST', '/v1/users/auth/code/consume', { body: { ...good, clientId: otherApp.id, clientSecret: otherApp.clientSecret } }), 400, 'BAD_REQUEST');
    assertProblem(await api('POST', '/v1/users/auth/code/consume', { body: { ...good, codeVerifier: 'short' } }), 400, 'VALIDATION_FAILED');
    assertProblem(await api('POST', '/v1/users/auth/code/consume', { body: { code: a.code } }), 400, 'VALIDATION_FAILED');
    // None of those burned the code: the right request still works.
    assert.equal((await api('POST', '/v1/users/auth/code/consume', { body: good })).status, 200);

    const b = await authorize(user.token, app.id, ['profile']);
    await sql(`update oauth_codes set expires_at = now() - interval '1 second' where code_hash = encode(sha256(convert_to(?, 'UTF8')), 'hex')`, [b.code]);
    const inspected = await api('POST', '/v1/users/auth/code/inspect', { body: { code: b.code } });
    assert.equal(inspected.body.expired, true);
    assert.equal(inspected.body.consumed, false);
    assertProblem(
      await api('POST', '/v1/users/auth/code/consume', { body: { code: b.code, clientId: app.id, clientSecret: app.clientSecret, redirectUri: REDIRECT, codeVerifier: b.verifier } }),
      400,
      'BAD_REQUEST',
    );
  });

  test('consent checks: signed in, registered redirect URI, scopes within the app, S256 only', async () => {
    const { app } = await developerWithApp(['profile']);
    const user = await signup(api);
    const { challenge } = pkce();
    const base = { appId: app.id, redirectUri: REDIRECT, scopes: ['profile'], codeChallenge: challenge, codeChallengeMethod: 'S256' };
    assertProblem(await api('POST', '/v1/users/auth/code', { body: base }), 401, 'UNAUTHENTICATED');
    assertProblem(await api('POST', '/v1/users/auth/code', { token: user.token, body: { ...base, redirectUri: 'https://evil.example/cb' } }), 400, 'VALIDATION_FAILED');
    assertProblem(await api('POST', '/v1/users/auth/code', { token: user.token, body: { ...base, redirectUri: `${REDIRECT}/` } }), 400, 'VALIDATION_FAILED');
    assertProblem(await api('POST', '/v1/users/auth/code', { token: user.token, body: { ...base, scopes: ['profile', 'store.orders'] } }), 400, 'VALIDATION_FAILED');
    assertProblem(await api('POST', '/v1/users/auth/code', { token: user.token, body: { ...base, codeChallengeMethod: 'plain' } }), 400, 'VALIDATION_FAILED');
    assertProblem(await api('POST', '/v1/users/auth/code', { token: user.token, body: { ...base, appId: 'app_nope' } }), 404, 'NOT_FOUND');
    const ok = await api('POST', '/v1/users/auth/code', { token: user.token, body: base });
    assert.equal(ok.status, 200);
    assert.equal(ok.body.state, null);
    const rows = await sql(`select code_hash from oauth_codes where user_id = ?`, [user.user.id]);
    assert.ok(rows.every((r: any) => r.code_hash !== ok.body.code));
  });

  test('inspect tells who, which app and scopes; an unknown code is 404', async () => {
    const { app } = await developerWithApp();
    const user = await signup(api, 'Granting User');
    const a = await authorize(user.token, app.id, ['store.read']);
    const res = await api('POST', '/v1/users/auth/code/inspect', { body: { code: a.code } });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.user, { id: user.user.id, name: 'Granting User' });
    assert.equal(res.body.app.id, app.id);
    assert.deepEqual(res.body.scopes, ['store.read']);
    assert.equal(res.body.expired, false);
    assert.equal(res.body.consumed, false);
    assertProblem(await api('POST', '/v1/users/auth/code/inspect', { body: { code: 'souk_ac_nope' } }), 404, 'NOT_FOUND');
    assertProblem(await api('POST', '/v1/users/auth/code/inspect', { body: {} }), 400, 'VALIDATION_FAILED');
  });

  test('a regenerated secret replaces the old one; a deleted app loses its tokens', async () => {
    const { dev, app } = await developerWithApp();
    const user = await signup(api);
    const regen = await api('POST', `/v1/apps/${app.id}/regenerate-secret`, { token: dev.token });
    assert.equal(regen.status, 200);
    assert.notEqual(regen.body.clientSecret, app.clientSecret);
    const a = await authorize(user.token, app.id, ['profile']);
    const body = { code: a.code, clientId: app.id, clientSecret: app.clientSecret, redirectUri: REDIRECT, codeVerifier: a.verifier };
    assertProblem(await api('POST', '/v1/users/auth/code/consume', { body }), 401, 'UNAUTHENTICATED');
    const token = (await api('POST', '/v1/users/auth/code/consume', { body: { ...body, clientSecret: regen.body.clientSecret } })).body.accessToken;
    assert.equal((await api('GET', '/v1/users/auth', { token })).status, 200);
    assert.equal((await api('DELETE', `/v1/apps/${app.id}`, { token: dev.token })).status, 204);
    assertProblem(await api('GET', '/v1/users/auth', { token }), 401, 'UNAUTHENTICATED');
  });
});

describe('app data', () => {
  async function connectedApp() {
    const { dev, app } = await developerWithApp();
    const user = await signup(api);
    const a = await authorize(user.token, app.id, ['profile']);
    const appToken = (
      await api('POST', '/v1/users/auth/code/consume', { body: { code: a.code, clientId: app.id, clientSecret: app.clientSecret, redirectUri: REDIRECT, codeVerifier: a.verifier } })
    ).body.accessToken as string;
    return { dev, app, user, appToken };
  }

  test('public data: anyone signed in reads, only the owner writes', async () => {
    const { dev, app, user, appToken } = await connectedApp();
    assert.deepEqual((await api('GET', `/v1/apps/${app.id}/public-data`, { token: user.token })).body, {});
    const put = await api('PUT', `/v1/apps/${app.id}/public-data`, { token: dev.token, body: { theme: 'dark', n: 1 } });
    assert.equal(put.status, 200);
    assert.deepEqual(put.body, { theme: 'dark', n: 1 });
    assert.deepEqual((await api('GET', `/v1/apps/${app.id}/public-data`, { token: user.token })).body, { theme: 'dark', n: 1 });
    assertProblem(await api('GET', `/v1/apps/${app.id}/public-data`), 401, 'UNAUTHENTICATED');
    assertProblem(await api('PUT', `/v1/apps/${app.id}/public-data`, { token: user.token, body: { x: 1 } }), 403, 'FORBIDDEN');
    assertProblem(await api('PUT', `/v1/apps/${app.id}/public-data`, { token: appToken, body: { x: 1 } }), 403, 'FORBIDDEN');
    assertProblem(await api('PUT', `/v1/apps/${app.id}/public-data`, { token: dev.token, raw: '[1,2]' }), 400, 'VALIDATION_FAILED');
    assertProblem(await api('GET', '/v1/apps/app_nope/public-data', { token: user.token }), 404, 'NOT_FOUND');
  });

  test('private data: the owner and the app\'s own tokens only; 64 KiB max', async () => {
    const { dev, app, user, appToken } = await connectedApp();
    const { app: other } = await developerWithApp();
    assert.deepEqual((await api('PUT', `/v1/apps/${app.id}/private-data`, { token: dev.token, body: { key: 'v' } })).body, { key: 'v' });
    assert.deepEqual((await api('GET', `/v1/apps/${app.id}/private-data`, { token: appToken })).body, { key: 'v' });
    assert.deepEqual((await api('PUT', `/v1/apps/${app.id}/private-data`, { token: appToken, body: { key: 'w' } })).body, { key: 'w' });
    assertProblem(await api('GET', `/v1/apps/${app.id}/private-data`, { token: user.token }), 403, 'FORBIDDEN');
    assertProblem(await api('GET', `/v1/apps/${other.id}/private-data`, { token: appToken }), 403, 'FORBIDDEN');
    assertProblem(await api('GET', `/v1/apps/${app.id}/private-data`), 401, 'UNAUTHENTICATED');
    const big = { blob: 'x'.repeat(64 * 1024) };
    assertProblem(await api('PUT', `/v1/apps/${app.id}/private-data`, { token: dev.token, body: big }), 413, 'PAYLOAD_TOO_LARGE');
    assert.equal((await api('PUT', `/v1/apps/${app.id}/private-data`, { token: dev.token, body: { blob: 'x'.repeat(64 * 1024 - 20) } })).status, 200);
  });

  test('user data: the caller\'s own, and a connected user\'s for the owner or the app', async () => {
    const { dev, app, user, appToken } = await connectedApp();
    const { app: other } = await developerWithApp();
    assert.deepEqual((await api('GET', `/v1/apps/${app.id}/user-data/me`, { token: user.token })).body, {});
    assert.deepEqual((await api('PUT', `/v1/apps/${app.id}/user-data/me`, { token: appToken, body: { level: 3 } })).body, { level: 3 });
    assert.deepEqual((await api('GET', `/v1/apps/${app.id}/user-data/me`, { token: user.token })).body, { level: 3 });
    assertProblem(await api('GET', `/v1/apps/${other.id}/user-data/me`, { token: appToken }), 403, 'FORBIDDEN');
    assertProblem(await api('GET', `/v1/apps/${app.id}/user-data/me`), 401, 'UNAUTHENTICATED');
    assertProblem(await api('PUT', `/v1/apps/${app.id}/user-data/me`, { token: user.token, body: { big: 'y'.repeat(70_000) } }), 413, 'PAYLOAD_TOO_LARGE');

    assert.deepEqual((await api('GET', `/v1/apps/${app.id}/user-data/users/${user.user.id}`, { token: dev.token })).body, { level: 3 });
    assert.deepEqual((await api('PUT', `/v1/apps/${app.id}/user-data/users/${user.user.id}`, { token: appToken, body: { level: 4 } })).body, { level: 4 });
    assert.deepEqual((await api('GET', `/v1/apps/${app.id}/user-data/me`, { token: user.token })).body, { level: 4 });
    const stranger = await signup(api);
    assertProblem(await api('GET', `/v1/apps/${app.id}/user-data/users/${stranger.user.id}`, { token: dev.token }), 404, 'NOT_FOUND');
    assertProblem(await api('GET', `/v1/apps/${app.id}/user-data/users/${user.user.id}`, { token: stranger.token }), 403, 'FORBIDDEN');
    assertProblem(await api('PUT', `/v1/apps/${app.id}/user-data/users/${user.user.id}`, { token: dev.token, raw: '"text"' }), 400, 'VALIDATION_FAILED');
    // Disconnecting the app hides the user from it.
    await api('DELETE', `/v1/users/auth/tokens/${app.id}`, { token: user.token });
    assertProblem(await api('GET', `/v1/apps/${app.id}/user-data/users/${user.user.id}`, { token: dev.token }), 404, 'NOT_FOUND');
  });

  test('the GraphQL twins answer with JSON objects', async () => {
    const { dev, app } = await connectedApp();
    const res = await fetch(`${svc.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${dev.token}` },
      body: JSON.stringify({ query: `mutation($id: ID!) { setAppPublicData(id: $id, data: {a: [1, 2]}) }`, variables: { id: app.id } }),
    });
    assert.deepEqual(await res.json(), { data: { setAppPublicData: { a: [1, 2] } } });
  });
});

describe('every identity route', () => {
  const PROTECTED: Array<[string, string]> = [
    ['GET', '/v1/users/auth'],
    ['PUT', '/v1/users/auth'],
    ['POST', '/v1/users/auth/signout'],
    ['GET', '/v1/users/auth/tokens'],
    ['DELETE', '/v1/users/auth/tokens/tok_x'],
    ['POST', '/v1/users/auth/tokens/revoke-all'],
    ['POST', '/v1/users/auth/transfer'],
    ['POST', '/v1/users/auth/verify-email/resend'],
    ['POST', '/v1/users/auth/code'],
    ['GET', '/v1/users/auth/connected-apps'],
    ['GET', '/v1/users'],
    ['POST', '/v1/users'],
    ['GET', '/v1/users/usr_x'],
    ['PATCH', '/v1/users/usr_x'],
    ['PUT', '/v1/users/usr_x'],
    ['DELETE', '/v1/users/usr_x'],
    ['GET', '/v1/apps'],
    ['POST', '/v1/apps'],
    ['GET', '/v1/apps/app_x'],
    ['PUT', '/v1/apps/app_x'],
    ['DELETE', '/v1/apps/app_x'],
    ['POST', '/v1/apps/app_x/regenerate-secret'],
    ['GET', '/v1/apps/app_x/public-data'],
    ['PUT', '/v1/apps/app_x/public-data'],
    ['GET', '/v1/apps/app_x/private-data'],
    ['PUT', '/v1/apps/app_x/private-data'],
    ['GET', '/v1/apps/app_x/user-data/me'],
    ['PUT', '/v1/apps/app_x/user-data/me'],
    ['GET', '/v1/apps/app_x/user-data/users/usr_x'],
    ['PUT', '/v1/apps/app_x/user-data/users/usr_x'],
  ];
  const VALID_BODY: Record<string, unknown> = {
    'PUT /v1/users/auth': { name: 'x' },
    'POST /v1/users/auth/code': { appId: 'app_x', redirectUri: REDIRECT, scopes: ['profile'], codeChallenge: 'a'.repeat(43), codeChallengeMethod: 'S256' },
    'POST /v1/users': { email: 'x@example.com', password: 'password123', name: 'X' },
    'PATCH /v1/users/usr_x': { name: 'x' },
    'PUT /v1/users/usr_x': { name: 'x', email: 'x@example.com' },
    'POST /v1/apps': { name: 'x', redirectUris: [REDIRECT], scopes: [] },
    'PUT /v1/apps/app_x': { name: 'x' },
  };

  test('answer 401 without a token and with a revoked one', async () => {
    const u = await signup(api);
    await api('POST', '/v1/users/auth/signout', { token: u.token });
    for (const [method, path] of PROTECTED) {
      const body = VALID_BODY[`${method} ${path}`] ?? (method === 'PUT' ? { k: 1 } : undefined);
      for (const token of [undefined, u.token]) {
        const res = await api(method, path, { token, body });
        assert.equal(res.status, 401, `${method} ${path} answered ${res.status} ${res.text}`);
        assertProblem(res, 401, 'UNAUTHENTICATED');
      }
    }
  });

  test('account management refuses app tokens with 403', async () => {
    const { app } = await developerWithApp(['profile', 'store.read', 'store.settings']);
    const user = await signup(api);
    const a = await authorize(user.token, app.id, ['profile', 'store.read', 'store.settings']);
    const appToken = (
      await api('POST', '/v1/users/auth/code/consume', { body: { code: a.code, clientId: app.id, clientSecret: app.clientSecret, redirectUri: REDIRECT, codeVerifier: a.verifier } })
    ).body.accessToken;
    const sessionOnly: Array<[string, string]> = [
      ['PUT', '/v1/users/auth'],
      ['GET', '/v1/users/auth/tokens'],
      ['DELETE', '/v1/users/auth/tokens/tok_x'],
      ['POST', '/v1/users/auth/tokens/revoke-all'],
      ['POST', '/v1/users/auth/transfer'],
      ['POST', '/v1/users/auth/verify-email/resend'],
      ['POST', '/v1/users/auth/code'],
      ['GET', '/v1/users/auth/connected-apps'],
      ['GET', '/v1/users'],
      ['GET', `/v1/users/${user.user.id}`],
      ['GET', '/v1/apps'],
      ['POST', '/v1/apps'],
    ];
    for (const [method, path] of sessionOnly) {
      const res = await api(method, path, { token: appToken, body: VALID_BODY[`${method} ${path}`] });
      assert.equal(res.status, 403, `${method} ${path} answered ${res.status} ${res.text}`);
      assertProblem(res, 403, 'FORBIDDEN');
    }
    assert.equal((await api('GET', '/v1/users/auth', { token: appToken })).status, 200);
  });
});
