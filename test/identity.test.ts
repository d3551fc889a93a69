import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { assertProblem, client, ownerWithStore, signup, startTestService, type Api, type TestService } from './helpers.js';
import { startSmtpCapture, tokenFrom } from './smtp.js';

let svc: TestService;
let api: Api;
let smtp: Awaited<ReturnType<typeof startSmtpCapture>>;
let admin: { token: string; user: any; email: string };
const PASSWORD = 'correct horse battery';

const sql = (query: string, params: unknown[] = []) => svc.service.deps.orm.em.fork().getConnection().execute(query, params);

before(async () => {
  smtp = await startSmtpCapture();
  svc = await startTestService({ SOUK_SMTP_URL: smtp.url, SOUK_PUBLIC_URL: 'https://souk.example' });
  api = client(svc.url);
  // The first account of an empty database is the platform admin.
  admin = await signup(api, 'Admin');
});
after(async () => {
  await svc.close();
  await smtp.close();
});

describe('profile', () => {
  test('GET /v1/users/auth needs a token; PUT changes the name', async () => {
    const u = await signup(api, 'Before');
    assertProblem(await api('PUT', '/v1/users/auth', { body: { name: 'x' } }), 401, 'UNAUTHENTICATED');
    const res = await api('PUT', '/v1/users/auth', { token: u.token, body: { name: 'After' } });
    assert.equal(res.status, 200);
    assert.equal(res.body.name, 'After');
    assert.equal((await api('GET', '/v1/users/auth', { token: u.token })).body.name, 'After');
    assertProblem(await api('PUT', '/v1/users/auth', { token: u.token, body: { name: '' } }), 400, 'VALIDATION_FAILED');
    assertProblem(await api('PUT', '/v1/users/auth', { token: u.token, body: { nickname: 'x' } }), 400, 'VALIDATION_FAILED');
  });

  test('changing the email needs verification again and mails the new address', async () => {
    const u = await signup(api);
    const first = await smtp.waitFor(u.email, /verify-email/);
    await api('POST', '/v1/users/auth/verify-email/confirm', { body: { token: tokenFrom(first) } });
    assert.equal((await api('GET', '/v1/users/auth', { token: u.token })).body.emailVerified, true);
    const email = `changed-${u.email}`;
    const res = await api('PUT', '/v1/users/auth', { token: u.token, body: { email } });
    assert.equal(res.status, 200);
    assert.equal(res.body.email, email);
    assert.equal(res.body.emailVerified, false);
    const mail = await smtp.waitFor(email, /verify-email/);
    assert.match(mail.text, /https:\/\/souk\.example\/verify-email\?token=/);
    const ok = await api('POST', '/v1/users/auth/verify-email/confirm', { body: { token: tokenFrom(mail) } });
    assert.equal(ok.status, 200);
    assert.equal(ok.body.emailVerified, true);
    assertProblem(await api('PUT', '/v1/users/auth', { token: u.token, body: { email: admin.email } }), 409, 'CONFLICT');
  });

  test('changing the password needs the current one and signs out the other tokens', async () => {
    const u = await signup(api);
    const other = (await api('POST', '/v1/users/auth/signin', { body: { email: u.email, password: PASSWORD } })).body.token;
    assertProblem(await api('PUT', '/v1/users/auth', { token: u.token, body: { password: 'new password 1' } }), 400, 'VALIDATION_FAILED');
    assertProblem(await api('PUT', '/v1/users/auth', { token: u.token, body: { password: 'new password 1', currentPassword: 'wrong one' } }), 400, 'VALIDATION_FAILED');
    assert.equal((await api('GET', '/v1/users/auth', { token: other })).status, 200);
    const res = await api('PUT', '/v1/users/auth', { token: u.token, body: { password: 'new password 1', currentPassword: PASSWORD } });
    assert.equal(res.status, 200);
    assertProblem(await api('GET', '/v1/users/auth', { token: other }), 401, 'UNAUTHENTICATED');
    assert.equal((await api('GET', '/v1/users/auth', { token: u.token })).status, 200);
    assertProblem(await api('POST', '/v1/users/auth/signin', { body: { email: u.email, password: PASSWORD } }), 401, 'UNAUTHENTICATED');
    assert.equal((await api('POST', '/v1/users/auth/signin', { body: { email: u.email, password: 'new password 1' } })).status, 200);
  });

  test('the GraphQL twin updateMe answers like PUT', async () => {
    const u = await signup(api);
    const res = await fetch(`${svc.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${u.token}` },
      body: JSON.stringify({ query: 'mutation { updateMe(input: {name: "Graph"}) { name } }' }),
    });
    assert.deepEqual(await res.json(), { data: { updateMe: { name: 'Graph' } } });
  });
});

