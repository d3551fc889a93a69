import type { IncomingHttpHeaders } from 'node:http';
import { loadGot } from '../lib/got.js';
import { parseProviderJson } from '../lib/json.js';
import { CarrierError, type CarrierParcelRequest, type CreateOutcome } from './carrier.js';

const TIMEOUT_MS = 10_000;
/** Seconds to wait after a 429 that names no Retry-After. */
const DEFAULT_RETRY_AFTER = 60;

export interface CarrierCall {
  method: 'GET' | 'POST' | 'DELETE';
  headers?: Record<string, string>;
  /** Sent as JSON. */
  json?: unknown;
  timeoutMs?: number;
}

export interface CarrierAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** The first readable message of a carrier's refusal (Laravel's `message` and `errors` included). */
export function refusalMessage(body: unknown): string | null {
  if (!body || typeof body !== 'object') return null;
  const b = body as Record<string, unknown>;
  const errors = b.errors && typeof b.errors === 'object' ? Object.values(b.errors as Record<string, unknown>).flat() : [];
  const first = [b.message, b.error, ...errors].find((m) => typeof m === 'string' && m.trim());
  return typeof first === 'string' ? first.slice(0, 300) : null;
}

/**
 * One call to a carrier: got, no retries, no redirects followed (a redirected POST would lose
 * its body), 10 s unless given. Refused credentials, rate limits and failures become
 * CarrierErrors; any other answer is returned for the adapter to read.
 */
export async function carrierFetch(name: string, url: URL, call: CarrierCall): Promise<CarrierAnswer> {
  const { default: got, TimeoutError } = await loadGot();
  const timeout = call.timeoutMs ?? TIMEOUT_MS;
  let res;
  try {
    res = await got(url, {
      method: call.method,
      headers: { accept: 'application/json', ...(call.json !== undefined ? { 'content-type': 'application/json' } : {}), ...(call.headers ?? {}) },
      body: call.json !== undefined ? JSON.stringify(call.json) : undefined,
      responseType: 'buffer',
      timeout: { request: timeout },
      retry: { limit: 0 },
      throwHttpErrors: false,
      followRedirect: false,
    });
  } catch (err) {
    // The call may have reached the carrier: a write's outcome is unknown.
    throw new CarrierError('unavailable', err instanceof TimeoutError ? `${name} did not answer within ${timeout} ms` : `${name} could not be reached`);
  }
  const status = res.statusCode;
  if (status === 401 || status === 403) throw new CarrierError('auth', `${name} refused the API credentials (HTTP ${status})`);
  if (status === 429) {
    const given = res.headers['retry-after'];
    const retryAfter = typeof given === 'string' && /^\d+$/.test(given) ? Math.max(1, Number(given)) : DEFAULT_RETRY_AFTER;
    throw new CarrierError('rate_limited', `${name} rate limit reached`, retryAfter);
  }
  if (status >= 500) throw new CarrierError('unavailable', `${name} failed (HTTP ${status})`);
  return { status, headers: res.headers, body: res.body };
}

/** The answer's JSON; a body that is not JSON is a failure of the carrier. */
export function answerJson(name: string, answer: CarrierAnswer): unknown {
  try {
    return parseProviderJson(answer.body.toString('utf8'));
  } catch {
    throw new CarrierError('unavailable', `${name} answered something other than JSON (HTTP ${answer.status})`);
  }
}

/** A JSON call whose non-2xx answers are refusals of the request (with the carrier's message). */
export async function carrierJson<T>(name: string, url: URL, call: CarrierCall): Promise<T> {
  const answer = await carrierFetch(name, url, call);
  if (answer.status >= 300) {
    let message: string | null = null;
    try {
      message = refusalMessage(parseProviderJson(answer.body.toString('utf8')));
    } catch {
      // not JSON: the status says it
    }
    throw new CarrierError('rejected', `${name}: ${message ?? `the request was refused (HTTP ${answer.status})`}`);
  }
  return answerJson(name, answer) as T;
}

