// The process as an operator runs it: `npx tsx src/main.ts` as a child process. Always on the
// embedded database (DATABASE_URL is removed from the child's environment), because the
// data-dir lock it checks exists only there. SIGTERM goes to the service process itself (its
// pid is in the lock file): npx puts npm and `sh -c` in between, and those do not pass
// SIGTERM on (`npm start` does, because its script execs tsx, which relays it).
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const root = new URL('../', import.meta.url);
const dirs: string[] = [];
const children: ChildProcess[] = [];

after(() => {
  // Each child leads its own process group: this also reaches tsx and node below npx.
  for (const c of children) {
    try {
      process.kill(-c.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'souk-life-'));
  dirs.push(d);
  return d;
}

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const port = (srv.address() as { port: number }).port;
  await new Promise((resolve) => srv.close(resolve));
  return port;
}

interface Souk {
  child: ChildProcess;
  output(): string;
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function startSouk(env: Record<string, string>): Souk {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'warn', ...env };
  delete childEnv.DATABASE_URL;
  if (!('NODE_ENV' in env)) delete childEnv.NODE_ENV;
  if (!('SOUK_SECRET_KEY' in env)) delete childEnv.SOUK_SECRET_KEY;
  const child = spawn('npx', ['tsx', 'src/main.ts'], { cwd: root, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => {
    out += d;
    err += d;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  return { child, output: () => out, stderr: () => err, exited };
}

/** Resolves with the exit, or rejects after ms: a hung process fails the test instead of stalling it. */
async function exitWithin(s: Souk, ms: number) {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no exit within ${ms} ms; output:\n${s.output()}`)), ms);
  });
  try {
    return await Promise.race([s.exited, late]);
  } finally {
    clearTimeout(timer);
  }
}

async function waitReady(s: Souk, port: number, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (s.child.exitCode !== null) throw new Error(`exited early with ${s.child.exitCode}:\n${s.output()}`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/readyz`);
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await sleep(200);
  }
  throw new Error(`not ready within ${ms} ms:\n${s.output()}`);
}

describe('process lifecycle (npx tsx src/main.ts)', () => {
  test('locks the data dir, and drains an in-flight request on SIGTERM before exiting 0', { timeout: 150_000 }, async () => {
    const dataDir = tempDir();
    const port = await freePort();
    const first = startSouk({ SOUK_DATA_DIR: dataDir, PORT: String(port) });
    await waitReady(first, port);
    const servicePid = Number(readFileSync(join(dataDir, 'souk.lock'), 'utf8'));
    assert.ok(Number.isInteger(servicePid) && servicePid > 0);

    const second = startSouk({ SOUK_DATA_DIR: dataDir, PORT: String(await freePort()) });
    const secondExit = await exitWithin(second, 60_000);
    assert.notEqual(secondExit.code, 0, second.output());
    assert.match(second.stderr(), /in use by another Souk process/, second.output());
    // The refused process must not have taken the first one's database away.
    assert.equal((await fetch(`http://127.0.0.1:${port}/readyz`)).status, 200);

    // A signup (argon2 hashing) whose body is still arriving when SIGTERM comes: it is in
    // flight for certain, and must still be answered before the process exits.
    const body = Buffer.from(JSON.stringify({ email: 'drain@example.com', password: 'correct horse battery', name: 'Drain' }));
    const half = Math.floor(body.length / 2);
    const response = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port, method: 'POST', path: '/v1/users/auth/signup', headers: { 'content-type': 'application/json', 'content-length': body.length } },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (d) => (text += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.write(body.subarray(0, half));
      void sleep(300).then(() => {
        process.kill(servicePid, 'SIGTERM');
        return sleep(500);
      }).then(async () => {
        assert.equal(first.child.exitCode, null, 'exited while a request was in flight');
        // While it drains, new requests are turned away rather than started.
        assert.equal((await fetch(`http://127.0.0.1:${port}/healthz`)).status, 503);
        req.end(body.subarray(half));
      }).catch(reject);
    });
    const res = await response;
    assert.equal(res.status, 201, res.text);
    assert.ok(JSON.parse(res.text).token, res.text);

    const firstExit = await exitWithin(first, 30_000);
    assert.deepEqual(firstExit, { code: 0, signal: null }, first.output());
    assert.match(first.output(), /SIGTERM received, shutting down/);
  });

  test('NODE_ENV=production without SOUK_SECRET_KEY refuses to start', { timeout: 60_000 }, async () => {
    const s = startSouk({ NODE_ENV: 'production', SOUK_DATA_DIR: tempDir(), PORT: String(await freePort()) });
    const exit = await exitWithin(s, 45_000);
    assert.notEqual(exit.code, 0, s.output());
    assert.match(s.stderr(), /SOUK_SECRET_KEY is required when NODE_ENV=production/, s.output());
  });
});
