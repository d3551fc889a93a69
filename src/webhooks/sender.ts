import { performance } from 'node:perf_hooks';
import { isIP } from 'node:net';
import type { ClientRequest } from 'node:http';
import { createHmac } from 'node:crypto';
import type { Headers } from 'got';
import { loadGot } from '../lib/got.js';
import { BLOCKED_MESSAGE, BlockedAddressError, guardedLookup, type AddressCheck } from './ssrf.js';
import { sign } from './secrets.js';

export const USER_AGENT = 'Svc-Webhooks/2.0';
export const TEST_TIMEOUT_MS = 10_000;
export const RESPONSE_BODY_CHARS = 1024;

export interface Attempt {
  url: string;
  event: string;
  deliveryId: string;
  webhookId: string;
  secret: string;
  customHeaders: Record<string, string>;
  /** The payload, serialized once: these exact bytes are signed and sent. */
  body: Buffer;
  test: boolean;
  timeoutMs: number;
  /** Which IPs may be connected to (`addressCheck` of the config). */
  allowed: AddressCheck;
}

/** Per-phase durations in ms (null where the phase did not happen, e.g. no TLS on http://). */
export interface AttemptTimings {
  dns: number | null;
  connect: number | null;
  tls: number | null;
  firstByte: number | null;
  total: number;
}

export interface AttemptResult {
  status: 'success' | 'failed';
  statusCode: number | null;
  responseTimeMs: number;
  responseBody: string | null;
  error: string | null;
  timings: AttemptTimings;
}

/** Content-Encoding would misdescribe the signed body; Expect would stall the POST on a 100-continue. */
const FORBIDDEN_EXACT = new Set([
  'host',
  'content-type',
  'content-length',
  'content-encoding',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'user-agent',
  'expect',
]);

/** Transport headers and the service's own X-Svc-* are never taken from a webhook's settings. */
export function isForbiddenHeader(name: string): boolean {
  const n = name.toLowerCase();
  return FORBIDDEN_EXACT.has(n) || n.startsWith('proxy-') || n.startsWith('x-svc-');
}

export function deliveryHeaders(a: Attempt): Headers {
  const signature = sign(a.secret, a.body);
  const headers: Headers = {};
  for (const [k, v] of Object.entries(a.customHeaders)) if (!isForbiddenHeader(k)) headers[k.toLowerCase()] = v;
  Object.assign(headers, {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'x-svc-event': a.event,
    'x-svc-delivery': a.deliveryId,
    'x-svc-webhook-id': a.webhookId,
    'x-svc-signature-256': `sha256=${signature}`,
    'x-svc-signature': signature,
  });
  if (a.test) headers['x-svc-test'] = 'true';
  Object.assign(headers, standardWebhookHeaders(a.secret, a.deliveryId, a.body));
  return headers;
}

/**
 * Standard Webhooks headers beside the X-Svc-* ones: `v1,<base64 HMAC-SHA256 of id.timestamp.body>`
 * keyed the way those libraries read a `whsec_` secret (base64-decode what follows the prefix),
 * so a receiver passes its secret string unchanged to them.
 */