describe('tokens', () => {
  test('GET /v1/users/auth/tokens lists live tokens without the secret, marking the current one', async () => {
    const u = await signup(api);
    const second = (await api('POST', '/v1/users/auth/signin', { body: { email: u.email, password: PASSWORD } })).body.token;
    assertProblem(await api('GET', '/v1/users/auth/tokens'), 401, 'UNAUTHENTICATED');
    const res = await api('GET', '/v1/users/auth/tokens', { token: u.token });
    assert.equal(res.status, 200);
    assert.equal(res.body.data.length, 2);
    assert.equal(res.body.nextCursor, null);
    const current = res.body.data.find((t: any) => t.current);
    assert.equal(current.last4, u.token.slice(-4));
    assert.equal(current.kind, 'session');
    assert.equal(current.scopes, null);
    assert.equal(current.app, null);
    assert.match(current.id, /^tok_/);
    assert.ok(!res.text.includes(u.token) && !res.text.includes(second));
    assert.deepEqual(Object.keys(current).sort(), ['app', 'createdAt', 'current', 'expiresAt', 'id', 'kind', 'last4', 'lastUsedAt', 'name', 'scopes']);
    assertProblem(await api('GET', '/v1/users/auth/tokens?limit=0', { token: u.token }), 400, 'VALIDATION_FAILED');
  });

  test('DELETE /v1/users/auth/tokens/{id} revokes at once; others are 404', async () => {
    const u = await signup(api);
    const second = (await api('POST', '/v1/users/auth/signin', { body: { email: u.email, password: PASSWORD } })).body.token;
    const list = (await api('GET', '/v1/users/auth/tokens', { token: u.token })).body.data;
    const target = list.find((t: any) => !t.current);
    const stranger = await signup(api);
    assertProblem(await api('DELETE', `/v1/users/auth/tokens/${target.id}`, { token: stranger.token }), 404, 'NOT_FOUND');
    const del = await api('DELETE', `/v1/users/auth/tokens/${target.id}`, { token: u.token });
    assert.equal(del.status, 204);
    assert.equal(del.text, '');
    assertProblem(await api('GET', '/v1/users/auth', { token: second }), 401, 'UNAUTHENTICATED');
    assertProblem(await api('DELETE', `/v1/users/auth/tokens/${target.id}`, { token: u.token }), 404, 'NOT_FOUND');
    assertProblem(await api('DELETE', '/v1/users/auth/tokens/tok_nope', { token: u.token }), 404, 'NOT_FOUND');
  });

  test('revoke-all keeps the current token unless includeCurrent', async () => {
    const u = await signup(api);
    const others = [];
    for (let i = 0; i < 2; i++) others.push((await api('POST', '/v1/users/auth/signin', { body: { email: u.email, password: PASSWORD } })).body.token);
    const res = await api('POST', '/v1/users/auth/tokens/revoke-all', { token: u.token });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { revoked: 2 });
    for (const t of others) assertProblem(await api('GET', '/v1/users/auth', { token: t }), 401, 'UNAUTHENTICATED');
    assert.equal((await api('GET', '/v1/users/auth', { token: u.token })).status, 200);
    assertProblem(await api('POST', '/v1/users/auth/tokens/revoke-all', { token: u.token, body: { includeCurrent: 'yes' } }), 400, 'VALIDATION_FAILED');
    const all = await api('POST', '/v1/users/auth/tokens/revoke-all', { token: u.token, body: { includeCurrent: true } });
    assert.deepEqual(all.body, { revoked: 1 });
    assertProblem(await api('GET', '/v1/users/auth', { token: u.token }), 401, 'UNAUTHENTICATED');
    assertProblem(await api('POST', '/v1/users/auth/tokens/revoke-all', {}), 401, 'UNAUTHENTICATED');
  });

  test('an expired token answers 401', async () => {
    const u = await signup(api);
    await sql(`update auth_tokens set expires_at = now() - interval '1 second' where user_id = ?`, [u.user.id]);
    assertProblem(await api('GET', '/v1/users/auth', { token: u.token }), 401, 'UNAUTHENTICATED');
  });
});

