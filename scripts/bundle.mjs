// The start bundle: src/main.ts with everything it imports, the packages included (but for
// EXTERNAL below), compiled by esbuild into one CommonJS file that scripts/start.mjs runs with a
// V8 code cache (see start.mjs); the CPU pool's worker thread entry (src/cpu/worker.ts) is a
// second, ES module beside it. One file instead of ~300 sources and ~2,800 package modules: no
// resolving, no file reads, no export scanning per module, and the packages' code is compiled
// once into the cache. Rebuilt when any input changed since the last build, so editing a source
// and running `npm start` picks it up.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT_DIR = join(ROOT, 'dist', 'start');
export const BUNDLE = join(OUT_DIR, 'souk.cjs');
/** The CPU pool's worker thread entry (src/cpu/pool.ts looks for it beside the bundle). */
const WORKER = join(OUT_DIR, 'cpu-worker.mjs');
const INPUTS = join(OUT_DIR, 'inputs.json');
/**
 * Not imported by the bundle, but they change how it is built. The packages' own files are not
 * checked one by one (thousands of stats per start): the lock file says when they changed.
 */
const BUILD_INPUTS = ['package.json', 'package-lock.json', 'tsconfig.json', 'scripts/bundle.mjs'];

/**
 * Packages left in node_modules: native addons and WebAssembly that find their files beside
 * their own module (argon2, PGlite), a thread pool that starts its own worker files (piscina),
 * and what reads files beside its own module (pdfkit). PGlite, nodemailer, sanitize-html and
 * bidi-js are required by name at run time, on first use, and so never seen here.
 */
const EXTERNAL = ['@electric-sql/pglite', '@electric-sql/pglite-socket', '@node-rs/argon2', 'piscina', 'pdfkit', 'esbuild'];

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
 * Where the V8 code cache of the bundle as it is now lives: named after the bundle's size and
 * modification time, so a rebuilt bundle never meets the cache of another (V8's own check looks
 * at the source's length only).
 */
export function codeCacheFile() {
  const s = statSync(BUNDLE);
  return join(OUT_DIR, `souk.${s.size}-${Math.floor(s.mtimeMs)}.v8cache`);
}

/**
 * What a package's module asks for and is not installed (a driver knex or MikroORM could use,
 * a package.json above its own) fails where it is asked for, as it does unbundled, instead of
 * failing the build or resolving from the bundle's directory to something else. And a source's
 * import() of a package left outside the bundle fails the build: code read from the V8 code
 * cache loses its dynamic import() on Node 20 (the cached functions drop the loader start.mjs
 * gave the script), so such a package is required instead.
 */
const packages = {
  name: 'packages',
  setup(build) {
    build.onResolve({ filter: /.*/ }, async (args) => {
      if (args.pluginData === 'asked') return undefined;
      if (!args.importer.includes('/node_modules/')) {
        const outside = args.kind === 'dynamic-import' && EXTERNAL.some((n) => args.path === n || args.path.startsWith(`${n}/`));
        return outside ? { errors: [{ text: `import('${args.path}') of a package left outside the bundle: require it (createRequire) instead` }] } : undefined;
      }
      const found = await build.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: 'asked' });
      return found.errors.length ? { path: args.path, namespace: 'not-installed' } : found;
    });
    build.onLoad({ filter: /.*/, namespace: 'not-installed' }, (args) => ({
      contents: `const e = new Error(${JSON.stringify(`Cannot find module '${args.path}'`)}); e.code = 'MODULE_NOT_FOUND'; throw e;`,
      loader: 'js',
    }));
  },
};

/** Returns the bundle's path, building it first when it is missing or older than a source. */
export async function ensureBundle({ force = false } = {}) {
  if (!force && changedInput() === null) return BUNDLE;
  const { build } = await import('esbuild');
  const common = { absWorkingDir: ROOT, bundle: true, platform: 'node', target: 'node20', tsconfig: 'tsconfig.json', sourcemap: 'linked', outdir: OUT_DIR, metafile: true, write: false, logLevel: 'error' };
  const [main, worker] = await Promise.all([
    build({
      ...common,
      entryPoints: { souk: 'src/main.ts' },
      format: 'cjs',
      outExtension: { '.js': '.cjs' },
      external: EXTERNAL.flatMap((n) => [n, `${n}/*`]),
      // The sources' import.meta.url, which CommonJS has not: the bundle's own file URL.
      define: { 'import.meta.url': '__importMetaUrl' },
      banner: { js: '"use strict";var __importMetaUrl = require("node:url").pathToFileURL(__filename).href;' },
      plugins: [packages],
      // Whitespace only: names stay, so stack traces and logs read as before; a smaller file to read and hash.
      minifyWhitespace: true,
    }),
    build({
      ...common,
      entryPoints: { 'cpu-worker': 'src/cpu/worker.ts' },
      format: 'esm',
      outExtension: { '.js': '.mjs' },
      packages: 'external',
    }),
  ]);
  mkdirSync(OUT_DIR, { recursive: true });
  // Replicas started together may build at once: each writes its own files and renames them in.
  const tmp = `.${process.pid}.tmp`;
  const files = [...main.outputFiles, ...worker.outputFiles].sort((a) => (a.path.endsWith('.map') ? -1 : 1));
  for (const f of files) writeFileSync(f.path + tmp, f.contents);
  for (const f of files) renameSync(f.path + tmp, f.path);
  // The code caches of earlier builds (and of the ES module bundle before this one) are of no use now.
  for (const old of readdirSync(OUT_DIR)) if (/^souk\..*\.v8cache$|^souk\.mjs(\.map)?$/.test(old)) rmSync(join(OUT_DIR, old), { force: true });
  const sources = [...Object.keys(main.metafile.inputs), ...Object.keys(worker.metafile.inputs)].filter((f) => !f.startsWith('node_modules/') && !f.includes(':'));
  const inputs = Object.fromEntries([...new Set([...sources, ...BUILD_INPUTS])].map((f) => [f, { stamp: stamp(f), sha256: digest(f) }]));
  writeFileSync(INPUTS + tmp, JSON.stringify(inputs));
  renameSync(INPUTS + tmp, INPUTS);
  return BUNDLE;
}
