import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assertProblem, client, freshDatabase, memberWithRole, ownerWithStore, signup, startTestService, type Api, type TestService } from './helpers.js';
import { startSmtpCapture, tokenFrom } from './smtp.js';
import { startReceiver, type Receiver } from './receiver.js';
import { serializeError } from '../src/core/log.js';

/** Credentials (issue 10): what is derived from a session dies with it; secrets stay out of logs and responses. */
let svc: TestService;
let api: Api;
let smtp: Awaited<ReturnType<typeof startSmtpCapture>>;
let rx: Receiver;
const PASSWORD = 'correct horse battery';
const REDIRECT = 'https://thirdparty.example/callback';

const sql = (query: string, params: unknown[] = []) => svc.service.deps.orm.em.fork().getConnection().execute(query, params);

before(async () => {
  smtp = await startSmtpCapture();
  svc = await startTestService({ SOUK_SMTP_URL: smtp.url, SOUK_WEBHOOK_ALLOW_LOOPBACK: '1' });
  api = client(svc.url);
  rx = await startReceiver();
});
after(async () => {
  await svc.close();
  await smtp.close();
  await rx.close();
});

const signin = async (email: string, password = PASSWORD) => (await api('POST', '/v1/users/auth/signin', { body: { email, password } })).body.token as string;

async function resetPassword(email: string, password: string) {
  await api('POST', '/v1/users/auth/reset-password', { body: { email } });
  const token = tokenFrom(await smtp.waitFor(email, /reset-password/));
  const res = await api('POST', '/v1/auth/web/reset-password-confirm', { body: { token, password } });
  assert.equal(res.status, 200, res.text);
}

/** The ways a session ends that a stolen session's owner can trigger from another device. */
const endings: Record<string, (u: { email: string; token: string }, thief: string) => Promise<void>> = {
  'password reset': async (u) => resetPassword(u.email, 'brand new password 1'),
  'password change': async (u) => {
    const res = await api('PUT', '/v1/users/auth', { token: u.token, body: { password: 'brand new password 2', currentPassword: PASSWORD } });
    assert.equal(res.status, 200, res.text);
  },
  'revoke-all': async (u) => {
    const res = await api('POST', '/v1/users/auth/tokens/revoke-all', { token: u.token, body: {} });
    assert.equal(res.status, 200, res.text);
  },
  'sign-out of that session': async (_u, thief) => {
    assert.equal((await api('POST', '/v1/users/auth/signout', { token: thief })).status, 204);
  },
};

describe('transfer codes die with the session that asked for them', () => {
  for (const [name, end] of Object.entries(endings)) {
    test(name, async () => {
      const u = await signup(api);
      const thief = await signin(u.email);
      const issued = await api('POST', '/v1/users/auth/transfer', { token: thief });
      assert.equal(issued.status, 200, issued.text);
      await end(u, thief);
      assertProblem(await api('POST', '/v1/users/auth/transfer', { body: { code: issued.body.code } }), 401, 'UNAUTHENTICATED');
    });
  }

  test('a code from a live session still works', async () => {
    const u = await signup(api);
    const issued = await api('POST', '/v1/users/auth/transfer', { token: u.token });
    const swapped = await api('POST', '/v1/users/auth/transfer', { body: { code: issued.body.code } });
    assert.equal(swapped.status, 200, swapped.text);
    assert.ok(swapped.body.token);
  });
});

describe('OAuth authorization codes die with the session that granted them', () => {
  async function app() {
    const dev = await signup(api, 'Dev');
    const res = await api('POST', '/v1/apps', { token: dev.token, body: { name: 'Third Party', redirectUris: [REDIRECT], scopes: ['profile'] } });
    assert.equal(res.status, 201, res.text);
    return res.body;
  }
  async function authorize(token: string, appId: string) {
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const res = await api('POST', '/v1/users/auth/code', { token, body: { appId, redirectUri: REDIRECT, scopes: ['profile'], codeChallenge: challenge, codeChallengeMethod: 'S256' } });
    assert.equal(res.status, 200, res.text);
    return { code: res.body.code as string, verifier };
  }
  const consume = (a: any, c: { code: string; verifier: string }) =>
    api('POST', '/v1/users/auth/code/consume', { body: { code: c.code, clientId: a.id, clientSecret: a.clientSecret, redirectUri: REDIRECT, codeVerifier: c.verifier } });

  for (const [name, end] of Object.entries(endings)) {
    test(name, async () => {
      const a = await app();
      const u = await signup(api);
      const thief = await signin(u.email);
      const c = await authorize(thief, a.id);
      await end(u, thief);
      const res = await consume(a, c);
      assertProblem(res, 400, 'BAD_REQUEST');
      assert.match(res.body.detail, /session that granted the code has ended/);
      const inspected = await api('POST', '/v1/users/auth/code/inspect', { body: { code: c.code } });
      assert.equal(inspected.body.expired, true);
    });
  }

  test('a code from a live session is exchanged', async () => {
    const a = await app();
    const u = await signup(api);
    const res = await consume(a, await authorize(u.token, a.id));
    assert.equal(res.status, 200, res.text);
  });
});

