// The start bundle: src/main.ts and everything it imports from src/ and rest-compat/, compiled
// by esbuild into one ES module (packages stay in node_modules, but for INLINED below), and the
// CPU pool's worker thread entry (src/cpu/worker.ts) as a second one beside it. Loading one file instead of
// ~300 modules through tsx's loader takes a second off every start. Rebuilt when any input
// changed since the last build, so editing a source and running `npm start` picks it up.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT_DIR = join(ROOT, 'dist', 'start');
export const BUNDLE = join(OUT_DIR, 'souk.mjs');
/** The CPU pool's worker thread entry (src/cpu/pool.ts looks for it beside the bundle). */
const WORKER = join(OUT_DIR, 'cpu-worker.mjs');
const INPUTS = join(OUT_DIR, 'inputs.json');
/** Not imported by the bundle, but they change how it is built. */
const BUILD_INPUTS = ['package.json', 'tsconfig.json', 'scripts/bundle.mjs'];

/** Size and modification time to the second: copies (an image's layers) keep no finer time. */
const stamp = (file) => {
  try {
    const s = statSync(join(ROOT, file));
    return `${s.size}:${Math.floor(s.mtimeMs / 1000)}`;
  } catch {
    return 'missing';
  }
};

/** A file's content: asked only when its stamp moved (a copy that did not keep its time). */
const digest = (file) => {
  try {
    return createHash('sha256').update(readFileSync(join(ROOT, file))).digest('base64url');
  } catch {
    return 'missing';
  }
};

/** The first input whose content changed since the bundle was built, or null when none did. */
export function changedInput() {
  let recorded;
  try {
    recorded = JSON.parse(readFileSync(INPUTS, 'utf8'));
  } catch {
    return INPUTS;
  }
  if (![BUNDLE, WORKER].every((f) => existsSync(f))) return BUNDLE;
  for (const [file, r] of Object.entries(recorded)) {
    if (typeof r !== 'object' || r === null) return file;
    if (stamp(file) !== r.stamp && digest(file) !== r.sha256) return file;
  }
  return null;
}

/**
 * Packages compiled into the bundle rather than loaded from node_modules: side-effect-free ES
 * modules of which we use a sliver, so esbuild keeps only that (graphql-scalars: two scalars out
 * of a hundred, which otherwise cost ~150 ms of every start). Everything else stays external.
 */
const INLINED = ['graphql-scalars'];

function externals() {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const names = Object.keys({ ...pkg.dependencies, ...pkg.devDependencies, ...pkg.optionalDependencies }).filter((n) => !INLINED.includes(n));
  return names.flatMap((n) => [n, `${n}/*`]);
}

/** Returns the bundle's path, building it first when it is missing or older than a source. */
export async function ensureBundle({ force = false } = {}) {
  if (!force && changedInput() === null) return BUNDLE;
  const { build } = await import('esbuild');
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: { souk: 'src/main.ts', 'cpu-worker': 'src/cpu/worker.ts' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: externals(),
    tsconfig: 'tsconfig.json',
    sourcemap: 'linked',
    outdir: OUT_DIR,
    outExtension: { '.js': '.mjs' },
    metafile: true,
    write: false,
    logLevel: 'error',
  });
  mkdirSync(OUT_DIR, { recursive: true });
  // Replicas started together may build at once: each writes its own files and renames them in.
  const tmp = `.${process.pid}.tmp`;
  const files = result.outputFiles.sort((a) => (a.path.endsWith('.map') ? -1 : 1));
  for (const f of files) writeFileSync(f.path + tmp, f.contents);
  for (const f of files) renameSync(f.path + tmp, f.path);
  const inputs = Object.fromEntries([...Object.keys(result.metafile.inputs), ...BUILD_INPUTS].map((f) => [f, { stamp: stamp(f), sha256: digest(f) }]));
  writeFileSync(INPUTS + tmp, JSON.stringify(inputs));
  renameSync(INPUTS + tmp, INPUTS);
  return BUNDLE;
}
