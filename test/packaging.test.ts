// Static checks of the Dockerfile, package.json and .ci/run: no Docker engine runs here, so
// these catch a renamed script or a dropped USER/HEALTHCHECK before an image build would.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

const root = new URL('../', import.meta.url);
const read = (p: string) => readFileSync(new URL(p, root), 'utf8');

interface Pkg {
  scripts?: Record<string, string>;
  engines?: Record<string, string>;
  dependencies?: Record<string, string>;
}

interface Instruction {
  keyword: string;
  args: string;
}

/** Dockerfile instructions with line continuations joined and comments dropped. */
function parseDockerfile(text: string): Instruction[] {
  const out: Instruction[] = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!pending && (line === '' || line.startsWith('#'))) continue;
    if (pending && line.startsWith('#')) continue;
    if (line.endsWith('\\')) {
      pending += line.slice(0, -1) + ' ';
      continue;
    }
    const full = (pending + line).trim();
    pending = '';
    const m = /^(\w+)\s+([\s\S]*)$/.exec(full);
    if (m) out.push({ keyword: m[1].toUpperCase(), args: m[2].trim() });
  }
  return out;
}

/** The words of a CMD/RUN in exec form (JSON array) or shell form. */
const words = (args: string): string[] => (args.startsWith('[') ? (JSON.parse(args) as string[]) : args.split(/\s+/));