describe('reset and verification links are bound to the address they were sent to', () => {
  test('a reset link requested before an email change no longer works, nor verifies the new address', async () => {
    const u = await signup(api);
    await api('POST', '/v1/users/auth/reset-password', { body: { email: u.email } });
    const token = tokenFrom(await smtp.waitFor(u.email, /reset-password/));
    assert.equal((await api('GET', `/v1/users/auth/reset-password?token=${encodeURIComponent(token)}`)).body.valid, true);
    const changed = await api('PUT', '/v1/users/auth', { token: u.token, body: { email: `moved-${u.email}` } });
    assert.equal(changed.status, 200, changed.text);
    assert.equal((await api('GET', `/v1/users/auth/reset-password?token=${encodeURIComponent(token)}`)).body.valid, false);
    assertProblem(await api('POST', '/v1/auth/web/reset-password-confirm', { body: { token, password: 'hijacked password' } }), 400, 'VALIDATION_FAILED');
    const me = await api('GET', '/v1/users/auth', { token: u.token });
    assert.equal(me.body.emailVerified, false);
    assert.equal((await api('POST', '/v1/users/auth/signin', { body: { email: `moved-${u.email}`, password: 'hijacked password' } })).status, 401);
  });

  test('a verification link for the old address does not verify the new one', async () => {
    const u = await signup(api);
    const token = tokenFrom(await smtp.waitFor(u.email, /verify-email/));
    await api('PUT', '/v1/users/auth', { token: u.token, body: { email: `other-${u.email}` } });
    assertProblem(await api('POST', '/v1/users/auth/verify-email/confirm', { body: { token } }), 400, 'VALIDATION_FAILED');
  });
});

describe('sessions expire SOUK_SESSION_TTL after their last use', () => {
  let short: TestService;
  let shortApi: Api;
  before(async () => {
    short = await startTestService({ SOUK_SESSION_TTL: '3s' });
    shortApi = client(short.url);
  });
  after(() => short.close());

  test('used within the window it slides; idle past it, it is refused', async () => {
    const u = await signup(shortApi);
    const tokens = await shortApi('GET', '/v1/users/auth/tokens', { token: u.token });
    const first = Date.parse(tokens.body.data[0].expiresAt);
    assert.ok(first > Date.now() && first <= Date.now() + 3500, tokens.text);
    // Used every second for five seconds: past the first expiry, still valid.
    for (let i = 0; i < 5; i++) {
      await new Promise((r) => setTimeout(r, 1000));
      assert.equal((await shortApi('GET', '/v1/users/auth', { token: u.token })).status, 200, `use ${i}`);
    }
    assert.ok(Date.now() > first);
    await new Promise((r) => setTimeout(r, 3500));
    const res = await shortApi('GET', '/v1/users/auth', { token: u.token });
    assertProblem(res, 401, 'UNAUTHENTICATED');
    assert.match(res.body.detail, /expired/);
  });

  test('the default is 30 days', async () => {
    const u = await signup(api);
    const tokens = await api('GET', '/v1/users/auth/tokens', { token: u.token });
    const days = (Date.parse(tokens.body.data[0].expiresAt) - Date.now()) / 86_400_000;
    assert.ok(days > 29.9 && days <= 30, String(days));
  });
});

