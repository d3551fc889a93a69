// `npm start`: the service from its start bundle (see bundle.mjs). Stack traces point into the
// bundle; NODE_OPTIONS=--enable-source-maps maps them back to the TypeScript sources (it costs
// start-up time, so it is not the default). `node --import tsx src/main.ts` runs the same service
// unbundled.
import { existsSync } from 'node:fs';
import module from 'node:module';
import { pathToFileURL } from 'node:url';
import { BUNDLE, changedInput, ensureBundle } from './bundle.mjs';

// Node 22+ keeps compiled code between starts; Node 20 has no such cache.
module.enableCompileCache?.();
let bundle = BUNDLE;
try {
  bundle = await ensureBundle();
} catch (err) {
  // A read-only install (an image run as another user) keeps the bundle it was built with.
  if (!existsSync(BUNDLE)) throw err;
  console.error(`souk: the start bundle could not be rebuilt (${changedInput() ?? 'no input'} changed), starting the one built before: ${err.message}`);
}
await import(pathToFileURL(bundle).href);
