import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { startService, type Service } from '../src/service.js';
import type { Module } from '../src/core/module.js';
import { contractMismatch } from './contract.js';

export interface TestService {
  service: Service;
  url: string;
  databaseUrl: string | null;
  dataDir: string;
  close(): Promise<void>;
}

/** A fresh database per call: a new PostgreSQL database when DATABASE_URL is set, a new PGlite dir otherwise. */
export async function freshDatabase(): Promise<{ url: string | null; drop(): Promise<void> }> {
  const base = process.env.DATABASE_URL;
  if (!base) return { url: null, async drop() {} };
  const name = `souk_t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const u = new URL(base);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

/** `url`'s database on the replica at 127.0.0.1:`port`. */
function replicaUrl(url: string, port: string): string {
  const u = new URL(url);
  u.hostname = '127.0.0.1';
  u.port = port;
  return u.toString();
}

export async function startTestService(env: Record<string, string> = {}, reuse?: { databaseUrl: string | null; dataDir: string }, modules?: readonly Module[]): Promise<TestService> {
  const db = reuse ? { url: reuse.databaseUrl, async drop() {} } : await freshDatabase();
  const dataDir = reuse?.dataDir ?? mkdtempSync(join(tmpdir(), 'souk-test-'));
  const config = loadConfig({
    NODE_ENV: 'test',
    SOUK_DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    // Every test signs up from 127.0.0.1; the rate-limit tests lower these on purpose.
    SOUK_AUTH_RATE_LIMIT: '100000',
    SOUK_AUTH_RATE_LIMIT_IP: '100000',
    ...(db.url ? { DATABASE_URL: db.url } : {}),
    // SOUK_TEST_REPLICA_PORT: a streaming replica of DATABASE_URL's server on 127.0.0.1 at that
    // port, for running any file with its reads on the replica (db/replicas.ts).
    ...(db.url && process.env.SOUK_TEST_REPLICA_PORT ? { SOUK_DATABASE_REPLICA_URLS: replicaUrl(db.url, process.env.SOUK_TEST_REPLICA_PORT) } : {}),
    ...env,
  });
  const service = await startService(config, modules ? { modules } : {});
  return {
    service,
    url: service.url,
    databaseUrl: db.url,
    dataDir,
    async close() {
      await service.close();
      if (!reuse) {
        await db.drop();
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  };
}

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/**
 * A small client for the REST API: JSON in, parsed JSON (or text) out. Every `/v1` answer is held
 * to the served OpenAPI document (status listed for the operation, body valid against its schema)
 * and a mismatch fails the test; `contract: false` opts out, for requests that are garbage on purpose.
 */
export function client(base: string) {
  return async function api<T = any>(
    method: string,
    path: string,
    opts: { token?: string; body?: unknown; raw?: string; headers?: Record<string, string>; contract?: false } = {},
  ): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    let body: string | undefined;
    if (opts.raw !== undefined) body = opts.raw;
    else if (opts.body !== undefined) body = JSON.stringify(opts.body);
    if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
    const res = await fetch(base + path, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    if (text && /json/.test(res.headers.get('content-type') ?? '')) parsed = JSON.parse(text);
    if (opts.contract !== false) {
      const mismatch = await contractMismatch(base, method, path, res.status, res.headers.get('content-type') ?? '', parsed);
      if (mismatch) throw new Error(`OpenAPI contract broken: ${mismatch}\n${text.slice(0, 2000)}`);
    }
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  };
}

export type Api = ReturnType<typeof client>;

let counter = 0;
/** Signs a new user up and returns its token and user. */
export async function signup(api: Api, name = 'User'): Promise<{ token: string; user: any; email: string }> {
  const email = `u${Date.now()}${counter++}${randomBytes(3).toString('hex')}@example.com`;
  const res = await api('POST', '/v1/users/auth/signup', { body: { email, password: 'correct horse battery', name } });
  if (res.status !== 201) throw new Error(`signup failed: ${res.status} ${res.text}`);
  return { token: res.body.token, user: res.body.user, email };
}

/** A store owned by a fresh user. */
export async function ownerWithStore(api: Api): Promise<{ token: string; user: any; email: string; storeId: string }> {
  const owner = await signup(api, 'Owner');
  const res = await api('POST', '/v1/stores', { token: owner.token, body: { name: 'Test Store' } });
  if (res.status !== 201) throw new Error(`store create failed: ${res.status} ${res.text}`);
  return { ...owner, storeId: res.body.id };
}

/** Adds a new user to the store with the role; returns its token. */
export async function memberWithRole(api: Api, ownerToken: string, storeId: string, role: string): Promise<{ token: string; user: any }> {
  const m = await signup(api, role);
  const res = await api('POST', `/v1/stores/${storeId}/members`, { token: ownerToken, body: { email: m.email, role } });
  if (res.status !== 201) throw new Error(`member add failed: ${res.status} ${res.text}`);
  return { token: m.token, user: m.user };
}

export function assertProblem(res: ApiResponse, status: number, code: string): void {
  if (res.status !== status || res.body?.code !== code || !/application\/problem\+json/.test(res.headers.get('content-type') ?? '')) {
    throw new Error(`expected ${status} ${code} problem+json, got ${res.status} ${res.headers.get('content-type')} ${res.text}`);
  }
  if (res.body.type !== 'about:blank' || typeof res.body.title !== 'string' || res.body.status !== status || typeof res.body.detail !== 'string') {
    throw new Error(`not an RFC 9457 problem: ${res.text}`);
  }
}

/**
 * An OAuth app token of the user with the scopes, through the real flow: a developer registers
 * an app, the user consents (PKCE S256), the app trades the code for its token.
 */
export async function oauthAppToken(api: Api, userToken: string, scopes: string[]): Promise<string> {
  const dev = await signup(api, 'Developer');
  const redirectUri = 'https://app.example/callback';
  const app = await api('POST', '/v1/apps', { token: dev.token, body: { name: 'App', redirectUris: [redirectUri], scopes } });
  if (app.status !== 201) throw new Error(`app create failed: ${app.status} ${app.text}`);
  const codeVerifier = randomBytes(32).toString('base64url');
  const codeChallenge = createHash('sha256').update(codeVerifier).digest('base64url');
  const code = await api('POST', '/v1/users/auth/code', {
    token: userToken,
    body: { appId: app.body.id, redirectUri, scopes, codeChallenge, codeChallengeMethod: 'S256' },
  });
  if (code.status !== 200) throw new Error(`consent failed: ${code.status} ${code.text}`);
  const token = await api('POST', '/v1/users/auth/code/consume', {
    body: { code: code.body.code, clientId: app.body.id, clientSecret: app.body.clientSecret, redirectUri, codeVerifier },
  });
  if (token.status !== 200) throw new Error(`code exchange failed: ${token.status} ${token.text}`);
  return token.body.accessToken;
}

/** Polls `probe` until it returns true; the elapsed milliseconds, or Infinity after `limitMs`. */
export async function within(limitMs: number, probe: () => Promise<boolean>, everyMs = 5): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < limitMs) {
    if (await probe()) return performance.now() - started;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  return Infinity;
}

/** Resolves with the first truthy value `fn` gives, polling every 100 ms; throws after `ms`. */
export async function until<T>(what: string, fn: () => Promise<T | undefined | null | false | 0> | T | undefined | null | false | 0, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v as T;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * The SQL statements sent to the database while `fn` runs, by every pg client of this process
 * (the ORM's, prepared statements, the queue's): the service under test runs in-process.
 */
export async function statementsOf(_svc: TestService, fn: () => Promise<unknown>): Promise<string[]> {
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  // Statements by client, so a background sweep's transaction (the lease sweeps claim rows with
  // SKIP LOCKED, which no request path does) can be told from the request's own statements.
  const seen: Array<{ client: unknown; text: string }> = [];
  proto.query = function (this: unknown, ...args: unknown[]) {
    const q = args[0] as string | { text?: string };
    seen.push({ client: this, text: typeof q === 'string' ? q : String(q?.text ?? q) });
    return original.apply(this, args);
  };
  try {
    await fn();
  } finally {
    proto.query = original;
  }
  const sweeps = new Set<number>();
  const open = new Map<unknown, number[]>();
  seen.forEach(({ client, text }, i) => {
    // A queue's poll (pg-boss claims jobs with SKIP LOCKED in one statement) is background work too.
    if (!open.has(client) && /\bskip locked\b/i.test(text)) sweeps.add(i);
    if (/^\s*begin\b/i.test(text)) open.set(client, [i]);
    else if (open.has(client)) {
      open.get(client)!.push(i);
      if (/^\s*(commit|rollback)\b/i.test(text)) {
        const group = open.get(client)!;
        open.delete(client);
        if (group.some((j) => /\bskip locked\b/i.test(seen[j].text))) for (const j of group) sweeps.add(j);
      }
    }
  });
  return seen.filter((_, i) => !sweeps.has(i)).map((s) => s.text);
}

/** A free loopback port, for a service started in a child process. */
export async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const port = (srv.address() as { port: number }).port;
  await new Promise((resolve) => srv.close(resolve));
  return port;
}
