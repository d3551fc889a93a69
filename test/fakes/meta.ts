/**
 * A local Meta Graph API: the OAuth dialog (consent answered at once, or declined), the
 * `/oauth/access_token` code exchange and `fb_exchange_token` long-lived exchange, `/me`,
 * `/me/permissions` (GET, and DELETE to revoke), `/me/adaccounts` with cursor paging, and the
 * Conversions API's `/{pixel_id}/events`, with Meta's error shape (code 190 for a dead token).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';

export interface MetaUser {
  id: string;
  name: string;
  scopes: string[];
  adAccounts: Array<{ id: string; name: string; currency: string; account_status: number }>;
}

export interface ReceivedEvents {
  pixelId: string;
  token: string;
  testEventCode: string | null;
  data: any[];
}

interface Token {
  user: MetaUser;
  long: boolean;
  revoked: boolean;
}

export interface FakeMeta {
  url: string;
  appId: string;
  appSecret: string;
  /** The user who consents in the dialog. */
  user: MetaUser;
  /** The dialog answers "declined" while set. */
  deny: boolean;
  /** The next N Conversions API calls fail with HTTP 500. */
  failNext: number;
  /** The next N calls with a user token are throttled (HTTP 429, code 4, Retry-After). */
  throttleNext: number;
  /** Every token Meta gave out, by value (tests check none leaks). */
  tokens: Map<string, Token>;
  events: ReceivedEvents[];
  /** Requests seen, `METHOD /path`. */
  calls: string[];
  /** Makes every token of the user invalid (error 190), as an expiry or a password change does. */
  expire(userId: string): void;
  /** A system user's token, as a business creates for the Conversions API. */
  systemToken(): string;
  close(): Promise<void>;
}

export function metaUser(accounts = 3, id = '10001'): MetaUser {
  return {
    id,
    name: 'Amina Ads',
    scopes: ['ads_read', 'ads_management', 'business_management'],
    adAccounts: Array.from({ length: accounts }, (_, i) => ({ id: `act_${1000 + i}`, name: `Account ${i + 1}`, currency: i === 0 ? 'DZD' : 'EUR', account_status: 1 })),
  };
}

