// Run by `npm ci` and `npm install`: builds the start bundle and the embedded database template
// (initdb plus every migration, once, instead of on every fresh data directory), so the first
// `npm start` is quick. A failure here only makes that first start slower: it never fails the install.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, ensureBundle } from './bundle.mjs';

const secs = (t) => ((performance.now() - t) / 1000).toFixed(1);

if (!existsSync(join(ROOT, 'src', 'main.ts'))) {
  // An install before the sources are in place (a Docker layer): nothing to prepare yet.
  process.exit(0);
}
let t = performance.now();
try {
  await ensureBundle({ force: true });
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
