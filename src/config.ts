import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { availableParallelism, userInfo } from 'node:os';
import { isIP } from 'node:net';
import { join, resolve } from 'node:path';
import type { ConnectionOptions } from 'node:tls';
import { parse as parseConnectionString } from 'pg-connection-string';

/** Every environment variable the service reads, checked in one place. */
/** What a process runs: `web` serves HTTP and enqueues, `worker` runs every queue and timer, `all` both. */
export type Role = 'all' | 'web' | 'worker';

export interface Config {
  role: Role;
  host: string;
  port: number;
  databaseUrl: string | null;
  /** DATABASE_URL read as libpq reads it, its gaps filled as libpq fills them (see `pgConnection`). */
  databaseConnection: PgConnection | null;
  /** SOUK_DATABASE_REPLICA_URLS: streaming replicas of DATABASE_URL's server that take the reads that tolerate lag. */
  databaseReplicaConnections: PgConnection[];
  /** A replica further behind than this (SOUK_REPLICA_MAX_LAG_MS) is skipped until it catches up. */
  replicaMaxLagMs: number;
  dataDir: string;
  production: boolean;
  secretKey: Buffer;
  webhookAllowPrivate: boolean;
  /** Loopback only (127.0.0.0/8, ::1): the development and test switch. */
  webhookAllowLoopback: boolean;
  /** Private networks a deployment's receivers live on, each `address/prefix`. */
  webhookAllowCidrs: Cidr[];
  webhookAllowHttp: boolean;
  /** Proxies (`address/prefix`) whose X-Forwarded-For names the client; empty: the peer is the client. */
  trustProxy: string[];
  logLevel: string;
  /** Worker threads for CPU-heavy work (Markdown, PDFs, images, user-written schemas). */
  cpuThreads: number;
  /** Extra worker concurrency for webhook deliveries. */
  deliveryConcurrency: number;
  /** Comment lines sent on idle SSE event streams so proxies keep them open; also how often open streams re-check access. */
  sseHeartbeatMs: number;
  smtpUrl: string | null;
  mailFrom: string;
  publicUrl: string;
  /** Origins an OAuth or install flow may send the merchant back to; null: the public URL's origin. */
  returnUrlOrigins: string[] | null;
  /** Sign-in, sign-up and reset requests allowed per email, and per client IP, within the window. */
  authRateLimitPerEmail: number;
  authRateLimitPerIp: number;
  authRateWindowMs: number;
  /** Purchase-order mailings allowed per store, and per user, within an hour. */
  poSendsPerStoreHour: number;
  poSendsPerUserHour: number;
  /** Who makes accounts through the API: anyone (`open`), platform administrators (`invite`), or no one (`closed`: the shell's `npm run admin` only). */
  signup: SignupMode;
  /** How long a session lives after its last use (sliding). */
  sessionTtlMs: number;
  /** Yalidine's API base URL (tests point it at a local fake). */
  yalidineUrl: string;
  /** Procolis (ZR Express), Noest and Zimou Express API base URLs. */
  procolisUrl: string;
  noestUrl: string;
  zimouUrl: string;
  /**
   * Origins a store's Ecotrack `baseUrl` may name (each courier runs Ecotrack under its own
   * address): `scheme://host[:port]`, `*.` standing for any subdomain.
   */
  ecotrackOrigins: string[];
  /** Chargily Pay v2 base URL (checkouts at `/api/v2/checkouts`); the test mode is `https://pay.chargily.net/test`. */
  chargilyUrl: string;
  /** Stripe API base URL. */
  stripeUrl: string;
  /** GraphQL introspection (on unless SOUK_GRAPHQL_INTROSPECTION=0). */
  graphqlIntrospection: boolean;
  /** Origins allowed by CORS; `*` allows any origin without credentials. */
  corsOrigins: string[];
  /** Serve Prometheus metrics at GET /metrics (SOUK_METRICS=1) and/or on their own port. */
  metrics: boolean;
  metricsPort: number | null;
  /** Image generation: `local` (offline, deterministic) or `openai` (an OpenAI-compatible images API). */
  aiProvider: 'local' | 'openai';
  aiImagesUrl: string;
  aiApiKey: string | null;
  aiImageModel: string;
  /** One images API request's time limit (the contract's 10 s by default; real models can need more). */
  aiTimeoutMs: number;
  /** Generations a store may queue per UTC day. */
  aiDailyQuota: number;
  /** `GET …/payment/status?refresh=1` asks the provider about one payment or refund at most once per this many ms. */
  paymentRefreshIntervalMs: number;
  /** Meta Graph API base URL, version included (OAuth dialog, token exchange, ad accounts, Conversions API). */
  metaGraphUrl: string;
  /** The platform's Meta app; null: the ads platform answers 503 NOT_CONFIGURED. */
  metaAppId: string | null;
  metaAppSecret: string | null;
  /** A shop's admin base URL, `{shop}` replaced by the shop domain. */
  shopifyAdminUrlTemplate: string;
  /** The platform's Shopify app; null: the connector answers 503 NOT_CONFIGURED (its ingress 401). */
  shopifyClientId: string | null;
  shopifyClientSecret: string | null;
  /** Storefront catalog reads: `Cache-Control: public, max-age=N, stale-while-revalidate=10N`, N in seconds. */
  storefrontMaxAgeS: number;
  /** The highest per-store storefront limits a store may set (its defaults, unless an operator raises them). */
  storefrontMax: { checkoutsPerAddress: number; checkoutsPerPhone: number; readsPerAddress: number };
  /** Proxy hops in front of the service whose X-Forwarded-For is believed (0: the socket's address). */
  trustProxyHops: number;
}

