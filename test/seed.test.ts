import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freshDatabase } from './helpers.js';

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