/** A label call: a PDF body is the label; a 404 or 422 means there is none for that tracking. */
export async function carrierPdf(name: string, url: URL, call: CarrierCall): Promise<Buffer | null> {
  const answer = await carrierFetch(name, url, { ...call, headers: { accept: 'application/pdf', ...(call.headers ?? {}) } });
  if (answer.status === 404 || answer.status === 422) return null;
  if (answer.status >= 300) throw new CarrierError('rejected', `${name}: the label was refused (HTTP ${answer.status})`);
  if (!answer.body.subarray(0, 5).equals(Buffer.from('%PDF-'))) throw new CarrierError('unavailable', `${name} answered a label that is not a PDF`);
  return answer.body;
}

/** A whole-dinar amount from a carrier's number or decimal text; null when there is none. */
export function dinars(v: unknown): number | null {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(v) ? Number(v) : NaN;
  return Number.isFinite(n) && n >= 0 ? n : null;
}

/** Text from a carrier's string or number; null when empty. */
export const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v.trim() : typeof v === 'number' && Number.isFinite(v) ? String(v) : null);

/** Folds case and accents, for matching a carrier's status and place names. */
export const fold = (s: string): string => s.normalize('NFD').replace(/[\u0300-\u036f]/g, '').trim().toLowerCase();

/** Algeria keeps UTC+1 all year; carriers write local times without an offset. */
export function algiersTime(value: unknown): Date | null {
  if (typeof value !== 'string') return null;
  const m = /^(\d{4}-\d\d-\d\d)[ T](\d\d:\d\d(?::\d\d)?)(\.\d+)?(Z|[+-]\d\d:?\d\d)?$/.exec(value.trim());
  if (!m) return null;
  const d = new Date(`${m[1]}T${m[2].length === 5 ? `${m[2]}:00` : m[2]}${m[3] ?? ''}${m[4] ?? '+01:00'}`);
  const year = d.getUTCFullYear();
  return !Number.isNaN(d.getTime()) && year >= 1970 && year <= 9999 ? d : null;
}

/** Whether a URL's origin matches one of the patterns `scheme://host[:port]`, `*.` standing for one or more DNS labels. */
export function originAllowed(raw: string, patterns: readonly string[]): boolean {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return false;
  }
  if (u.username || u.password || u.search || u.hash || u.pathname !== '/') return false;
  return patterns.some((p) => {
    const m = /^(https?):\/\/(\*\.)?([^/:*]+)(?::(\d+))?$/.exec(p);
    if (!m || u.protocol !== `${m[1]}:`) return false;
    const port = u.port || (u.protocol === 'https:' ? '443' : '80');
    if (port !== (m[4] ?? (m[1] === 'https' ? '443' : '80'))) return false;
    const host = u.hostname.toLowerCase();
    const base = m[3].toLowerCase();
    return m[2] ? host.endsWith(`.${base}`) && /^([a-z0-9-]+\.)+$/.test(host.slice(0, -base.length)) : host === base;
  });
}

/**
 * Creates parcels one call each, for carriers without a batch endpoint. A refused parcel is
 * refused alone. Refused credentials or a rate limit on the first call are the whole call's;
 * later, or when the carrier did not answer, the parcel whose call failed is refused (nothing
 * made) or left unknown (no answer: it may exist), and the parcels not tried are refused so
 * that they can be sent again.
 */
export async function createEach(parcels: CarrierParcelRequest[], create: (p: CarrierParcelRequest) => Promise<CreateOutcome>): Promise<Map<string, CreateOutcome>> {
  const out = new Map<string, CreateOutcome>();
  for (const [i, p] of parcels.entries()) {
    try {
      out.set(p.orderId, await create(p));
    } catch (err) {
      if (!(err instanceof CarrierError) || (i === 0 && (err.kind === 'auth' || err.kind === 'rate_limited'))) throw err;
      if (err.kind === 'rejected') {
        out.set(p.orderId, { ok: false, message: err.message });
        continue;
      }
      if (err.kind !== 'unavailable') out.set(p.orderId, { ok: false, message: err.message });
      for (const rest of parcels.slice(i + 1)) out.set(rest.orderId, { ok: false, message: `not sent: ${err.message}` });
      break;
    }
  }
  return out;
}
