import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { client, freshDatabase, startTestService, type TestService } from './helpers.js';

/** Runs `npm run seed` against a service; resolves with its output once it exits by itself. */
function seed(env: NodeJS.ProcessEnv, args: string[] = []): Promise<string> {
  return new Promise<string>((resolve, reject) =>
    execFile(process.execPath, ['--import', 'tsx', 'scripts/seed.ts', ...args], { env, encoding: 'utf8', timeout: 150_000 }, (err, stdout, stderr) =>
      err ? reject(new Error(`${err.message}\n${stdout}\n${stderr}`)) : resolve(stdout),
    ),
  );
}

/** The `curl -X POST` the seed suggests, as one line for bash. */
function suggestedCurl(out: string): string {
  const m = /^ {2}(curl -X POST .*)\\\n\s+(.*?)(?: {2,}\(.*)?$/m.exec(out);
  assert.ok(m, out);
  return `${m[1]} ${m[2]}`;
}

function bash(command: string, env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => execFile('bash', ['-c', command], { env, encoding: 'utf8' }, (err, stdout) => (err ? reject(err) : resolve(stdout))));
}

test('npm run seed: a demo owner, store, products, orders and a webhook whose signed deliveries the echo receiver prints', { timeout: 180_000 }, async () => {
  const db = await freshDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), 'souk-seed-'));
  try {
    const env: NodeJS.ProcessEnv = { ...process.env, SOUK_DATA_DIR: dataDir, PORT: '0', NODE_ENV: 'development', LOG_LEVEL: 'silent' };
    if (db.url) env.DATABASE_URL = db.url;
    else delete env.DATABASE_URL;
    const out = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, ['--import', 'tsx', 'scripts/seed.ts', '--exit'], { env, encoding: 'utf8', timeout: 150_000 }, (err, stdout, stderr) =>
        err ? reject(new Error(`${err.message}\n${stdout}\n${stderr}`)) : resolve(stdout),
      ),
    );
    assert.match(out, /Souk demo data is ready/);
    assert.match(out, /token +souk_st_/);
    assert.match(out, /store +st_\w+ \(Demo Store\)/);
    assert.equal(out.match(/prod_\w+/g)?.length, 3, out);
    assert.match(out, /orders +ord_\w+, ord_\w+/);
    assert.match(out, /webhook +wh_\w+ → http:\/\/127\.0\.0\.1:\d+\/hooks/);
    assert.match(out, /echo receiver: orderCreated \S+ \(signature ok\)/);
    assert.ok(!/BAD SIGNATURE/.test(out), out);
    assert.match(out, /Try next:[\s\S]*curl -H "Authorization: Bearer \$SOUK_TOKEN"/);
  } finally {
    await db.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('npm run seed on a plain `npm start` (webhooks to this machine refused): the data, the exact way to see deliveries, and an exit instead of a wait', { timeout: 180_000 }, async () => {
  const svc: TestService = await startTestService();
  try {
    const out = await seed({ ...process.env, SOUK_URL: svc.url, NODE_ENV: 'development', LOG_LEVEL: 'silent' });
    assert.match(out, /Souk demo data is ready/);
    assert.match(out, /webhook +not created: the service will not deliver to this machine's echo receiver \(.*https:\/\/.*\)/);
    assert.match(out, /^ +SOUK_WEBHOOK_ALLOW_LOOPBACK=1 SOUK_WEBHOOK_ALLOW_HTTP=1 npm start$/m);
    // The README's path says the same.
    assert.match(readFileSync('README.md', 'utf8'), /^SOUK_WEBHOOK_ALLOW_LOOPBACK=1 SOUK_WEBHOOK_ALLOW_HTTP=1 npm start +#/m);
    assert.doesNotMatch(out, /Waiting for deliveries/);
    assert.doesNotMatch(out, /echo receiver prints/);
    const token = /token +(souk_st_\S+)/.exec(out)![1];
    const sid = /store +(st_\w+)/.exec(out)![1];
    const api = client(svc.url);
    assert.deepEqual((await api('GET', `/v1/stores/${sid}/integrations/webhooks`, { token })).body.data, []);

    // The suggested curl, run twice as a reader would: two orders, not one replayed.
    const curl = suggestedCurl(out);
    const first = JSON.parse(await bash(curl, { ...process.env, SOUK_TOKEN: token }));
    const second = JSON.parse(await bash(curl, { ...process.env, SOUK_TOKEN: token }));
    assert.match(first.id, /^ord_/);
    assert.match(second.id, /^ord_/);
    assert.notEqual(first.id, second.id, 'the suggested curl replays its first order');
  } finally {
    await svc.close();
  }
});

test('npm run seed twice on a service that allows local webhooks: one echo webhook, moved to the new receiver, its deliveries signed', { timeout: 240_000 }, async () => {
  const svc = await startTestService({ SOUK_WEBHOOK_ALLOW_LOOPBACK: '1', SOUK_WEBHOOK_ALLOW_HTTP: '1' });
  try {
    const env = { ...process.env, SOUK_URL: svc.url, NODE_ENV: 'development', LOG_LEVEL: 'silent' };
    const first = await seed(env, ['--exit']);
    assert.match(first, /webhook +wh_\w+ → http:\/\/127\.0\.0\.1:\d+\/hooks/);
    assert.equal(first.match(/echo receiver: orderCreated \S+ \(signature ok\)/g)?.length, 2, first);
    const second = await seed(env, ['--exit']);
    assert.match(second, /orders +ord_\w+, ord_\w+ \(made by an earlier run: no new events\)/);
    const hookId = /webhook +(wh_\w+)/.exec(first)![1];
    assert.equal(/webhook +(wh_\w+)/.exec(second)![1], hookId);
    const token = /token +(souk_st_\S+)/.exec(second)![1];
    const sid = /store +(st_\w+)/.exec(second)![1];
    const hooks = (await client(svc.url)('GET', `/v1/stores/${sid}/integrations/webhooks`, { token })).body.data;
    assert.equal(hooks.length, 1);
    assert.equal(hooks[0].url, /webhook +wh_\w+ → (\S+)/.exec(second)![1]);
    assert.doesNotMatch(first + second, /BAD SIGNATURE/);
  } finally {
    await svc.close();
  }
});