export class ConfigError extends Error {}

export type SignupMode = 'open' | 'invite' | 'closed';

function signupMode(raw: string | undefined): SignupMode {
  if (raw === undefined || raw === '') return 'open';
  if (raw === 'open' || raw === 'invite' || raw === 'closed') return raw;
  throw new ConfigError('SOUK_SIGNUP must be open, invite or closed');
}

export interface Cidr {
  address: string;
  prefix: number;
  family: 'ipv4' | 'ipv6';
}

/** A comma list of `address/prefix` (IPv4 or IPv6), or with `bare`, plain addresses too; anything else stops the start. */
function cidrList(raw: string | undefined, name: string, bare = false): Cidr[] {
  if (!raw) return [];
  return raw
    .split(',')
    .map((c) => c.trim())
    .filter(Boolean)
    .map((c) => {
      const whole = bare && isIP(c) ? `${c}/${isIP(c) === 4 ? 32 : 128}` : c;
      const m = /^([^/]+)\/(\d{1,3})$/.exec(whole);
      const family = m ? isIP(m[1]) : 0;
      const prefix = m ? Number(m[2]) : -1;
      if (!family || prefix > (family === 4 ? 32 : 128)) throw new ConfigError(`${name}: "${c}" is not ${bare ? 'an address or ' : ''}a CIDR like 10.20.0.0/16 or fd00:1::/64`);
      return { address: m![1], prefix, family: family === 4 ? 'ipv4' : 'ipv6' };
    });
}

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

function role(raw: string | undefined, databaseUrl: string | null): Role {
  const value = raw === undefined || raw === '' ? 'all' : raw;
  if (value !== 'all' && value !== 'web' && value !== 'worker') throw new ConfigError('SOUK_ROLE must be all, web or worker');
  // The embedded database is one process's: its web and worker halves cannot run apart.
  if (value !== 'all' && !databaseUrl) throw new ConfigError(`SOUK_ROLE=${value} needs DATABASE_URL: the embedded database serves one process, which runs both roles`);
  return value;
}

function aiProvider(raw: string | undefined): 'local' | 'openai' {
  if (raw === undefined || raw === '' || raw === 'local') return 'local';
  if (raw === 'openai') return 'openai';
  throw new ConfigError('SOUK_AI_PROVIDER must be local or openai');
}