describe('session transfer', () => {
  test('a signed-in session gets a code; another device trades it once for a new session', async () => {
    const u = await signup(api);
    assertProblem(await api('POST', '/v1/users/auth/transfer'), 401, 'UNAUTHENTICATED');
    const issued = await api('POST', '/v1/users/auth/transfer', { token: u.token });
    assert.equal(issued.status, 200);
    assert.deepEqual(Object.keys(issued.body).sort(), ['code', 'expiresAt']);
    const ttl = Date.parse(issued.body.expiresAt) - Date.now();
    assert.ok(ttl > 4 * 60_000 && ttl <= 5 * 60_000, `ttl ${ttl}`);
    const swapped = await api('POST', '/v1/users/auth/transfer', { body: { code: issued.body.code } });
    assert.equal(swapped.status, 200);
    assert.equal(swapped.body.user.id, u.user.id);
    assert.notEqual(swapped.body.token, u.token);
    assert.equal((await api('GET', '/v1/users/auth', { token: swapped.body.token })).body.id, u.user.id);
    assertProblem(await api('POST', '/v1/users/auth/transfer', { body: { code: issued.body.code } }), 401, 'UNAUTHENTICATED');
    assertProblem(await api('POST', '/v1/users/auth/transfer', { body: { code: 'souk_tr_nope' } }), 401, 'UNAUTHENTICATED');
    assertProblem(await api('POST', '/v1/users/auth/transfer', { body: { code: 42 } }), 400, 'VALIDATION_FAILED');
  });

  test('an expired transfer code is refused', async () => {
    const u = await signup(api);
    const { code } = (await api('POST', '/v1/users/auth/transfer', { token: u.token })).body;
    await sql(`update user_codes set expires_at = now() - interval '1 second' where user_id = ? and purpose = 'transfer'`, [u.user.id]);
    assertProblem(await api('POST', '/v1/users/auth/transfer', { body: { code } }), 401, 'UNAUTHENTICATED');
  });
});

describe('email verification', () => {
  test('sign-up mails a single-use link; resend is 202 and a used or expired token is refused', async () => {
    const u = await signup(api);
    const first = tokenFrom(await smtp.waitFor(u.email, /verify-email/));
    assertProblem(await api('POST', '/v1/users/auth/verify-email/resend'), 401, 'UNAUTHENTICATED');
    const resend = await api('POST', '/v1/users/auth/verify-email/resend', { token: u.token });
    assert.equal(resend.status, 202);
    assert.equal(resend.body.accepted, true);
    const second = tokenFrom(await smtp.waitFor(u.email, /verify-email/));
    assert.notEqual(first, second);
    await sql(`update user_codes set expires_at = now() - interval '1 second' where code_hash = encode(sha256(convert_to(?, 'UTF8')), 'hex')`, [second]);
    assertProblem(await api('POST', '/v1/users/auth/verify-email/confirm', { body: { token: second } }), 400, 'VALIDATION_FAILED');
    const ok = await api('POST', '/v1/users/auth/verify-email/confirm', { body: { token: first } });
    assert.equal(ok.status, 200);
    assert.equal(ok.body.emailVerified, true);
    assertProblem(await api('POST', '/v1/users/auth/verify-email/confirm', { body: { token: first } }), 400, 'VALIDATION_FAILED');
    assertProblem(await api('POST', '/v1/users/auth/verify-email/confirm', { body: {} }), 400, 'VALIDATION_FAILED');
    assertProblem(await api('POST', '/v1/users/auth/verify-email/resend', { token: u.token }), 409, 'CONFLICT');
  });

  test('link tokens are stored hashed', async () => {
    const u = await signup(api);
    const token = tokenFrom(await smtp.waitFor(u.email, /verify-email/));
    const rows = await sql(`select code_hash from user_codes where user_id = ?`, [u.user.id]);
    assert.ok(rows.length > 0);
    assert.ok(rows.every((r: any) => r.code_hash !== token && /^[0-9a-f]{64}$/.test(r.code_hash)));
  });
});

