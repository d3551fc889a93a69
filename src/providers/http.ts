import { loadGot } from '../lib/got.js';
import type { IncomingHttpHeaders } from 'node:http';

export const DEFAULT_TIMEOUT_MS = 10_000;

export type JsonCall =
  | { ok: true; status: number; text: string; headers: IncomingHttpHeaders }
  | { ok: false; reason: 'timeout' | 'unreachable' };

/**
 * One outbound JSON call to a provider: got, a 10 s timeout unless given, no retries, no redirects
 * followed, every status answered as it is (the adapter maps it to its own errors); `ok: false`
 * when no answer came.
 */
export async function callJson(url: URL, o: { method: 'GET' | 'POST' | 'DELETE'; headers?: Record<string, string>; body?: unknown; timeoutMs?: number }): Promise<JsonCall> {
  const { default: got, TimeoutError } = await loadGot();
  try {
    const res = await got(url, {
      method: o.method,
      headers: { accept: 'application/json', ...(o.body !== undefined ? { 'content-type': 'application/json' } : {}), ...(o.headers ?? {}) },
      body: o.body !== undefined ? JSON.stringify(o.body) : undefined,
      timeout: { request: o.timeoutMs ?? DEFAULT_TIMEOUT_MS },
      retry: { limit: 0 },
      throwHttpErrors: false,
      followRedirect: false,
    });
    return { ok: true, status: res.statusCode, text: res.body, headers: res.headers };
  } catch (err) {
    return { ok: false, reason: err instanceof TimeoutError ? 'timeout' : 'unreachable' };
  }
}
