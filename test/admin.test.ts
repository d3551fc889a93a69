import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { client, ownerWithStore, startTestService, type Api, type TestService } from './helpers.js';

let svc: TestService;
let api: Api;
let dataDir: string;
before(async () => {
  // The embedded default: the running service holds the data dir, so the CLI must go through it.
  dataDir = mkdtempSync(join(tmpdir(), 'souk-admin-'));
  svc = await startTestService({}, { databaseUrl: null, dataDir });
  api = client(svc.url);
});
after(async () => {
  await svc.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** `npm run admin -- ...` against the running service's data dir (asynchronous: the service answers in this process). */
function admin(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, SOUK_DATA_DIR: dataDir, NODE_ENV: 'test' };
  delete env.DATABASE_URL;
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', ...args], { env, encoding: 'utf8' }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

test('the admin CLI works while the embedded server runs: users, passwords, tokens, stores', { timeout: 120_000 }, async () => {
  const created = await admin('create-user', 'ops@example.com', 'Ops', '--password', 'first password!');
  assert.equal(created.code, 0, created.stderr);
  assert.match(created.stdout, /created ops@example\.com \(usr_/);

  const token = await admin('create-token', 'ops@example.com', '--name', 'ci');
  assert.equal(token.code, 0, token.stderr);
  const bearer = token.stdout.trim();
  assert.match(bearer, /^souk_st_/);
  const me = await api('GET', '/v1/users/auth', { token: bearer });
  assert.equal(me.body.email, 'ops@example.com');
  assert.equal(me.body.emailVerified, true);

  const reset = await admin('reset-password', 'ops@example.com');
  assert.equal(reset.code, 0, reset.stderr);
  const password = /password: (\S+)/.exec(reset.stdout)![1];
  assert.equal((await api('GET', '/v1/users/auth', { token: bearer, contract: false })).status, 401);
  assert.equal((await api('POST', '/v1/users/auth/signin', { body: { email: 'ops@example.com', password } })).status, 200);

  const owner = await ownerWithStore(api);
  const stores = await admin('list-stores');
  assert.equal(stores.code, 0, stores.stderr);
  assert.ok(stores.stdout.includes(owner.storeId) && stores.stdout.includes(owner.email), stores.stdout);

  assert.equal((await admin('create-user', 'ops@example.com', 'Again')).code, 1);
  assert.equal((await admin('frobnicate')).code, 2);
});
