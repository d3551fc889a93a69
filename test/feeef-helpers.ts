import assert from 'node:assert/strict';
import { contractMismatch } from './contract.js';

/**
 * Requests as Feeef's SDK (feeef.js on axios, Node adapter) sends them to `baseURL`:
 * `Authorization: Bearer <apiKey>` on every call (an empty key before sign-in), `Accept` and
 * `X-Requested-With` headers, params serialized with `key[]=` for arrays, JSON bodies, and a
 * body-less POST as `Content-Type: application/x-www-form-urlencoded` with an empty body.
 * Answers are held to the face's OpenAPI document like /v1's are to theirs.
 */

export interface FeeefResponse<T = any> {
  status: number;
  headers: Headers;
  data: T;
  text: string;
}

type Params = Record<string, string | number | boolean | undefined | Array<string | number>>;

export function serializeParams(params: Params = {}): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined || v === null) continue;
    if (Array.isArray(v)) for (const item of v) parts.push(`${encodeURIComponent(`${k}[]`)}=${encodeURIComponent(String(item))}`);
    else parts.push(`${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`);
  }
  return parts.length ? `?${parts.join('&')}` : '';
}

export interface FeeefClient {
  /** The SDK's default Authorization header, as `users.signin` and friends set it. */
  token: string;
  get<T = any>(path: string, params?: Params): Promise<FeeefResponse<T>>;
  delete<T = any>(path: string, params?: Params): Promise<FeeefResponse<T>>;
  post<T = any>(path: string, data?: unknown, params?: Params): Promise<FeeefResponse<T>>;
  put<T = any>(path: string, data?: unknown, params?: Params): Promise<FeeefResponse<T>>;
  /** A form post, as the OAuth repository sends it. */
  form<T = any>(path: string, fields: Record<string, string>): Promise<FeeefResponse<T>>;
}

export function feeefClient(origin: string, token = ''): FeeefClient {
  const baseURL = `${origin}/feeef/v1`;
  const client: FeeefClient = {
    token,
    get: (path, params) => send('GET', path, params),
    delete: (path, params) => send('DELETE', path, params),
    post: (path, data, params) => send('POST', path, params, data),
    put: (path, data, params) => send('PUT', path, params, data),
    form: (path, fields) => send('POST', path, undefined, new URLSearchParams(fields).toString(), 'application/x-www-form-urlencoded'),
  };
  async function send(method: string, path: string, params?: Params, data?: unknown, contentType?: string): Promise<FeeefResponse> {
    const headers: Record<string, string> = {
      Accept: 'application/json, text/plain, */*',
      Authorization: `Bearer ${client.token}`,
      'X-Requested-With': 'XMLHttpRequest',
    };
    let body: string | undefined;
    if (method === 'POST' || method === 'PUT') {
      if (data === undefined || data === null) {
        headers['Content-Type'] = 'application/x-www-form-urlencoded';
        body = '';
      } else if (typeof data === 'string') {
        headers['Content-Type'] = contentType ?? 'application/x-www-form-urlencoded';
        body = data;
      } else {
        headers['Content-Type'] = 'application/json';
        body = JSON.stringify(data);
      }
    }
    const url = `${baseURL}${path}${serializeParams(params)}`;
    const res = await fetch(url, { method, headers, body });
    const text = await res.text();
    const parsed = text && /json/.test(res.headers.get('content-type') ?? '') ? JSON.parse(text) : text;
    const mismatch = await contractMismatch(origin, method, `/feeef/v1${path}${serializeParams(params)}`, res.status, res.headers.get('content-type') ?? '', parsed);
    if (mismatch) throw new Error(`OpenAPI contract broken: ${mismatch}\n${text.slice(0, 2000)}`);
    return { status: res.status, headers: res.headers, data: parsed, text };
  }
  return client;
}

/** Signs a fresh user up through the face, as `ff.users.signup` does, and keeps the token as the SDK does. */
let n = 0;
export async function feeefSignup(origin: string, name = 'User'): Promise<{ ff: FeeefClient; user: any; email: string; token: string }> {
  const ff = feeefClient(origin);
  const email = `f${Date.now()}${n++}${Math.random().toString(16).slice(2, 8)}@example.com`;
  const res = await ff.post('/users/auth/signup', { name, email, password: 'correct horse battery' });
  assert.equal(res.status, 201, res.text);
  ff.token = res.data.token.token;
  return { ff, user: res.data.user, email, token: ff.token };
}

/** A store owned by a fresh user, created through the face. */
export async function feeefStore(origin: string): Promise<{ ff: FeeefClient; user: any; email: string; token: string; storeId: string }> {
  const owner = await feeefSignup(origin, 'Owner');
  const res = await owner.ff.post('/stores', { name: 'Feeef Store' });
  assert.equal(res.status, 201, res.text);
  return { ...owner, storeId: res.data.id };
}

export function assertFeeefProblem(res: FeeefResponse, status: number, code: string): void {
  assert.equal(res.status, status, res.text);
  assert.match(res.headers.get('content-type') ?? '', /application\/problem\+json/);
  assert.equal(res.data.code, code, res.text);
  assert.equal(res.data.status, status);
}
