// `npm start`: the service from its start bundle (see bundle.mjs), compiled with the V8 code
// cache of that bundle when there is one: V8 then reads the compiled code of every function the
// last start ran instead of parsing and compiling it again (a second or more of every start).
// Without a cache (a new build) the first start writes one once it listens, where it may (a
// read-only install keeps the one `npm ci` made, see prepare.mjs). Stack traces point into the
// bundle; NODE_OPTIONS=--enable-source-maps maps them back to the TypeScript sources (it costs
// start-up time, so it is not the default). `node --import tsx src/main.ts` runs the same service
// unbundled.
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import module, { createRequire } from 'node:module';
import { dirname } from 'node:path';
import vm from 'node:vm';
import { BUNDLE, changedInput, codeCacheFile, ensureBundle } from './bundle.mjs';

// Node 22+ keeps compiled code of the packages left outside the bundle between starts.
module.enableCompileCache?.();
let bundle = BUNDLE;
try {
  bundle = await ensureBundle();
} catch (err) {
  // A read-only install (an image run as another user) keeps the bundle it was built with.
  if (!existsSync(BUNDLE)) throw err;
  console.error(`souk: the start bundle could not be rebuilt (${changedInput() ?? 'no input'} changed), starting the one built before: ${err.message}`);
}

const cacheFile = codeCacheFile();
let cachedData;
try {
  cachedData = readFileSync(cacheFile);
} catch {
  cachedData = undefined;
}
// Dynamic import()s in the bundle go to Node's own loader (a package's own, e.g. MikroORM's
// config loading, which this service does not use: on Node 20 the functions read from the cache
// lose this option, and bundle.mjs refuses a source's import() of an outside package for that).
// Node calls the option experimental and says so once; it is the documented way, so not said here.
const emitWarning = process.emitWarning;
process.emitWarning = (warning, ...rest) => (String(warning).includes('USE_MAIN_CONTEXT_DEFAULT_LOADER') ? undefined : emitWarning.call(process, warning, ...rest));
const script = new vm.Script(module.wrap(readFileSync(bundle, 'utf8')), {
  filename: bundle,
  cachedData,
  importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
});
process.emitWarning = emitWarning;
const bundleModule = new module.Module(bundle, null);
bundleModule.filename = bundle;
bundleModule.paths = module.Module._nodeModulePaths(dirname(bundle));
script.runInThisContext().call(bundleModule.exports, bundleModule.exports, createRequire(bundle), bundleModule, bundle, dirname(bundle));

if (!cachedData || script.cachedDataRejected) {
  // Once the service listens, the functions its start compiled are in the cache too.
  bundleModule.exports.started.then((ok) => {
    if (!ok) return;
    const tmp = `${cacheFile}.${process.pid}.tmp`;
    try {
      writeFileSync(tmp, script.createCachedData());
      renameSync(tmp, cacheFile);
    } catch {
      // Read-only: the next start compiles as this one did.
      rmSync(tmp, { force: true });
    }
  });
}