/** A provider base URL: http(s) only, checked at start rather than at the first call. */
function urlVar(env: NodeJS.ProcessEnv, name: string, fallback: string): string {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an absolute http(s) URL`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new ConfigError(`${name} must be an absolute http(s) URL`);
  return raw.replace(/\/+$/, '');
}

/** A comma list of origin patterns (`https://*.ecotrack.dz`, `http://127.0.0.1:8080`); anything else stops the start. */
function originPatterns(env: NodeJS.ProcessEnv, name: string, fallback: string[]): string[] {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const list = raw.split(',').map((o) => o.trim()).filter(Boolean);
  for (const o of list) {
    if (!/^https?:\/\/(\*\.)?[a-z0-9.-]+(:\d{1,5})?$/i.test(o)) throw new ConfigError(`${name}: "${o}" is not an origin pattern like https://*.example.dz or http://127.0.0.1:8080`);
  }
  return list;
}

/** A URL template holding `{shop}`: http(s) once a shop domain fills it in, checked at start. */
function shopTemplateVar(env: NodeJS.ProcessEnv, name: string, fallback: string): string {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const message = `${name} must be an absolute http(s) URL containing {shop}, e.g. https://{shop}`;
  if (!raw.includes('{shop}')) throw new ConfigError(message);
  let u: URL;
  try {
    u = new URL(raw.replaceAll('{shop}', 'shop.example'));
  } catch {
    throw new ConfigError(message);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new ConfigError(message);
  return raw.replace(/\/+$/, '');
}

/** Outside production an unset key is generated once and kept in the data dir. */
function loadSecretKey(env: NodeJS.ProcessEnv, production: boolean, dataDir: string): Buffer {
  if (env.SOUK_SECRET_KEY) return parseKey(env.SOUK_SECRET_KEY);
  if (production) {
    throw new ConfigError(
      'SOUK_SECRET_KEY is required when NODE_ENV=production (32 bytes, hex or base64): it encrypts webhook secrets at rest. ' +
        'Make one with `openssl rand -hex 32` (or `node -e "console.log(crypto.randomBytes(32).toString(\'hex\'))"`) and keep it with your backups',
    );
  }
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, 'secret.key');
  if (existsSync(file)) return parseKey(readFileSync(file, 'utf8'));
  const key = randomBytes(32);
  writeFileSync(file, key.toString('hex') + '\n', { mode: 0o600, flag: 'wx' });
  return key;
}

/** A comma list of origins; unset: none in production, any (`*`, no credentials) elsewhere. */
function corsOrigins(raw: string | undefined, production: boolean): string[] {
  if (raw === undefined) return production ? [] : ['*'];
  const list = raw.split(',').map((o) => o.trim()).filter(Boolean);
  for (const o of list) {
    if (o !== '*' && !/^https?:\/\/[^/\s]+$/.test(o)) throw new ConfigError(`SOUK_CORS_ORIGINS: "${o}" is not an origin like https://shop.example`);
  }
  return list;
}

/** SOUK_RETURN_URL_ORIGINS: a comma list of http(s) origins; unset: null (the public URL's origin). */
function returnUrlOrigins(raw: string | undefined): string[] | null {
  if (raw === undefined || !raw.trim()) return null;
  return raw.split(',').map((o) => o.trim()).filter(Boolean).map((o) => {
    let u: URL | null = null;
    try {
      u = new URL(o);
    } catch {
      // refused below
    }
    const bare = u && u.pathname === '/' && !u.search && !u.hash && !u.username && !u.password;
    if (!u || !bare || (u.protocol !== 'http:' && u.protocol !== 'https:')) throw new ConfigError(`SOUK_RETURN_URL_ORIGINS: "${o}" is not an origin like https://console.example`);
    return u.origin;
  });
}

/** How node-postgres (and the ORM and queue on top of it) reach a PostgreSQL server. */
export interface PgConnection {
  /** A host name, an IP address, or the directory of a Unix socket. */
  host: string;
  port: number;
  database: string;
  user: string;
  /** Unset: node-postgres reads PGPASSWORD, then ~/.pgpass. */
  password?: string;
  /** Unset: node-postgres reads PGSSLMODE. */
  ssl?: boolean | ConnectionOptions;
}

/** Where libpq looks for a server's socket when no host is given (Debian's directory, then upstream's). */
const SOCKET_DIRS = ['/var/run/postgresql', '/tmp'];

/** libpq's keyword/value form (`host=/var/run/postgresql dbname=souk`) as URI query parameters. */
function keywordValues(raw: string): string | null {
  const params = new URLSearchParams();
  const pair = /\s*([a-z_]+)\s*=\s*(?:'((?:[^'\\]|\\.)*)'|([^\s']+))\s*/y;
  for (let m = pair.exec(raw); m; m = pair.exec(raw)) {
    params.set(m[1], m[3] ?? m[2].replace(/\\(.)/g, '$1'));
    if (pair.lastIndex === raw.length) return `postgres://?${params}`;
  }
  return null;
}