export function standardWebhookHeaders(secret: string, id: string, body: Buffer, now = Date.now()): Record<string, string> {
  const timestamp = String(Math.floor(now / 1000));
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const mac = createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${mac}` };
}

function describe(err: Error & { code?: string; cause?: unknown }, timeoutMs: number): string {
  if (err.name === 'TimeoutError' || err.code === 'ETIMEDOUT') return `timeout after ${timeoutMs} ms`;
  const cause = err.cause instanceof Error ? err.cause : null;
  if (err instanceof BlockedAddressError) return err.message;
  if (cause instanceof BlockedAddressError) return cause.message;
  if (err.message.includes(BLOCKED_MESSAGE) || /BlockedAddressError/.test(err.message)) return BLOCKED_MESSAGE;
  switch (err.code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
      return 'connection reset by the receiver';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host not found';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'host unreachable';
    default:
      if (err.code && /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO/.test(err.code)) return `TLS error: ${err.code}`;
      return err.code ? `request failed: ${err.code}` : 'request failed';
  }
}

export const NO_TIMINGS: AttemptTimings = { dns: null, connect: null, tls: null, firstByte: null, total: 0 };

type GotTimings = { phases?: { dns?: number; tcp?: number; tls?: number; firstByte?: number } } | undefined;
const ms = (v: number | undefined) => (typeof v === 'number' && Number.isFinite(v) ? Math.round(v) : null);

/**
 * got's timing phases, as far as the attempt got, each at most the total. On a kept-alive
 * connection this attempt looked nothing up, connected nothing and shook no hands: those phases
 * are 0 (got reports the ones of the connection's first request again).
 */
function phases(t: GotTimings, total: number, reused: boolean): AttemptTimings {
  const p = t?.phases ?? {};
  const phase = (v: number | undefined) => {
    const m = ms(v);
    return m === null ? null : Math.min(m, total);
  };
  if (reused) return { dns: 0, connect: 0, tls: p.tls === undefined ? null : 0, firstByte: phase(p.firstByte), total };
  return { dns: phase(p.dns), connect: phase(p.tcp), tls: phase(p.tls), firstByte: phase(p.firstByte), total };
}

/** One POST, no retries, no redirects followed; 2xx and 3xx count as success. */
export async function sendAttempt(a: Attempt): Promise<AttemptResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let host: string;
  try {
    host = new URL(a.url).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return { status: 'failed', statusCode: null, responseTimeMs: 0, responseBody: null, error: 'invalid url', timings: NO_TIMINGS };
  }
  // Sockets skip DNS for IP literals, so those are checked here.
  if (isIP(host) && !a.allowed(host)) {
    return { status: 'failed', statusCode: null, responseTimeMs: 0, responseBody: null, error: BLOCKED_MESSAGE, timings: NO_TIMINGS };
  }
  const { default: got } = await loadGot();
  return new Promise((resolve) => {
    let statusCode: number | null = null;
    let bytes = 0;
    const chunks: Buffer[] = [];
    let done = false;
    let request: ClientRequest | undefined;
    const finish = (err?: Error) => {
      if (done) return;
      done = true;
      const responseTimeMs = elapsed();
      const timings = phases(stream.timings, responseTimeMs, request?.reusedSocket === true);
      const text = chunks.length ? Buffer.concat(chunks).toString('utf8').slice(0, RESPONSE_BODY_CHARS) : statusCode === null ? null : '';
      if (statusCode === null) {
        resolve({ status: 'failed', statusCode: null, responseTimeMs, responseBody: null, error: err ? describe(err, a.timeoutMs) : 'no response', timings });
        return;
      }
      const ok = statusCode >= 200 && statusCode < 400;
      resolve({ status: ok ? 'success' : 'failed', statusCode, responseTimeMs, responseBody: text, error: ok ? null : `receiver answered ${statusCode}`, timings });
      stream.destroy();
    };
    const stream = got.stream.post(a.url, {
      body: a.body,
      headers: deliveryHeaders(a),
      timeout: { request: a.timeoutMs },
      followRedirect: false,
      retry: { limit: 0 },
      throwHttpErrors: false,
      decompress: true,
      dnsLookup: guardedLookup(a.allowed) as never,
    });
    stream.once('request', (req: ClientRequest) => {
      request = req;
    });
    stream.on('response', (res: { statusCode: number }) => {
      statusCode = res.statusCode;
    });
    stream.on('data', (chunk: Buffer) => {
      // Four bytes per character at most: enough bytes for the first 1,024 characters.
      if (bytes < RESPONSE_BODY_CHARS * 4) {
        chunks.push(chunk);
        bytes += chunk.length;
      }
      if (bytes >= RESPONSE_BODY_CHARS * 4) finish();
    });
    stream.on('end', () => finish());
    stream.on('error', (err: Error) => finish(err));
  });
}
