import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';

/** Every environment variable the service reads, checked in one place. */
export interface Config {
  host: string;
  port: number;
  databaseUrl: string | null;
  dataDir: string;
  production: boolean;
  secretKey: Buffer;
  webhookAllowPrivate: boolean;
  webhookAllowHttp: boolean;
  logLevel: string;
  /** Extra worker concurrency for webhook deliveries. */
  deliveryConcurrency: number;
  /** Comment lines sent on idle SSE event streams so proxies keep them open; also how often open streams re-check access. */
  sseHeartbeatMs: number;
  smtpUrl: string | null;
  mailFrom: string;
  publicUrl: string;
  /** Sign-in, sign-up and reset requests allowed per email, and per client IP, within the window. */
  authRateLimitPerEmail: number;
  authRateLimitPerIp: number;
  authRateWindowMs: number;
  /** How long a session lives after its last use (sliding). */
  sessionTtlMs: number;
}

export class ConfigError extends Error {}

function flag(value: string | undefined): boolean {
  return value === '1' || value === 'true' || value === 'yes';
}

function parseKey(raw: string): Buffer {
  const trimmed = raw.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed, 'hex');
  const b64 = Buffer.from(trimmed, 'base64');
  if (b64.length === 32) return b64;
  throw new ConfigError('SOUK_SECRET_KEY must be 32 bytes, written as 64 hex characters or base64');
}

/** A duration: seconds, or a number with `s`, `m`, `h` or `d`. */
function durationVar(env: NodeJS.ProcessEnv, name: string, fallbackMs: number, minMs: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallbackMs;
  const m = /^(\d{1,9})([smhd]?)$/.exec(raw.trim());
  const unit = { '': 1000, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m?.[2] ?? ''] ?? 1000;
  const ms = m ? Number(m[1]) * unit : NaN;
  if (!Number.isFinite(ms) || ms < minMs || ms > 3650 * 86_400_000) throw new ConfigError(`${name} must be a duration such as 2592000 (seconds), 720h or 30d`);
  return ms;
}

function intVar(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new ConfigError(`${name} must be an integer between ${min} and ${max}`);
  return n;
}

/** Outside production an unset key is generated once and kept in the data dir. */
function loadSecretKey(env: NodeJS.ProcessEnv, production: boolean, dataDir: string): Buffer {
  if (env.SOUK_SECRET_KEY) return parseKey(env.SOUK_SECRET_KEY);
  if (production) {
    throw new ConfigError('SOUK_SECRET_KEY is required when NODE_ENV=production (32 bytes, hex or base64): it encrypts webhook secrets at rest');
  }
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, 'secret.key');
  if (existsSync(file)) return parseKey(readFileSync(file, 'utf8'));
  const key = randomBytes(32);
  writeFileSync(file, key.toString('hex') + '\n', { mode: 0o600, flag: 'wx' });
  return key;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const production = env.NODE_ENV === 'production';
  const dataDir = resolve(env.SOUK_DATA_DIR || './.data');
  const databaseUrl = env.DATABASE_URL ? env.DATABASE_URL : null;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must be a postgres:// URL');
  }
  const port = intVar(env, 'PORT', 4000, 0, 65535);
  const host = env.HOST || '127.0.0.1';
  return {
    host,
    port,
    databaseUrl,
    dataDir,
    production,
    secretKey: loadSecretKey(env, production, dataDir),
    webhookAllowPrivate: flag(env.SOUK_WEBHOOK_ALLOW_PRIVATE),
    webhookAllowHttp: flag(env.SOUK_WEBHOOK_ALLOW_HTTP),
    logLevel: env.LOG_LEVEL || (env.NODE_ENV === 'test' ? 'silent' : 'info'),
    deliveryConcurrency: intVar(env, 'SOUK_DELIVERY_CONCURRENCY', 32, 1, 256),
    sseHeartbeatMs: intVar(env, 'SOUK_SSE_HEARTBEAT_MS', 15_000, 50, 3_600_000),
    smtpUrl: env.SOUK_SMTP_URL || null,
    mailFrom: env.SOUK_MAIL_FROM || 'Souk <no-reply@souk.local>',
    publicUrl: env.SOUK_PUBLIC_URL || `http://${host}:${port}`,
    authRateLimitPerEmail: intVar(env, 'SOUK_AUTH_RATE_LIMIT', 10, 1, 1_000_000),
    authRateLimitPerIp: intVar(env, 'SOUK_AUTH_RATE_LIMIT_IP', 600, 1, 1_000_000),
    authRateWindowMs: intVar(env, 'SOUK_AUTH_RATE_WINDOW_MS', 60_000, 1_000, 86_400_000),
    sessionTtlMs: durationVar(env, 'SOUK_SESSION_TTL', 30 * 86_400_000, 1000),
  };
}