/**
 * A libpq connection string, in either of libpq's forms: a URI (`postgres://user:pw@host:5432/db`,
 * `postgres:///db?host=/var/run/postgresql`, `postgresql://%2Fvar%2Frun%2Fpostgresql/db`) or
 * keyword/value (`host=/var/run/postgresql dbname=db`). What it leaves out is filled as libpq
 * does: PGHOST, else the default socket directory when a server listens there, else localhost;
 * PGPORT, else 5432; PGUSER, else the operating-system user; PGDATABASE, else the user name.
 * `sslmode` means what it means to libpq (`require` encrypts without checking the certificate).
 */
export function pgConnection(raw: string, env: NodeJS.ProcessEnv = process.env, name = 'DATABASE_URL'): PgConnection {
  const uri = /^postgres(ql)?:\/\//.test(raw) ? raw : keywordValues(raw);
  if (!uri) throw new ConfigError(`${name} must be a PostgreSQL connection string: postgres://user@host:5432/db, postgres:///db?host=/var/run/postgresql, or host=... dbname=...`);
  let c: ReturnType<typeof parseConnectionString> & { dbname?: string };
  try {
    c = parseConnectionString(uri, { useLibpqCompat: true });
  } catch (err) {
    // The parser's own message, never the string: it may hold a password.
    throw new ConfigError(`${name} cannot be read: ${err instanceof Error && !(err instanceof TypeError) ? err.message : 'not a connection string (one host only, percent-encode a socket directory)'}`);
  }
  const port = Number(c.port || env.PGPORT || 5432);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new ConfigError(`${name}: the port must be between 1 and 65535`);
  const user = c.user || env.PGUSER || userInfo().username;
  const host = c.host || env.PGHOST || SOCKET_DIRS.find((dir) => existsSync(join(dir, `.s.PGSQL.${port}`))) || 'localhost';
  return {
    host,
    port,
    user,
    database: c.database || c.dbname || env.PGDATABASE || user,
    ...(c.password ? { password: c.password } : {}),
    ...(c.ssl !== undefined && c.ssl !== null ? { ssl: c.ssl as boolean | ConnectionOptions } : {}),
  };
}

/**
 * SOUK_DATABASE_REPLICA_URLS: comma-separated connection strings, each read as DATABASE_URL is.
 * Replicas follow a server, so they need DATABASE_URL (the embedded database has none).
 */
function replicaConnections(env: NodeJS.ProcessEnv, databaseUrl: string | null): PgConnection[] {
  const raw = env.SOUK_DATABASE_REPLICA_URLS;
  if (raw === undefined || raw.trim() === '') return [];
  if (!databaseUrl) throw new ConfigError('SOUK_DATABASE_REPLICA_URLS needs DATABASE_URL: replicas follow a PostgreSQL server, not the embedded database');
  return raw
    .split(',')
    .map((u) => u.trim())
    .filter(Boolean)
    .map((u, i) => pgConnection(u, env, `SOUK_DATABASE_REPLICA_URLS (entry ${i + 1})`));
}

