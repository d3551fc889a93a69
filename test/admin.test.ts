import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { connect } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { client, ownerWithStore, startTestService, type Api, type TestService } from './helpers.js';
import { adminSocketPath, type AdminResult } from '../src/server/admin.js';

let svc: TestService;
let api: Api;
let dataDir: string;
before(async () => {
  // The embedded default: the running service holds the data dir, so the CLI must go through it.
  dataDir = mkdtempSync(join(tmpdir(), 'souk-admin-'));
  svc = await startTestService({}, { databaseUrl: null, dataDir });
  api = client(svc.url);
});
let closed = false;
after(async () => {
  if (!closed) await svc.close();
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

/** Writes `raw` on the admin socket and reads until the service closes the connection. */
function onSocket(raw: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(adminSocketPath(dataDir));
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(raw));
    socket.on('data', (chunk) => (answer += chunk));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}
const parsed = (answer: string) => JSON.parse(answer) as AdminResult;

test('the admin socket answers a bad request with a usage error and keeps serving: not JSON, no argv, argv not an array of strings, a line too long', { timeout: 120_000 }, async () => {
  for (const raw of ['{}\n', '{"argv":null}\n', '{"argv":"list-stores"}\n', '{"argv":[1]}\n', '{"argv":["list-stores",null]}\n', 'null\n', '[]\n', '"x"\n', 'not json\n', '\n']) {
    const answer = parsed(await onSocket(raw));
    assert.equal(answer.code, 2, raw);
    assert.match(answer.lines[0], /must be one line of JSON, \{"argv": \["COMMAND", \.\.\.\]\}/, raw);
    assert.ok(answer.lines.some((l) => l.startsWith('usage: npm run admin')), raw);
  }
  // A line past the bound is refused without waiting for its end.
  const long = parsed(await onSocket('{"argv":["' + 'x'.repeat(70 * 1024)));
  assert.deepEqual(long, { code: 2, lines: ['souk admin: the request is longer than 65536 bytes'] });
  // A command whose handler fails (the database refuses U+0000 in text) answers the failure.
  const failed = parsed(await onSocket(`${JSON.stringify({ argv: ['reset-password', 'nul\u0000@example.com'] })}\n`));
  assert.equal(failed.code, 1);
  assert.equal(failed.lines.length, 1);
  // The service is alive and still answers its socket and HTTP.
  assert.equal((await api('GET', '/healthz', { contract: false })).status, 200);
  assert.equal(parsed(await onSocket('{"argv":["list-stores"]}\n')).code, 0);
});

test('the admin socket runs one command per connection: lines after the first, sent together or after the answer, are not run', { timeout: 120_000 }, async () => {
  assert.equal(parsed(await onSocket(`${JSON.stringify({ argv: ['create-user', 'first@example.com', 'First', '--password', 'a password!'] })}\n`)).code, 0);
  const second = `${JSON.stringify({ argv: ['create-user', 'second@example.com', 'Second', '--password', 'a password!'] })}\n`;
  // A second line in the same write, and another once the answer arrives (the connection is still open for reading).
  const answer = await new Promise<string>((resolve, reject) => {
    const socket = connect(adminSocketPath(dataDir));
    let text = '';
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(`${JSON.stringify({ argv: ['create-token', 'first@example.com', '--name', 'once'] })}\n${second}`));
    socket.once('data', () => socket.write(second));
    socket.on('data', (chunk) => (text += chunk));
    socket.on('close', () => resolve(text));
    socket.on('error', reject);
  });
  assert.equal(answer.trim().split('\n').length, 1, answer);
  assert.equal(parsed(answer).code, 0);
  const [{ n }] = await svc.service.deps.orm.em.fork().getConnection().execute(`select count(*)::int as n from auth_tokens where name = 'once'`);
  assert.equal(n, 1, 'the command ran once');
  const reset = await admin('reset-password', 'second@example.com');
  assert.equal(reset.code, 1, 'the second line was not run');
  assert.match(reset.stderr, /no account with the email second@example\.com/);
});

test('names refuse control characters and bidi overrides; list-stores prints stored names escaped', { timeout: 120_000 }, async () => {
  const owner = await ownerWithStore(api);
  for (const name of ['Evil\u001b[31mRed', 'Bell\u0007', 'C1\u009b', 'Flip\u202eedoc', 'Iso\u2066x\u2069', 'Line\nbreak']) {
    const res = await api('POST', '/v1/stores', { token: owner.token, body: { name } });
    assert.equal(res.status, 400, JSON.stringify(name));
    assert.deepEqual(res.body.errors, [{ path: 'name', message: 'must not contain control characters or bidirectional overrides' }]);
    const renamed = await api('PATCH', `/v1/stores/${owner.storeId}`, { token: owner.token, body: { name } });
    assert.equal(renamed.status, 400, JSON.stringify(name));
  }
  // Arabic with the marks bidi text needs is a name like any other.
  assert.equal((await api('POST', '/v1/stores', { token: owner.token, body: { name: 'متجر \u200fالجزائر\u200e 16' } })).status, 201);
  // A name stored before the rule (written here straight to the database) is printed escaped.
  await svc.service.deps.orm.em.fork().getConnection().execute('update stores set name = ? where id = ?', ['Evil\u001b]0;pwned\u0007\u202eName', owner.storeId]);
  const listed = await admin('list-stores', owner.email);
  assert.equal(listed.code, 0, listed.stderr);
  assert.ok(listed.stdout.includes('Evil\\u{1b}]0;pwned\\u{7}\\u{202e}Name'), listed.stdout);
  assert.doesNotMatch(listed.stdout, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
});

test('the service stops while admin connections are open: one answered and still writing, one half a line in', { timeout: 120_000 }, async () => {
  const answered = connect({ path: adminSocketPath(dataDir), allowHalfOpen: true });
  answered.setEncoding('utf8');
  await new Promise<void>((resolve, reject) => {
    answered.on('error', reject);
    answered.on('connect', () => answered.write('{"argv":["list-stores"]}\n'));
    // After the answer, the client keeps writing and never ends its side.
    answered.once('data', () => {
      answered.write('more\n');
      resolve();
    });
  });
  const idle = connect(adminSocketPath(dataDir));
  await new Promise<void>((resolve, reject) => idle.on('connect', () => idle.write('{"argv":', () => resolve())).on('error', reject));
  answered.on('error', () => {});
  idle.on('error', () => {});
  // Before: the server waited for the answered connection (paused, its end never read) and never closed.
  await svc.close();
  closed = true;
  answered.destroy();
  idle.destroy();
});
