// Run by `npm ci` and `npm install`: builds the start bundle, the embedded database template
// (initdb plus every migration, once, instead of on every fresh data directory) and the bundle's
// V8 code cache (one start on a throwaway data directory writes it), so the first `npm start` is
// quick, also where the install is read-only afterwards (an image). A failure here only makes
// that first start slower: it never fails the install.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, codeCacheFile, ensureBundle } from './bundle.mjs';

const secs = (t) => ((performance.now() - t) / 1000).toFixed(1);

if (!existsSync(join(ROOT, 'src', 'main.ts'))) {
  // An install before the sources are in place (a Docker layer): nothing to prepare yet.
  process.exit(0);
}
let t = performance.now();
let bundled = false;
try {
  await ensureBundle({ force: true });
  bundled = true;
  console.log(`souk prepare: start bundle built (${secs(t)} s)`);
} catch (err) {
  console.warn(`souk prepare: the start bundle was not built (npm start will try again): ${err.message}`);
}
t = performance.now();
const made = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/make-template.ts'], { cwd: ROOT, encoding: 'utf8' });
if (made.status === 0) {
  console.log(`souk prepare: embedded database template in ${made.stdout.trim()} (${secs(t)} s)`);
} else {
  console.warn(`souk prepare: no embedded database template (a first start will run initdb): ${(made.stderr || made.error?.message || '').trim().split('\n').slice(-3).join(' ')}`);
}

/** Starts the service on a throwaway embedded database until it has written its code cache. */
async function writeCodeCache() {
  const dataDir = mkdtempSync(join(tmpdir(), 'souk-prepare-'));
  const env = { ...process.env, DATABASE_URL: '', SOUK_ROLE: 'all', SOUK_DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'warn', SOUK_SECRET_KEY: randomBytes(32).toString('hex') };
  const child = spawn(process.execPath, ['scripts/start.mjs'], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-2000)));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let done = false;
  void exited.then(() => (done = true));
  try {
    const deadline = Date.now() + 120_000;
    while (!done && Date.now() < deadline && !existsSync(codeCacheFile())) await new Promise((r) => setTimeout(r, 100));
    if (!existsSync(codeCacheFile())) throw new Error(done ? `the service exited: ${stderr.trim().split('\n').slice(-3).join(' ')}` : 'the service did not start within 120 s');
  } finally {
    if (!done) child.kill('SIGTERM');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (bundled) {
  t = performance.now();
  try {
    await writeCodeCache();
    console.log(`souk prepare: start bundle code cache written (${secs(t)} s)`);
  } catch (err) {
    console.warn(`souk prepare: no code cache for the start bundle (the first start writes one where it may): ${err.message}`);
  }
}