describe('password reset', () => {
  test('reset-password answers 202 for any email and mails only real accounts', async () => {
    const res = await api('POST', '/v1/users/auth/reset-password', { body: { email: 'nobody-here@example.com' } });
    assert.equal(res.status, 202);
    const u = await signup(api);
    const real = await api('POST', '/v1/users/auth/reset-password', { body: { email: u.email } });
    assert.equal(real.status, 202);
    assert.deepEqual(real.body, res.body);
    await smtp.waitFor(u.email, /reset-password/);
    assert.ok(!smtp.mails.some((m) => m.to.includes('nobody-here@example.com')));
    assertProblem(await api('POST', '/v1/users/auth/reset-password', { body: { email: 'not an email' } }), 400, 'VALIDATION_FAILED');
  });

  test('a reset token is checked, sets the password once and revokes every token', async () => {
    const u = await signup(api);
    await api('POST', '/v1/users/auth/reset-password', { body: { email: u.email } });
    const token = tokenFrom(await smtp.waitFor(u.email, /reset-password/));
    const status = await api('GET', `/v1/users/auth/reset-password?token=${encodeURIComponent(token)}`);
    assert.equal(status.status, 200);
    assert.equal(status.body.valid, true);
    assert.ok(Date.parse(status.body.expiresAt) - Date.now() <= 60 * 60_000);
    assert.deepEqual((await api('GET', '/v1/users/auth/reset-password?token=souk_pr_nope')).body, { valid: false, expiresAt: null });
    assertProblem(await api('GET', '/v1/users/auth/reset-password'), 400, 'VALIDATION_FAILED');
    assertProblem(await api('POST', '/v1/auth/web/reset-password-confirm', { body: { token, password: 'short' } }), 400, 'VALIDATION_FAILED');
    const done = await api('POST', '/v1/auth/web/reset-password-confirm', { body: { token, password: 'a brand new password' } });
    assert.equal(done.status, 200);
    assert.deepEqual(done.body, { passwordReset: true, revokedTokens: 1 });
    assertProblem(await api('GET', '/v1/users/auth', { token: u.token }), 401, 'UNAUTHENTICATED');
    assert.equal((await api('POST', '/v1/users/auth/signin', { body: { email: u.email, password: 'a brand new password' } })).status, 200);
    assertProblem(await api('POST', '/v1/auth/web/reset-password-confirm', { body: { token, password: 'yet another password' } }), 400, 'VALIDATION_FAILED');
    assert.equal((await api('GET', `/v1/users/auth/reset-password?token=${encodeURIComponent(token)}`)).body.valid, false);
  });

  test('an expired reset token is refused', async () => {
    const u = await signup(api);
    await api('POST', '/v1/users/auth/reset-password', { body: { email: u.email } });
    const token = tokenFrom(await smtp.waitFor(u.email, /reset-password/));
    await sql(`update user_codes set expires_at = now() - interval '1 second' where user_id = ? and purpose = 'reset_password'`, [u.user.id]);
    assert.equal((await api('GET', `/v1/users/auth/reset-password?token=${encodeURIComponent(token)}`)).body.valid, false);
    assertProblem(await api('POST', '/v1/auth/web/reset-password-confirm', { body: { token, password: 'a brand new password' } }), 400, 'VALIDATION_FAILED');
  });
});