describe('custom webhook header values', () => {
  test('stored encrypted; values shown only to those who may write webhooks; deliveries carry them', async () => {
    const owner = await ownerWithStore(api);
    const base = `/v1/stores/${owner.storeId}/integrations/webhooks`;
    const value = `Bearer receiver-credential-${randomBytes(6).toString('hex')}`;
    const created = await api('POST', base, { token: owner.token, body: { name: 'H', url: rx.url.replace('/hook', `/hdr/${owner.storeId}`), headers: { 'X-Receiver-Auth': value } } });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.body.headers, { 'X-Receiver-Auth': value });
    const [row] = await sql('select headers::text as headers, headers_enc from webhooks where id = ?', [created.body.id]);
    assert.ok(!row.headers.includes('receiver-credential'), row.headers);
    assert.match(row.headers_enc, /^v1\./);
    assert.ok(!row.headers_enc.includes('receiver-credential'));

    const viewer = await memberWithRole(api, owner.token, owner.storeId, 'viewer');
    const editor = await memberWithRole(api, owner.token, owner.storeId, 'editor');
    for (const res of [await api('GET', base, { token: viewer.token }), await api('GET', `${base}/${created.body.id}`, { token: viewer.token })]) {
      assert.equal(res.status, 200, res.text);
      assert.ok(!res.text.includes('receiver-credential'), res.text);
      const hook = Array.isArray(res.body.data) ? res.body.data[0] : res.body;
      assert.deepEqual(hook.headers, { 'X-Receiver-Auth': '********' });
    }
    const gql = await api('POST', '/graphql', { token: viewer.token, body: { query: `{ webhooks(storeId: "${owner.storeId}") { headers } }` } });
    assert.deepEqual(gql.body.data.webhooks[0].headers, { 'X-Receiver-Auth': '********' });
    assert.deepEqual((await api('GET', base, { token: editor.token })).body.data[0].headers, { 'X-Receiver-Auth': value });

    const tested = await api('POST', `${base}/${created.body.id}/test`, { token: owner.token });
    assert.equal(tested.body.status, 'success', tested.text);
    const [d] = await rx.waitFor(1, 10_000, (r) => r.path.startsWith(`/hdr/${owner.storeId}`));
    assert.equal(d.headers['x-receiver-auth'], value);
  });

  test('webhooks saved before encryption are sealed at start', async () => {
    const owner = await ownerWithStore(api);
    const base = `/v1/stores/${owner.storeId}/integrations/webhooks`;
    const created = await api('POST', base, { token: owner.token, body: { name: 'Old', url: 'https://example.com/h' } });
    await sql(`update webhooks set headers = '{"X-Old": "legacy-secret"}'::jsonb, headers_enc = null where id = ?`, [created.body.id]);
    const { sealLegacyHeaders } = await import('../src/webhooks/headers.js');
    await sealLegacyHeaders(svc.service.deps);
    const [row] = await sql('select headers::text as headers, headers_enc from webhooks where id = ?', [created.body.id]);
    assert.ok(!row.headers.includes('legacy-secret'));
    assert.deepEqual((await api('GET', `${base}/${created.body.id}`, { token: owner.token })).body.headers, { 'X-Old': 'legacy-secret' });
  });
});

test('the address guard does not name the address a host resolved to', async () => {
  const plain = await startTestService();
  try {
    const papi = client(plain.url);
    const owner = await ownerWithStore(papi);
    // Host names the caller cannot see the addresses of, and literal addresses alike.
    for (const url of [`https://localhost:${rx.port}/hook`, 'https://10.9.8.7/x']) {
      const res = await papi('POST', `/v1/stores/${owner.storeId}/integrations/webhooks/test`, { token: owner.token, body: { url } });
      assert.equal(res.body.status, 'failed');
      assert.equal(res.body.error, 'refused: the address is not public (private, loopback, link-local or reserved)');
      assert.ok(!/127\.0\.0\.1|::1/.test(res.text), res.text);
    }
  } finally {
    await plain.close();
  }
});

describe('logs', () => {
  test('a failed statement is logged without its bound values', async () => {
    const secret = `argon-hash-${randomBytes(6).toString('hex')}`;
    const err = await svc.service.deps.orm.em
      .fork()
      .getConnection()
      .execute('select ?::int as n', [secret])
      .then(
        () => assert.fail('the statement should fail'),
        (e: Error) => e,
      );
    assert.ok(err.message.includes(secret), 'the driver puts the value in its message');
    const logged = JSON.stringify(serializeError(err));
    assert.ok(!logged.includes(secret), logged);
    assert.match(logged, /invalid input syntax/);
  });

  test('the reset token in a query string is not in the request log', { timeout: 200_000 }, async () => {
    const db = await freshDatabase();
    const dataDir = mkdtempSync(join(tmpdir(), 'souk-log-'));
    const env: NodeJS.ProcessEnv = { ...process.env, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', SOUK_DATA_DIR: dataDir, NODE_ENV: 'test' };
    if (db.url) env.DATABASE_URL = db.url;
    delete env.NODE_TEST_CONTEXT;
    const proc = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    proc.stdout!.on('data', (c: Buffer) => (output += c.toString()));
    proc.stderr!.on('data', (c: Buffer) => (output += c.toString()));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`did not start: ${output}`)), 150_000);
        const poll = setInterval(() => {
          const m = /souk listening on (http:\/\/\S+)/.exec(output);
          if (m) {
            clearInterval(poll);
            clearTimeout(timer);
            resolve(m[1]);
          }
        }, 50);
      });
      const secret = `souk_pr_${randomBytes(16).toString('hex')}`;
      const res = await fetch(`${url}/v1/users/auth/reset-password?token=${secret}`);
      assert.equal(res.status, 200);
      await new Promise((r) => setTimeout(r, 300));
      // The request line names the route pattern, never the query string.
      assert.ok(output.includes('"route":"/v1/users/auth/reset-password"'), output.slice(-2000));
      assert.ok(!output.includes(secret), 'the token reached the log');
      assert.ok(!/authorization/i.test(output));
    } finally {
      proc.kill('SIGKILL');
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
