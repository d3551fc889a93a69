// SOUK_SIGNUP (open, invite, closed) and the first administrator of a production deployment.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../src/config.js';
import { runAdminCommand } from '../src/server/admin.js';
import { assertProblem, client, startTestService, type TestService } from './helpers.js';

const PASSWORD = 'correct horse battery';
const body = (name: string) => ({ email: `${name}-${Date.now()}@example.com`, password: PASSWORD, name });

/** `npm run admin -- ...`: the running service answers on its data dir's socket. */
function admin(svc: TestService, env: NodeJS.ProcessEnv, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const full: NodeJS.ProcessEnv = { ...process.env, ...env, SOUK_DATA_DIR: svc.dataDir };
  if (svc.databaseUrl) full.DATABASE_URL = svc.databaseUrl;
  else delete full.DATABASE_URL;
  return new Promise((resolve) =>
    execFile(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', ...args], { env: full, encoding: 'utf8' }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    ),
  );
}

test('production: the first sign-up of a fresh database is a plain account; the first administrator comes from npm run admin', { timeout: 120_000 }, async () => {
  const env = { NODE_ENV: 'production', SOUK_SECRET_KEY: 'a'.repeat(64), LOG_LEVEL: 'silent' };
  const svc = await startTestService(env);
  try {
    const api = client(svc.url);
    const first = await api('POST', '/v1/users/auth/signup', { body: body('first') });
    assert.equal(first.status, 201);
    assert.equal(first.body.user.platformRole, 'user');
    assertProblem(await api('POST', '/v1/users', { token: first.body.token, body: body('made') }), 403, 'FORBIDDEN');

    const made = await admin(svc, env, 'create-user', 'ops@example.com', 'Ops', '--admin', '--password', PASSWORD);
    assert.equal(made.code, 0, made.stderr);
    assert.match(made.stdout, /created ops@example\.com \(usr_\w+, admin\)/);
    const ops = await api('POST', '/v1/users/auth/signin', { body: { email: 'ops@example.com', password: PASSWORD } });
    assert.equal(ops.body.user.platformRole, 'admin');
    assert.equal((await api('POST', '/v1/users', { token: ops.body.token, body: body('made') })).status, 201);
  } finally {
    await svc.close();
  }
});

test('outside production the first sign-up still administers the platform (a developer can do everything)', async () => {
  const svc = await startTestService();
  try {
    const first = await client(svc.url)('POST', '/v1/users/auth/signup', { body: body('dev') });
    assert.equal(first.body.user.platformRole, 'admin');
  } finally {
    await svc.close();
  }
});

test('SOUK_SIGNUP=invite: no sign-up (REST and GraphQL); a platform administrator creates accounts', { timeout: 60_000 }, async () => {
  const svc = await startTestService({ SOUK_SIGNUP: 'invite' });
  try {
    const api = client(svc.url);
    const refused = await api('POST', '/v1/users/auth/signup', { body: body('self') });
    assertProblem(refused, 403, 'FORBIDDEN');
    assert.match(refused.body.detail, /by invitation.*administrator creates your account/);
    const gql = await api('POST', '/graphql', {
      body: { query: 'mutation($input: SignupInput!) { signup(input: $input) { token } }', variables: { input: body('gql') } },
      contract: false,
    });
    assert.equal(gql.body.errors[0].extensions.code, 'FORBIDDEN');

    const made = await runAdminCommand(svc.service.deps, ['create-user', 'ops@example.com', 'Ops', '--admin', '--password', PASSWORD]);
    assert.equal(made.code, 0, made.lines.join('\n'));
    const ops = await api('POST', '/v1/users/auth/signin', { body: { email: 'ops@example.com', password: PASSWORD } });
    const invited = body('invited');
    assert.equal((await api('POST', '/v1/users', { token: ops.body.token, body: invited })).status, 201);
    assert.equal((await api('POST', '/v1/users/auth/signin', { body: { email: invited.email, password: PASSWORD } })).status, 200);
  } finally {
    await svc.close();
  }
});

test('SOUK_SIGNUP=closed: no account through the API at all, administrators included; the shell still makes them', { timeout: 60_000 }, async () => {
  const svc = await startTestService({ SOUK_SIGNUP: 'closed' });
  try {
    const api = client(svc.url);
    assertProblem(await api('POST', '/v1/users/auth/signup', { body: body('self') }), 403, 'FORBIDDEN');
    const made = await runAdminCommand(svc.service.deps, ['create-user', 'ops@example.com', 'Ops', '--admin', '--password', PASSWORD]);
    assert.equal(made.code, 0, made.lines.join('\n'));
    const ops = await api('POST', '/v1/users/auth/signin', { body: { email: 'ops@example.com', password: PASSWORD } });
    const refused = await api('POST', '/v1/users', { token: ops.body.token, body: body('made') });
    assertProblem(refused, 403, 'FORBIDDEN');
    assert.match(refused.body.detail, /npm run admin -- create-user/);
  } finally {
    await svc.close();
  }
});

test('SOUK_SIGNUP takes open, invite or closed', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'souk-signup-'));
  try {
    const base = { SOUK_DATA_DIR: dataDir };
    assert.equal(loadConfig(base).signup, 'open');
    assert.equal(loadConfig({ ...base, SOUK_SIGNUP: 'invite' }).signup, 'invite');
    assert.throws(() => loadConfig({ ...base, SOUK_SIGNUP: 'invitation' }), (err: Error) => err instanceof ConfigError && /SOUK_SIGNUP must be open, invite or closed/.test(err.message));
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