describe('platform users', () => {
  test('admins list, create, read, change and delete accounts', async () => {
    const list = await api('GET', '/v1/users?limit=200', { token: admin.token });
    assert.equal(list.status, 200);
    assert.ok(list.body.data.some((u: any) => u.id === admin.user.id));
    assert.equal(admin.user.platformRole, 'admin');
    const first = await api('GET', '/v1/users?limit=1', { token: admin.token });
    assert.equal(first.body.data.length, 1);
    const next = await api('GET', `/v1/users?limit=1&cursor=${first.body.nextCursor}`, { token: admin.token });
    assert.equal(next.body.data.length, 1);
    assert.ok(next.body.data[0].id < first.body.data[0].id);
    const email = `made${Date.now()}@example.com`;
    const created = await api('POST', '/v1/users', { token: admin.token, body: { email, password: PASSWORD, name: 'Made' } });
    assert.equal(created.status, 201);
    assert.equal(created.body.platformRole, 'user');
    assertProblem(await api('POST', '/v1/users', { token: admin.token, body: { email, password: PASSWORD, name: 'Again' } }), 409, 'CONFLICT');
    assertProblem(await api('POST', '/v1/users', { token: admin.token, body: { email: 'x@example.com', password: PASSWORD, name: 'X', platformRole: 'god' } }), 400, 'VALIDATION_FAILED');
    const id = created.body.id;
    assert.equal((await api('GET', `/v1/users/${id}`, { token: admin.token })).body.email, email);
    const patched = await api('PATCH', `/v1/users/${id}`, { token: admin.token, body: { platformRole: 'admin' } });
    assert.equal(patched.body.platformRole, 'admin');
    const put = await api('PUT', `/v1/users/${id}`, { token: admin.token, body: { name: 'Replaced', email } });
    assert.equal(put.body.name, 'Replaced');
    assertProblem(await api('PUT', `/v1/users/${id}`, { token: admin.token, body: { name: 'No email' } }), 400, 'VALIDATION_FAILED');
    const signin = await api('POST', '/v1/users/auth/signin', { body: { email, password: PASSWORD } });
    assert.equal(signin.status, 200);
    assert.equal((await api('DELETE', `/v1/users/${id}`, { token: admin.token })).status, 204);
    assertProblem(await api('GET', `/v1/users/${id}`, { token: admin.token }), 404, 'NOT_FOUND');
    assertProblem(await api('GET', '/v1/users/auth', { token: signin.body.token }), 401, 'UNAUTHENTICATED');
  });

  test('a non-admin sees and changes only themselves; others are 404, admin actions 403', async () => {
    const u = await signup(api);
    const other = await signup(api);
    assertProblem(await api('GET', '/v1/users'), 401, 'UNAUTHENTICATED');
    const list = await api('GET', '/v1/users', { token: u.token });
    assert.deepEqual(list.body.data.map((x: any) => x.id), [u.user.id]);
    assert.equal((await api('GET', `/v1/users/${u.user.id}`, { token: u.token })).status, 200);
    assertProblem(await api('GET', `/v1/users/${other.user.id}`, { token: u.token }), 404, 'NOT_FOUND');
    assertProblem(await api('PATCH', `/v1/users/${other.user.id}`, { token: u.token, body: { name: 'x' } }), 404, 'NOT_FOUND');
    assertProblem(await api('DELETE', `/v1/users/${other.user.id}`, { token: u.token }), 404, 'NOT_FOUND');
    assertProblem(await api('POST', '/v1/users', { token: u.token, body: { email: 'y@example.com', password: PASSWORD, name: 'Y' } }), 403, 'FORBIDDEN');
    assertProblem(await api('PATCH', `/v1/users/${u.user.id}`, { token: u.token, body: { platformRole: 'admin' } }), 403, 'FORBIDDEN');
    assert.equal((await api('PATCH', `/v1/users/${u.user.id}`, { token: u.token, body: { name: 'Self' } })).body.name, 'Self');
  });

  test('deleting the last owner of a store is 409; the last admin stays', async () => {
    const owner = await ownerWithStore(api);
    assertProblem(await api('DELETE', `/v1/users/${owner.user.id}`, { token: owner.token }), 409, 'CONFLICT');
    assertProblem(await api('DELETE', `/v1/users/${owner.user.id}`, { token: admin.token }), 409, 'CONFLICT');
    assert.equal((await api('DELETE', `/v1/stores/${owner.storeId}`, { token: owner.token })).status, 204);
    assert.equal((await api('DELETE', `/v1/users/${owner.user.id}`, { token: owner.token })).status, 204);
    assertProblem(await api('GET', '/v1/users/auth', { token: owner.token }), 401, 'UNAUTHENTICATED');
    assert.deepEqual((await sql(`select id from users where platform_role = 'admin'`)).map((r: any) => r.id), [admin.user.id]);
    assertProblem(await api('PATCH', `/v1/users/${admin.user.id}`, { token: admin.token, body: { platformRole: 'user' } }), 409, 'CONFLICT');
    assertProblem(await api('DELETE', `/v1/users/${admin.user.id}`, { token: admin.token }), 409, 'CONFLICT');
  });

  test('a member leaves every store when deleted', async () => {
    const owner = await ownerWithStore(api);
    const m = await signup(api);
    await api('POST', `/v1/stores/${owner.storeId}/members`, { token: owner.token, body: { email: m.email, role: 'editor' } });
    assert.equal((await api('DELETE', `/v1/users/${m.user.id}`, { token: admin.token })).status, 204);
    const members = await api('GET', `/v1/stores/${owner.storeId}/members`, { token: owner.token });
    assert.deepEqual(members.body.data.map((x: any) => x.userId), [owner.user.id]);
  });
});

