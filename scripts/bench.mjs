// `npm run bench`: every benchmark in bench/, one after the other, each printing its own table.
// Short phases so the whole run stays under five minutes on two cores.
import { spawnSync } from 'node:child_process';

const runs = [
  ['writes', { BENCH_SECONDS: '5' }],
  ['dispatch', { BENCH_SECONDS: '5' }],
  ['http', { BENCH_SECONDS: '4' }],
  ['peer', { BENCH_SECONDS: '3' }],
  ['storefront', { BENCH_SECONDS: '3' }],
  ['replicas', { BENCH_SECONDS: '3' }],
  ['startup', {}],
  ['batch', {}],
];
const only = process.argv.slice(2);
let failed = 0;
const began = Date.now();
for (const [name, env] of runs) {
  if (only.length && !only.includes(name)) continue;
  console.log(`\n===== bench:${name}`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', `bench/${name}.ts`], { stdio: 'inherit', env: { ...process.env, ...env } });
  if (r.status !== 0) {
    failed++;
    console.log(`bench:${name} exited with ${r.status ?? r.signal}`);
  }
}
console.log(`\nall benchmarks: ${((Date.now() - began) / 1000).toFixed(0)} s${failed ? `, ${failed} failed` : ''}`);
process.exit(failed ? 1 : 0);
