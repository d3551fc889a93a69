// Shared pieces of the benchmarks: a service in a child process started the way `npm start`
// starts it, a fresh PostgreSQL database, a keep-alive HTTP client and a closed-loop load runner.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export const ROOT = new URL('..', import.meta.url).pathname;
export const PG_ADMIN_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export const machine = () => `node ${process.version}, ${cpus().length} CPUs, load ${loadavg().map((l) => l.toFixed(2)).join(' ')}`;

export const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

export const fmt = (n: number, d = 0) => (Number.isFinite(n) ? n.toFixed(d) : '-');

/**
 * User and system CPU a process has used, in ms (clock ticks of 10 ms, from /proc). On a shared
 * machine a figure per operation moves much less with the neighbours' load than req/s does.
 */
export function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * 10;
  } catch {
    return 0;
  }
}

/** A throwaway database on the PostgreSQL server; drop() removes it. */
export async function freshDatabase(label: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `souk_bench_${label}_${process.pid}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: PG_ADMIN_URL });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

export interface RunningService {
  url: string;
  port: number;
  proc: ChildProcess;
  /** Milliseconds from spawn to the first 200 on the probe (/healthz unless asked for /readyz). */
  startMs: number;
  /** CPU the service used until then (ms). */
  startCpuMs: number;
  /** Resident set size of the service process, in MiB (from /proc). */
  rssMiB(): number;
  stop(): Promise<void>;
}

/**
 * Starts the service as `npm start` does (scripts/start.mjs) in a child process, so the load
 * generator does not share its event loop. `databaseUrl` null → embedded PGlite in a temp dir.
 */
export async function startChild(databaseUrl: string | null, env: Record<string, string> = {}, dataDir?: string, probe: '/healthz' | '/readyz' = '/healthz'): Promise<RunningService> {
  const ownDir = dataDir ? null : mkdtempSync(join(tmpdir(), 'souk-bench-'));
  const dir = dataDir ?? join(ownDir!, 'data');
  const began = performance.now();
  const childEnv: Record<string, string | undefined> = {
    ...process.env,
    NODE_ENV: 'production',
    LOG_LEVEL: 'info',
    HOST: '127.0.0.1',
    PORT: '0',
    SOUK_DATA_DIR: dir,
    SOUK_WEBHOOK_ALLOW_PRIVATE: '1',
    SOUK_WEBHOOK_ALLOW_HTTP: '1',
    SOUK_AUTH_RATE_LIMIT: '100000',
    SOUK_AUTH_RATE_LIMIT_IP: '100000',
    SOUK_SECRET_KEY: '00'.repeat(32),
    ...env,
  };
  if (databaseUrl) childEnv.DATABASE_URL = databaseUrl;
  else delete childEnv.DATABASE_URL;
  // What `npm start` runs, without npm around it: BENCH_PROFILE=dir writes a V8 CPU profile there.
  const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
  const proc = spawn(process.execPath, [...profile, join(ROOT, 'scripts/start.mjs')], {
    cwd: ROOT,
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  proc.stderr!.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
  let stopping = false;
  // A service that dies under load says why, instead of leaving only refused connections.
  proc.once('exit', (code, signal) => {
    if (!stopping) console.error(`service exited (${code ?? signal}) during the run: ${stderr}`);
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /souk listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        proc.stdout!.off('data', onData);
        // Keep draining the log so the child never blocks on a full pipe.
        proc.stdout!.resume();
        resolve(m[1]);
      }
    };
    proc.stdout!.on('data', onData);
    proc.once('exit', (code) => reject(new Error(`service exited (${code}) before listening: ${stderr.slice(-2000)}`)));
  });
  for (;;) {
    const r = await fetch(`${url}${probe}`).catch(() => null);
    if (r?.status === 200) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  const startMs = performance.now() - began;
  const startCpuMs = cpuMs(proc.pid!);
  return {
    url,
    port: Number(new URL(url).port),
    proc,
    startMs,
    startCpuMs,
    rssMiB: () => rssOf(proc.pid!),
    async stop() {
      stopping = true;
      if (proc.exitCode === null) {
        const exited = new Promise((r) => proc.once('exit', r));
        proc.kill('SIGTERM');
        await exited;
      }
      if (ownDir) rmSync(ownDir, { recursive: true, force: true });
    },
  };
}

/** RSS of a process and its children (a service started through npm or tsx is a child), in MiB. */
export function rssOf(pid: number): number {
  try {
    const out = execFileSync('ps', ['-o', 'rss=', '--ppid', String(pid), '-p', String(pid)], { encoding: 'utf8' });
    return out.split('\n').filter(Boolean).reduce((s: number, l: string) => s + Number(l.trim()), 0) / 1024;
  } catch {
    return NaN;
  }
}

export const agent = new Agent({ keepAlive: true, maxSockets: 64 });

export function send(port: number, method: string, path: string, headers: Record<string, string>, body?: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers, agent }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

export async function json(base: string, method: string, path: string, body?: unknown, token?: string): Promise<any> {
  const res = await fetch(base + path, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : null;
}

/** A user and a store on a running service. */
export async function userAndStore(base: string, label = 'bench'): Promise<{ token: string; storeId: string }> {
  const { token } = await json(base, 'POST', '/v1/users/auth/signup', { email: `${label}${Date.now()}${Math.random().toString(36).slice(2, 6)}@example.com`, password: 'bench-password', name: 'Bench' });
  const store = await json(base, 'POST', '/v1/stores', { name: 'Bench Store' }, token);
  return { token, storeId: store.id };
}

export interface LoadResult {
  requests: number;
  failures: number;
  seconds: number;
  rps: number;
  p50: number;
  p99: number;
  firstFailure?: string;
}

/** `concurrency` workers, each sending one request after the other, until `maxMs` or `maxRequests`. */
export async function closedLoop(
  concurrency: number,
  maxMs: number,
  maxRequests: number,
  one: (i: number) => Promise<{ status: number; text: string }>,
  ok: (status: number) => boolean = (s) => s >= 200 && s < 300,
): Promise<LoadResult> {
  const latencies: number[] = [];
  let started = 0;
  let failures = 0;
  let firstFailure: string | undefined;
  const t0 = performance.now();
  const deadline = t0 + maxMs;
  const worker = async () => {
    while (started < maxRequests && performance.now() < deadline) {
      const i = started++;
      const s = performance.now();
      try {
        const res = await one(i);
        if (!ok(res.status)) {
          failures++;
          firstFailure ??= `${res.status} ${res.text.slice(0, 200)}`;
        }
      } catch (err) {
        failures++;
        firstFailure ??= String(err);
      }
      latencies.push(performance.now() - s);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - t0) / 1000;
  latencies.sort((a, b) => a - b);
  return { requests: latencies.length, failures, seconds, rps: latencies.length / seconds, p50: pct(latencies, 50), p99: pct(latencies, 99), firstFailure };
}
