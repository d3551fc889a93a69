import { callJson, DEFAULT_TIMEOUT_MS } from '../http.js';
import { parseProviderJson } from '../../lib/json.js';
import { AdsError, type AdAccount, type AdsAccountRef, type AdsProvider, type AdsToken, type ConversionEvent } from '../ads.js';

export interface MetaOptions {
  /** The Graph API base, version included: `https://graph.facebook.com/v21.0`. */
  graphUrl: string;
  appId: string;
  appSecret: string;
  timeoutMs?: number;
}

/** Graph API error codes meaning "this token is no longer valid" (190: expired or revoked; 102: session). */
const EXPIRED_CODES = new Set([190, 102]);
/** Throttling: application, user, ad account and API-level limits. */
const THROTTLE_CODES = new Set([4, 17, 32, 613, 80004]);

/** Meta's `account_status` numbers, as words. */
const ACCOUNT_STATUS: Record<number, string> = {
  1: 'active',
  2: 'disabled',
  3: 'unsettled',
  7: 'pending_risk_review',
  8: 'pending_settlement',
  9: 'in_grace_period',
  100: 'pending_closure',
  101: 'closed',
  201: 'any_active',
  202: 'any_closed',
};

interface GraphError {
  error?: { message?: unknown; code?: unknown; type?: unknown };
}

interface TokenAnswer {
  access_token?: unknown;
  expires_in?: unknown;
}

/**
 * The OAuth dialog lives on www.facebook.com under the Graph API's version; any other Graph base
 * (a proxy, a local fake) serves it at `<base>/dialog/oauth`.
 */
export function dialogUrl(graphUrl: string): string {
  const u = new URL(graphUrl);
  if (u.hostname === 'graph.facebook.com') u.hostname = 'www.facebook.com';
  u.pathname = `${u.pathname.replace(/\/+$/, '')}/dialog/oauth`;
  return u.toString();
}

/** Meta's Graph API over HTTP: the user token travels as a bearer header, never in a URL. */
export class MetaAds implements AdsProvider {
  readonly provider = 'meta';
  private readonly base: string;

  constructor(private readonly opts: MetaOptions) {
    this.base = opts.graphUrl.replace(/\/+$/, '');
  }

  authorizationUrl(o: { state: string; redirectUri: string; scopes: readonly string[] }): string {
    const u = new URL(dialogUrl(this.base));
    u.searchParams.set('client_id', this.opts.appId);
    u.searchParams.set('redirect_uri', o.redirectUri);
    u.searchParams.set('state', o.state);
    u.searchParams.set('response_type', 'code');
    u.searchParams.set('scope', o.scopes.join(','));
    return u.toString();
  }

  private async call<T>(method: 'GET' | 'POST' | 'DELETE', path: string, o: { token?: string; query?: Record<string, string>; body?: unknown } = {}): Promise<T> {
    const url = new URL(`${this.base}${path}`);
    for (const [k, v] of Object.entries(o.query ?? {})) url.searchParams.set(k, v);
    const timeoutMs = this.opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const res = await callJson(url, { method, body: o.body, timeoutMs, headers: o.token ? { authorization: `Bearer ${o.token}` } : {} });
    if (!res.ok) throw new AdsError('unavailable', res.reason === 'timeout' ? `Meta did not answer within ${timeoutMs} ms` : 'Meta could not be reached');
    let parsed: unknown;
    try {
      parsed = parseProviderJson(res.text);
    } catch {
      throw new AdsError('unavailable', `Meta answered something other than JSON (HTTP ${res.status})`);
    }
    const status = res.status;
    if (status < 300) return parsed as T;
    const e = (parsed as GraphError).error;
    const code = typeof e?.code === 'number' ? e.code : null;
    const message = `Meta: ${typeof e?.message === 'string' ? e.message.slice(0, 300) : `HTTP ${status}`}${code !== null ? ` (code ${code})` : ''}`;
    if (code !== null && EXPIRED_CODES.has(code)) throw new AdsError('expired', message);
    if (status === 429 || (code !== null && THROTTLE_CODES.has(code))) {
      const retry = Number(res.headers['retry-after']);
      throw new AdsError('rate_limited', message, Number.isFinite(retry) && retry > 0 ? retry : 60);
    }
    if (status >= 500) throw new AdsError('unavailable', message);
    if (status === 401 || status === 403) throw new AdsError('auth', message);
    throw new AdsError('rejected', message);
  }