describe('rate limits', () => {
  test('sign-in is limited per email and per IP with Retry-After; wrong and unknown look the same', async () => {
    const limited = await startTestService({ SOUK_AUTH_RATE_LIMIT: '3', SOUK_AUTH_RATE_LIMIT_IP: '6', SOUK_AUTH_RATE_WINDOW_MS: '60000' });
    try {
      const lapi = client(limited.url);
      const u = await signup(lapi);
      for (let i = 0; i < 2; i++) assertProblem(await lapi('POST', '/v1/users/auth/signin', { body: { email: u.email, password: 'wrong password' } }), 401, 'UNAUTHENTICATED');
      const res = await lapi('POST', '/v1/users/auth/signin', { body: { email: u.email, password: PASSWORD } });
      assertProblem(res, 429, 'RATE_LIMITED');
      assert.match(res.headers.get('retry-after') ?? '', /^\d+$/);
      assert.ok(Number(res.headers.get('retry-after')) >= 1 && Number(res.headers.get('retry-after')) <= 60);
      const wrong = await lapi('POST', '/v1/users/auth/signin', { body: { email: 'nobody1@example.com', password: 'x' } });
      const unknown = await lapi('POST', '/v1/users/auth/signin', { body: { email: 'nobody2@example.com', password: 'x' } });
      assert.equal(wrong.status, 401);
      assert.deepEqual(wrong.body, unknown.body);
      // Per IP: six attempts in all so far from 127.0.0.1 (signup counted); a fresh email is refused too.
      assertProblem(await lapi('POST', '/v1/users/auth/signup', { body: { email: 'fresh@example.com', password: PASSWORD, name: 'F' } }), 429, 'RATE_LIMITED');
      const gql = await fetch(`${limited.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'mutation { signin(input: {email: "z@example.com", password: "x"}) { token } }' }),
      });
      assert.equal(((await gql.json()) as any).errors[0].extensions.code, 'RATE_LIMITED');
    } finally {
      await limited.close();
    }
  });

  test('the window slides: attempts are allowed again once it has passed', async () => {
    // A 10 s window: a sign-in (a password hash) on a loaded machine can take most of a second,
    // and the second attempt must still fall inside the window of the first.
    const limited = await startTestService({ SOUK_AUTH_RATE_LIMIT: '1', SOUK_AUTH_RATE_LIMIT_IP: '100', SOUK_AUTH_RATE_WINDOW_MS: '10000' });
    try {
      const lapi = client(limited.url);
      const body = { email: 'window@example.com', password: 'x' };
      assert.equal((await lapi('POST', '/v1/users/auth/signin', { body })).status, 401);
      assertProblem(await lapi('POST', '/v1/users/auth/signin', { body }), 429, 'RATE_LIMITED');
      await new Promise((r) => setTimeout(r, 10_100));
      assert.equal((await lapi('POST', '/v1/users/auth/signin', { body })).status, 401);
    } finally {
      await limited.close();
    }
  });
});

describe('mail without SMTP', () => {
  test('is kept in the outbox table instead', async () => {
    const plain = await startTestService();
    try {
      const papi = client(plain.url);
      const u = await signup(papi);
      const rows = await plain.service.deps.orm.em.fork().getConnection().execute('select to_address, subject, body from mail_outbox');
      assert.equal(rows.length, 1);
      assert.equal(rows[0].to_address, u.email);
      assert.match(rows[0].body, /verify-email\?token=souk_ve_/);
    } finally {
      await plain.close();
    }
  });
});

describe('admin script', () => {
  test('npm run admin -- promote EMAIL gives the platform admin role', async () => {
    const own = await startTestService();
    let reopened: TestService | undefined;
    try {
      const oapi = client(own.url);
      await signup(oapi);
      const u = await signup(oapi);
      assert.equal(u.user.platformRole, 'user');
      // The embedded database takes one process at a time: stop the service, keep its data.
      await own.service.close();
      const env: NodeJS.ProcessEnv = { ...process.env, SOUK_DATA_DIR: own.dataDir };
      if (own.databaseUrl) env.DATABASE_URL = own.databaseUrl;
      const run = (...args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', ...args], { env, encoding: 'utf8' });
      const ok = run('promote', u.email.toUpperCase());
      assert.equal(ok.status, 0, ok.stderr);
      assert.match(ok.stdout, /is now admin/);
      assert.equal(run('promote', 'nobody@example.com').status, 1);
      assert.equal(run('elevate', u.email).status, 2);
      reopened = await startTestService({}, { databaseUrl: own.databaseUrl, dataDir: own.dataDir });
      const signin = await client(reopened.url)('POST', '/v1/users/auth/signin', { body: { email: u.email, password: PASSWORD } });
      assert.equal(signin.body.user.platformRole, 'admin');
    } finally {
      await reopened?.close();
      await own.close();
    }
  });
});