/** Every problem found; an empty list means the files agree. */
function packagingProblems(dockerfile: string, pkg: Pkg, ciRun: string): string[] {
  const problems: string[] = [];
  const scripts = pkg.scripts ?? {};
  const ins = parseDockerfile(dockerfile);

  const froms = ins.filter((i) => i.keyword === 'FROM');
  if (froms.length < 2) problems.push(`expected a build and a runtime stage, found ${froms.length} FROM`);
  for (const f of froms) {
    const image = f.args.split(/\s+/)[0];
    if (image !== 'node:lts-slim') problems.push(`FROM ${image}: base image must be node:lts-slim`);
  }

  for (const run of ins.filter((i) => i.keyword === 'RUN')) {
    for (const m of run.args.matchAll(/\bnpm\s+run(?:-script)?\s+([\w:.-]+)/g)) {
      if (!scripts[m[1]]) problems.push(`RUN npm run ${m[1]}: package.json has no script "${m[1]}"`);
    }
  }

  const cmds = ins.filter((i) => i.keyword === 'CMD');
  const cmd = cmds.at(-1);
  if (!cmd) problems.push('no CMD');
  else {
    const w = words(cmd.args);
    if (!(w[0] === 'npm' && (w[1] === 'start' || (w[1] === 'run' && w[2] === 'start')))) problems.push(`CMD ${cmd.args}: expected npm start`);
    if (!scripts.start) problems.push('CMD runs npm start but package.json has no start script');
  }
  // npm passes SIGTERM (docker stop) to `sh -c`, which does not pass it on: the script must exec its runner.
  const start = scripts.start?.trim().split(/\s+/) ?? [];
  if (scripts.start && start[0] !== 'exec') problems.push(`npm start runs "${scripts.start}": it must begin with exec so SIGTERM reaches the service`);
  // The runtime stage installs with --omit=dev, so the start script's runner must be a production dependency.
  const runner = start[0] === 'exec' ? start[1] : start[0];
  if (runner && runner !== 'node' && !pkg.dependencies?.[runner]) problems.push(`npm start runs ${runner}, which is not in dependencies`);

  const lastFrom = froms.at(-1);
  const runtime = lastFrom ? ins.slice(ins.indexOf(lastFrom)) : ins;
  // The file the start script runs must be in the runtime image.
  const entry = start.slice(start[0] === 'exec' ? 2 : 1).find((w) => /\.(m?js|ts)$/.test(w));
  if (entry) {
    const copied = runtime.filter((i) => i.keyword === 'COPY').flatMap((i) => words(i.args).filter((w) => !w.startsWith('--')).slice(0, -1));
    const top = entry.split('/')[0];
    if (!copied.some((src) => src === '.' || src.replace(/^\/app\//, '').replace(/\/$/, '') === top || src.endsWith(`/${top}`))) {
      problems.push(`npm start runs ${entry}, but the runtime stage copies no ${top}`);
    }
  }
  const user = runtime.filter((i) => i.keyword === 'USER').at(-1);
  if (!user) problems.push('the runtime stage has no USER');
  else if (/^(root|0)(:|$)/.test(user.args)) problems.push(`USER ${user.args} is root`);

  const health = runtime.filter((i) => i.keyword === 'HEALTHCHECK').at(-1);
  if (!health || !/\/healthz\b/.test(health.args)) problems.push('no HEALTHCHECK hitting /healthz');

  const dataDir = runtime
    .filter((i) => i.keyword === 'ENV')
    .map((i) => /\bSOUK_DATA_DIR=(\S+)/.exec(i.args)?.[1])
    .filter(Boolean)
    .at(-1);
  if (!dataDir) problems.push('the runtime stage does not set SOUK_DATA_DIR');
  const volumes = runtime.filter((i) => i.keyword === 'VOLUME').flatMap((i) => words(i.args));
  if (!dataDir || !volumes.includes(dataDir)) problems.push(`no VOLUME for the data dir ${dataDir ?? '(unset)'}; VOLUME: ${volumes.join(' ') || 'none'}`);

  if (pkg.engines?.node !== '>=20.19') problems.push(`engines.node is ${JSON.stringify(pkg.engines?.node)}, expected ">=20.19"`);

  const ciLines = ciRun.split('\n').filter((l) => !l.trim().startsWith('#'));
  if (!ciLines.some((l) => /(^|[\s;&|])npm test\b/.test(l))) problems.push('.ci/run does not call npm test');
  return problems;
}

const dockerfile = read('Dockerfile');
const pkg = JSON.parse(read('package.json')) as Pkg;
const ciRun = read('.ci/run');

describe('packaging', () => {
  test('Dockerfile, package.json and .ci/run agree', () => {
    assert.deepEqual(packagingProblems(dockerfile, pkg, ciRun), []);
  });

  test('the checks catch each kind of drift', () => {
    const bad = dockerfile
      .replace('RUN npm run build', 'RUN npm run compile')
      .replace(/FROM node:lts-slim AS runtime/, 'FROM node:22 AS runtime')
      .replace(/^USER node$/m, 'USER root')
      .replace(/\/healthz/g, '/ping')
      .replace(/^VOLUME .*$/m, '');
    assert.notEqual(bad, dockerfile);
    const problems = packagingProblems(bad, { ...pkg, engines: { node: '>=18' } }, ciRun.replace(/npm test/g, 'npm run lint'));
    for (const expected of ['npm run compile', 'FROM node:22', 'is root', '/healthz', 'VOLUME', 'engines.node', 'npm test']) {
      assert.ok(problems.some((p) => p.includes(expected)), `no problem mentions ${expected}: ${problems.join('; ')}`);
    }
    const noStart = packagingProblems(dockerfile, { ...pkg, scripts: { build: 'tsc' } }, ciRun);
    assert.ok(noStart.some((p) => p.includes('no start script')), noStart.join('; '));
    const noExec = packagingProblems(dockerfile, { ...pkg, scripts: { ...pkg.scripts, start: 'vite-node src/main.ts' } }, ciRun);
    assert.ok(noExec.some((p) => p.includes('must begin with exec')), noExec.join('; '));
    assert.ok(noExec.some((p) => p.includes('vite-node, which is not in dependencies')), noExec.join('; '));
    const noScripts = packagingProblems(dockerfile.replace(/^COPY .*\/scripts .*$/m, ''), pkg, ciRun);
    assert.ok(noScripts.some((p) => p.includes('copies no scripts')), noScripts.join('; '));
  });
});