/**
 * Where the service says it is when SOUK_PUBLIC_URL is unset: its own address, but a wildcard
 * one (`0.0.0.0`, `::`, as in the Docker image) is no address to hand out, so `localhost`.
 */
export function defaultPublicUrl(host: string, port: number): string {
  const name = host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `http://${name}:${port}`;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const production = env.NODE_ENV === 'production';
  const dataDir = resolve(env.SOUK_DATA_DIR || './.data');
  const databaseUrl = env.DATABASE_URL ? env.DATABASE_URL : null;
  const port = intVar(env, 'PORT', 4000, 0, 65535);
  const host = env.HOST || '127.0.0.1';
  return {
    role: role(env.SOUK_ROLE, databaseUrl),
    host,
    port,
    databaseUrl,
    databaseConnection: databaseUrl ? pgConnection(databaseUrl, env) : null,
    databaseReplicaConnections: replicaConnections(env, databaseUrl),
    replicaMaxLagMs: intVar(env, 'SOUK_REPLICA_MAX_LAG_MS', 1000, 10, 3_600_000),
    dataDir,
    production,
    secretKey: loadSecretKey(env, production, dataDir),
    webhookAllowPrivate: flag(env.SOUK_WEBHOOK_ALLOW_PRIVATE),
    webhookAllowLoopback: flag(env.SOUK_WEBHOOK_ALLOW_LOOPBACK),
    webhookAllowCidrs: cidrList(env.SOUK_WEBHOOK_ALLOW_CIDRS, 'SOUK_WEBHOOK_ALLOW_CIDRS'),
    // SOUK_TRUST_PROXY names the proxies: a number of hops, or their addresses and networks.
    trustProxy: /^\s*\d+\s*$/.test(env.SOUK_TRUST_PROXY ?? '') ? [] : cidrList(env.SOUK_TRUST_PROXY, 'SOUK_TRUST_PROXY', true).map((c) => `${c.address}/${c.prefix}`),
    webhookAllowHttp: flag(env.SOUK_WEBHOOK_ALLOW_HTTP),
    logLevel: env.LOG_LEVEL || (env.NODE_ENV === 'test' ? 'silent' : 'info'),
    // Two on a small machine (one may be stopped at its deadline while another works), else a core each but one.
    cpuThreads: intVar(env, 'SOUK_CPU_THREADS', Math.min(8, Math.max(2, availableParallelism() - 1)), 1, 64),
    deliveryConcurrency: intVar(env, 'SOUK_DELIVERY_CONCURRENCY', 32, 1, 256),
    sseHeartbeatMs: intVar(env, 'SOUK_SSE_HEARTBEAT_MS', 15_000, 50, 3_600_000),
    smtpUrl: env.SOUK_SMTP_URL || null,
    mailFrom: env.SOUK_MAIL_FROM || 'Souk <no-reply@souk.local>',
    publicUrl: env.SOUK_PUBLIC_URL || defaultPublicUrl(host, port),
    returnUrlOrigins: returnUrlOrigins(env.SOUK_RETURN_URL_ORIGINS),
    authRateLimitPerEmail: intVar(env, 'SOUK_AUTH_RATE_LIMIT', 10, 1, 1_000_000),
    authRateLimitPerIp: intVar(env, 'SOUK_AUTH_RATE_LIMIT_IP', 600, 1, 1_000_000),
    authRateWindowMs: intVar(env, 'SOUK_AUTH_RATE_WINDOW_MS', 60_000, 1_000, 86_400_000),
    poSendsPerStoreHour: intVar(env, 'SOUK_PO_SEND_LIMIT_STORE', 20, 1, 1_000_000),
    poSendsPerUserHour: intVar(env, 'SOUK_PO_SEND_LIMIT_USER', 40, 1, 1_000_000),
    signup: signupMode(env.SOUK_SIGNUP),
    sessionTtlMs: durationVar(env, 'SOUK_SESSION_TTL', 30 * 86_400_000, 1000),
    chargilyUrl: urlVar(env, 'SOUK_CHARGILY_URL', 'https://pay.chargily.net'),
    stripeUrl: urlVar(env, 'SOUK_STRIPE_URL', 'https://api.stripe.com'),
    graphqlIntrospection: env.SOUK_GRAPHQL_INTROSPECTION === undefined || env.SOUK_GRAPHQL_INTROSPECTION === '' ? true : flag(env.SOUK_GRAPHQL_INTROSPECTION),
    corsOrigins: corsOrigins(env.SOUK_CORS_ORIGINS, production),
    metrics: flag(env.SOUK_METRICS),
    metricsPort: env.SOUK_METRICS_PORT ? intVar(env, 'SOUK_METRICS_PORT', 0, 1, 65535) : null,
    yalidineUrl: urlVar(env, 'SOUK_YALIDINE_URL', 'https://api.yalidine.app/v1'),
    procolisUrl: urlVar(env, 'SOUK_PROCOLIS_URL', 'https://procolis.com/api_v1'),
    noestUrl: urlVar(env, 'SOUK_NOEST_URL', 'https://app.noest-dz.com'),
    zimouUrl: urlVar(env, 'SOUK_ZIMOU_URL', 'https://zimou.express/api'),
    ecotrackOrigins: originPatterns(env, 'SOUK_ECOTRACK_ORIGINS', ['https://*.ecotrack.dz']),
    aiProvider: aiProvider(env.SOUK_AI_PROVIDER),
    aiImagesUrl: urlVar(env, 'SOUK_AI_IMAGES_URL', 'https://api.openai.com/v1'),
    aiApiKey: env.SOUK_AI_API_KEY || null,
    aiImageModel: env.SOUK_AI_IMAGE_MODEL || 'gpt-image-1',
    aiTimeoutMs: intVar(env, 'SOUK_AI_TIMEOUT_MS', 10_000, 500, 115_000),
    aiDailyQuota: intVar(env, 'SOUK_AI_DAILY_QUOTA', 100, 0, 1_000_000),
    paymentRefreshIntervalMs: intVar(env, 'SOUK_PAYMENT_REFRESH_INTERVAL_MS', 2000, 0, 3_600_000),
    metaGraphUrl: urlVar(env, 'SOUK_META_GRAPH_URL', 'https://graph.facebook.com/v21.0'),
    metaAppId: env.SOUK_META_APP_ID || null,
    metaAppSecret: env.SOUK_META_APP_SECRET || null,
    shopifyAdminUrlTemplate: shopTemplateVar(env, 'SOUK_SHOPIFY_ADMIN_URL_TEMPLATE', 'https://{shop}'),
    shopifyClientId: env.SOUK_SHOPIFY_CLIENT_ID || null,
    shopifyClientSecret: env.SOUK_SHOPIFY_CLIENT_SECRET || null,
    storefrontMaxAgeS: intVar(env, 'SOUK_STOREFRONT_MAX_AGE', 30, 0, 86_400),
    storefrontMax: {
      checkoutsPerAddress: intVar(env, 'SOUK_STOREFRONT_MAX_CHECKOUTS_PER_ADDRESS', 10, 1, 1_000_000),
      checkoutsPerPhone: intVar(env, 'SOUK_STOREFRONT_MAX_CHECKOUTS_PER_PHONE', 5, 1, 1_000_000),
      readsPerAddress: intVar(env, 'SOUK_STOREFRONT_MAX_READS_PER_ADDRESS', 600, 1, 100_000_000),
    },
    trustProxyHops: /^\s*\d+\s*$/.test(env.SOUK_TRUST_PROXY ?? '') ? intVar({ SOUK_TRUST_PROXY: env.SOUK_TRUST_PROXY!.trim() }, 'SOUK_TRUST_PROXY', 0, 0, 16) : 0,
  };
}