const json = (res: ServerResponse, status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
const graphError = (res: ServerResponse, status: number, code: number, message: string) =>
  json(res, status, { error: { message, type: 'OAuthException', code, fbtrace_id: randomBytes(6).toString('hex') } });

export async function startFakeMeta(): Promise<FakeMeta> {
  const codes = new Map<string, { user: MetaUser; redirectUri: string }>();
  const fake: FakeMeta = {
    url: '',
    appId: '424242',
    appSecret: 'meta-app-secret-' + randomBytes(8).toString('hex'),
    user: metaUser(),
    deny: false,
    failNext: 0,
    throttleNext: 0,
    tokens: new Map(),
    events: [],
    calls: [],
    expire(userId) {
      for (const t of fake.tokens.values()) if (t.user.id === userId) t.revoked = true;
    },
    systemToken: () => issue(metaUser(0, 'system'), true),
    close: async () => {
      await new Promise<void>((r) => server.close(() => r()));
    },
  };

  const issue = (user: MetaUser, long: boolean) => {
    const token = (long ? 'EAAL' : 'EAAS') + randomBytes(24).toString('hex');
    fake.tokens.set(token, { user, long, revoked: false });
    return token;
  };

  function tokenOf(req: IncomingMessage, url: URL, body: any): string | null {
    const auth = req.headers.authorization;
    const m = typeof auth === 'string' ? /^(?:Bearer|OAuth)\s+(\S+)$/i.exec(auth) : null;
    return m?.[1] ?? url.searchParams.get('access_token') ?? (typeof body?.access_token === 'string' ? body.access_token : null);
  }

  function handle(req: IncomingMessage, res: ServerResponse, raw: string) {
    const url = new URL(req.url ?? '/', 'http://x');
    const path = url.pathname.replace(/^\/v\d+\.\d+/, '');
    fake.calls.push(`${req.method} ${path}`);
    let body: any = null;
    if (raw) {
      try {
        body = JSON.parse(raw);
      } catch {
        return graphError(res, 400, 100, 'Invalid JSON');
      }
    }
    const q = url.searchParams;

    if (req.method === 'GET' && path === '/dialog/oauth') {
      const redirect = q.get('redirect_uri');
      if (q.get('client_id') !== fake.appId || !redirect) return graphError(res, 400, 100, 'Invalid client_id or redirect_uri');
      const back = new URL(redirect);
      if (fake.deny) {
        back.searchParams.set('error', 'access_denied');
        back.searchParams.set('error_code', '200');
        back.searchParams.set('error_reason', 'user_denied');
        back.searchParams.set('error_description', 'Permissions error');
      } else {
        const code = 'AQ' + randomBytes(20).toString('hex');
        codes.set(code, { user: fake.user, redirectUri: redirect });
        back.searchParams.set('code', code);
      }
      back.searchParams.set('state', q.get('state') ?? '');
      return res.writeHead(302, { location: back.toString() }).end();
    }

    if (req.method === 'GET' && path === '/oauth/access_token') {
      if (q.get('client_id') !== fake.appId || q.get('client_secret') !== fake.appSecret) return graphError(res, 400, 1, 'Error validating client secret.');
      if (q.get('grant_type') === 'fb_exchange_token') {
        const short = fake.tokens.get(q.get('fb_exchange_token') ?? '');
        if (!short || short.revoked) return graphError(res, 400, 190, 'Invalid OAuth access token.');
        return json(res, 200, { access_token: issue(short.user, true), token_type: 'bearer', expires_in: 5_184_000 });
      }
      const code = codes.get(q.get('code') ?? '');
      // A code is single-use and bound to the redirect_uri the dialog saw.
      if (!code || code.redirectUri !== q.get('redirect_uri')) return graphError(res, 400, 100, 'Invalid verification code format.');
      codes.delete(q.get('code')!);
      return json(res, 200, { access_token: issue(code.user, false), token_type: 'bearer', expires_in: 5183 });
    }

    const token = tokenOf(req, url, body);
    const t = token ? fake.tokens.get(token) : undefined;
    if (!t || t.revoked) return graphError(res, 400, 190, 'Error validating access token: Session has expired.');
    const user = t.user;
    if (fake.throttleNext > 0) {
      fake.throttleNext--;
      res.setHeader('retry-after', '120');
      return graphError(res, 429, 4, 'Application request limit reached');
    }

    if (req.method === 'GET' && path === '/me') return json(res, 200, { id: user.id, name: user.name });
    if (req.method === 'GET' && path === '/me/permissions') return json(res, 200, { data: user.scopes.map((permission) => ({ permission, status: 'granted' })) });
    if (req.method === 'DELETE' && path === '/me/permissions') {
      for (const other of fake.tokens.values()) if (other.user === user) other.revoked = true;
      return json(res, 200, { success: true });
    }
    if (req.method === 'GET' && path === '/me/adaccounts') {
      const limit = Math.min(Number(q.get('limit') ?? 25), 100);
      const after = q.get('after');
      const start = after ? Number(Buffer.from(after, 'base64url').toString()) + 1 : 0;
      // Meta refuses a cursor it did not issue.
      if (after && !(Number.isInteger(start) && start >= 1)) return graphError(res, 400, 100, 'Invalid parameter');
      const page = user.adAccounts.slice(start, start + limit);
      const fields = (q.get('fields') ?? 'id').split(',');
      const data = page.map((a) => Object.fromEntries(Object.entries(a).filter(([k]) => fields.includes(k))));
      const cursor = (i: number) => Buffer.from(String(i)).toString('base64url');
      const more = start + limit < user.adAccounts.length;
      const paging = page.length
        ? {
            cursors: { before: cursor(start), after: cursor(start + page.length - 1) },
            ...(more ? { next: `https://graph.facebook.com/v21.0/me/adaccounts?after=${cursor(start + page.length - 1)}&limit=${limit}` } : {}),
          }
        : undefined;
      return json(res, 200, { data, ...(paging ? { paging } : {}) });
    }
    const events = /^\/(\d+)\/events$/.exec(path);
    if (req.method === 'POST' && events) {
      if (fake.failNext > 0) {
        fake.failNext--;
        return json(res, 500, { error: { message: 'An unexpected error has occurred. Please retry your request later.', type: 'OAuthException', code: 2, is_transient: true } });
      }
      if (!Array.isArray(body?.data) || !body.data.length) return graphError(res, 400, 100, "The parameter data is required");
      fake.events.push({ pixelId: events[1], token: token!, testEventCode: body.test_event_code ?? null, data: body.data });
      return json(res, 200, { events_received: body.data.length, messages: [], fbtrace_id: randomBytes(6).toString('hex') });
    }
    return graphError(res, 400, 803, `Unknown path components: ${path}`);
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => handle(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v21.0`;
  return fake;
}
