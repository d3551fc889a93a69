// The docs say what the code does, and stand on their own: a reader of this repository has no
// other document to look things up in.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { client, signup, startTestService } from './helpers.js';

const docs = () => ['README.md', ...readdirSync('docs').filter((f) => f.endsWith('.md')).map((f) => join('docs', f))];

test('no doc cites a document this repository does not have (a contract, a spec, a seed file)', () => {
  const cited: string[] = [];
  for (const file of docs()) {
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        // `npm run seed`, scripts/seed.ts and an image's `seed` parameter are this repository's own.
        const text = line.replace(/npm run seed|scripts\/seed\.ts|`seed`|seed[ ,)+]|seeded|seed\.mjs/g, '');
        if (/\bCONTRACT\b/.test(text) || /\bthe contract\b|\bcontract's\b|\bthe spec\b|\bspec's\b|\bthe seed\b/i.test(text)) cited.push(`${file}:${i + 1}: ${line.trim()}`);
      });
  }
  assert.deepEqual(cited, []);
});

test('no doc keeps a merge conflict marker', () => {
  const marked: string[] = [];
  for (const file of docs()) {
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (/^(<{7}|>{7})( |$)|^={7}$/.test(line)) marked.push(`${file}:${i + 1}: ${line}`);
      });
  }
  assert.deepEqual(marked, []);
});

test('development mail without SMTP is a file under the data dir, as operations.md says', async () => {
  const svc = await startTestService({ NODE_ENV: 'development', LOG_LEVEL: 'silent' });
  try {
    const user = await signup(client(svc.url));
    const dir = join(svc.dataDir, 'mail');
    assert.ok(existsSync(dir));
    const files = readdirSync(dir);
    assert.equal(files.length, 1);
    assert.ok(readFileSync(join(dir, files[0]), 'utf8').includes(`To: ${user.email}`));
  } finally {
    await svc.close();
  }
  const row = readFileSync('docs/operations.md', 'utf8').split('\n').find((l) => l.startsWith('| `SOUK_SMTP_URL` |'))!;
  assert.match(row, /<SOUK_DATA_DIR>\/mail\//);
  assert.doesNotMatch(row, /stdout/);
});

test('npm run admin -- promote works while the embedded server runs, as auth.md says', { timeout: 120_000 }, async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'souk-promote-'));
  const svc = await startTestService({}, { databaseUrl: null, dataDir });
  try {
    const api = client(svc.url);
    await signup(api, 'First');
    const user = await signup(api, 'Second');
    assert.equal((await api('GET', '/v1/users/auth', { token: user.token })).body.platformRole, 'user');
    const env: NodeJS.ProcessEnv = { ...process.env, SOUK_DATA_DIR: dataDir, NODE_ENV: 'test' };
    delete env.DATABASE_URL;
    const out = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', 'promote', user.email], { env, encoding: 'utf8' }, (err, stdout, stderr) => (err ? reject(new Error(stderr)) : resolve(stdout))),
    );
    assert.match(out, /is now admin/);
    assert.equal((await api('GET', '/v1/users/auth', { token: user.token })).body.platformRole, 'admin');
  } finally {
    await svc.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  assert.doesNotMatch(readFileSync('docs/auth.md', 'utf8'), /stop the server/);
});