  private token(a: TokenAnswer): AdsToken {
    if (typeof a.access_token !== 'string' || !a.access_token) throw new AdsError('unavailable', 'Meta answered without an access_token');
    const expiresIn = typeof a.expires_in === 'number' && a.expires_in > 0 ? a.expires_in : null;
    return { accessToken: a.access_token, expiresAt: expiresIn ? new Date(Date.now() + expiresIn * 1000) : null };
  }

  async exchangeCode(code: string, redirectUri: string): Promise<AdsToken> {
    return this.token(
      await this.call<TokenAnswer>('GET', '/oauth/access_token', {
        query: { client_id: this.opts.appId, client_secret: this.opts.appSecret, redirect_uri: redirectUri, code },
      }),
    );
  }

  async longLived(token: string): Promise<AdsToken> {
    return this.token(
      await this.call<TokenAnswer>('GET', '/oauth/access_token', {
        query: { grant_type: 'fb_exchange_token', client_id: this.opts.appId, client_secret: this.opts.appSecret, fb_exchange_token: token },
      }),
    );
  }

  async account(token: string): Promise<AdsAccountRef> {
    const me = await this.call<{ id?: unknown; name?: unknown }>('GET', '/me', { token, query: { fields: 'id,name' } });
    if (typeof me.id !== 'string' && typeof me.id !== 'number') throw new AdsError('unavailable', 'Meta answered /me without an id');
    return { id: String(me.id), name: typeof me.name === 'string' ? me.name : null };
  }

  async grantedScopes(token: string): Promise<string[]> {
    const res = await this.call<{ data?: Array<{ permission?: unknown; status?: unknown }> }>('GET', '/me/permissions', { token });
    return (res.data ?? []).filter((p) => p.status === 'granted' && typeof p.permission === 'string').map((p) => p.permission as string);
  }

  async adAccounts(token: string, cursor: string | null, limit: number): Promise<{ data: AdAccount[]; nextCursor: string | null }> {
    const res = await this.call<{
      data?: Array<{ id?: unknown; name?: unknown; currency?: unknown; account_status?: unknown }>;
      paging?: { cursors?: { after?: unknown }; next?: unknown };
    }>('GET', '/me/adaccounts', { token, query: { fields: 'id,name,currency,account_status', limit: String(limit), ...(cursor ? { after: cursor } : {}) } });
    const data = (res.data ?? [])
      .filter((a) => typeof a.id === 'string')
      .map((a) => ({
        id: a.id as string,
        name: typeof a.name === 'string' ? a.name : null,
        currency: typeof a.currency === 'string' ? a.currency : null,
        status: typeof a.account_status === 'number' ? (ACCOUNT_STATUS[a.account_status] ?? String(a.account_status)) : 'unknown',
      }));
    // Meta sends `paging.next` only when another page exists; the `after` cursor alone is not proof.
    const after = res.paging?.cursors?.after;
    return { data, nextCursor: typeof res.paging?.next === 'string' && typeof after === 'string' ? after : null };
  }

  async revoke(token: string): Promise<void> {
    await this.call('DELETE', '/me/permissions', { token });
  }

  async sendEvents(o: { pixelId: string; token: string; events: ConversionEvent[]; testEventCode: string | null }): Promise<{ received: number }> {
    const res = await this.call<{ events_received?: unknown }>('POST', `/${encodeURIComponent(o.pixelId)}/events`, {
      token: o.token,
      body: { data: o.events, ...(o.testEventCode ? { test_event_code: o.testEventCode } : {}) },
    });
    return { received: typeof res.events_received === 'number' ? res.events_received : 0 };
  }
}
