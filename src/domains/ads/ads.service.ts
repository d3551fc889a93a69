import { createHmac, timingSafeEqual } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { primaryEm, requireActor, type Ctx, type Deps } from '../../core/context.js';
import { AppError, conflict, invalid, notConfigured } from '../../core/errors.js';
import { isCurrency } from '../../core/money.js';
import { decryptSecret, encryptSecret } from '../../core/secrets.js';
import { lockStore, transaction } from '../../core/tx.js';
import { pageLimit } from '../../lib/pagination.js';
import { AdsError, type AdAccount, type AdsProvider } from '../../providers/ads.js';
import { MetaAds } from '../../providers/meta/meta.js';
import { StoreIntegration } from '../integrations/integration.entity.js';
import { KINDS, MAX_INTEGRATIONS, validateConfig } from '../integrations/integration.kinds.js';
import { markIntegration } from '../integrations/integration.access.js';
import { integrationView } from '../integrations/integration.service.js';
import { integrationChanged } from '../integrations/integration.hooks.js';
import { bindToUserAgent, callbackUrl, createState, returnUrlOf, withStatus, type OAuthState } from '../integrations/oauth-state.js';
import type { AdAccountPage, AdsConnectionType, AdsOAuthStartInput, AdsOAuthStartType, AdsSettingsInput } from './ads.types.js';

/** The registry key of the ads platform (CONTRACT-2 §13): its config holds the settings. */
export const ADS_KEY = 'ads-platform';
/** What Souk asks Meta for: read ad accounts and insights, manage campaigns, see the business. */
export const META_SCOPES = ['ads_read', 'ads_management', 'business_management'] as const;
export const TRIGGERS = ['created', 'confirmed', 'paid', 'delivered'] as const;
export type Trigger = (typeof TRIGGERS)[number];
export const DEFAULT_EVENT_MAP: Readonly<Record<string, string>> = { created: 'Lead', confirmed: 'Purchase' };
/** Secret name of the Conversions API's own token in the integration. */
const CAPI_TOKEN = 'conversionsApiAccessToken';
/** Pages of the user's ad accounts searched when checking a chosen one. */
const ACCOUNT_SEARCH_PAGES = 20;

export interface ConnectionRow {
  store_id: string;
  provider: string;
  status: 'connected' | 'expired';
  account: { id: string; name: string | null } | null;
  granted_scopes: string[];
  token_enc: string;
  token_expires_at: Date | string | null;
}

const sql = (ctx: Ctx) => ctx.em as EntityManager;

/** The platform's Meta app from configuration; unset → 503 NOT_CONFIGURED. */
export function metaProvider(deps: Deps): AdsProvider {
  const c = deps.config;
  if (!c.metaAppId || !c.metaAppSecret) throw notConfigured('The ads platform (Meta app)', 'SOUK_META_APP_ID and SOUK_META_APP_SECRET');
  return new MetaAds({ graphUrl: c.metaGraphUrl, appId: c.metaAppId, appSecret: c.metaAppSecret });
}

export async function connectionRow(ctx: Ctx, storeId: string): Promise<ConnectionRow | null> {
  const [row] = await sql(ctx).execute<ConnectionRow[]>(
    'select store_id, provider, status, account, granted_scopes, token_enc, token_expires_at from ads_connections where store_id = ?',
    [storeId],
  );
  return row ?? null;
}

const expiresAt = (row: ConnectionRow) => (row.token_expires_at ? new Date(row.token_expires_at) : null);

/** A connection whose token Meta refused, or whose expiry passed, is `expired`. */
export function connectionStatus(row: ConnectionRow | null, now = new Date()): 'disconnected' | 'connected' | 'expired' {
  if (!row) return 'disconnected';
  const exp = expiresAt(row);
  return row.status === 'expired' || (exp && exp <= now) ? 'expired' : 'connected';
}

/** The connection's token, decrypted, when it is usable. */
export function connectionToken(deps: Deps, row: ConnectionRow | null): string | null {
  return row && connectionStatus(row) === 'connected' ? decryptSecret(deps.config.secretKey, row.token_enc) : null;
}

/** Meta said the token is dead (error 190): the connection is `expired` until the merchant reconnects. */
export async function markExpired(ctx: Ctx, storeId: string, message: string): Promise<void> {
  // Also met by queries (the ad accounts), whose reads may come from a replica: the write is the primary's.
  await (primaryEm(ctx) as EntityManager).execute(`update ads_connections set status = 'expired', updated_at = ? where store_id = ?`, [new Date(), storeId]);
  await markIntegration(ctx, storeId, ADS_KEY, { ok: false, error: message });
}

export interface AdsSettings {
  adAccountId: string | null;
  pixelId: string | null;
  currency: string | null;
  conversionsApi: { enabled: boolean; eventMap: Record<string, string>; testEventCode: string | null };
}

const str = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);

/** The settings a config holds, defaults filled in. */
export function settingsOf(config: Record<string, unknown> | null | undefined): AdsSettings {
  const c = config ?? {};
  const capi = (c.conversionsApi && typeof c.conversionsApi === 'object' ? c.conversionsApi : {}) as Record<string, unknown>;
  const map = capi.eventMap && typeof capi.eventMap === 'object' ? (capi.eventMap as Record<string, string>) : DEFAULT_EVENT_MAP;
  return {
    adAccountId: str(c.adAccountId),
    pixelId: str(c.pixelId),
    currency: str(c.currency),
    conversionsApi: { enabled: capi.enabled === true, eventMap: { ...map }, testEventCode: str(capi.testEventCode) },
  };
}

async function conversionStats(ctx: Ctx, storeId: string): Promise<AdsConnectionType['conversions']> {
  const since = new Date(Date.now() - 86_400_000);
  const [row] = await sql(ctx).execute<Array<{ sent: number; failed: number; last_error: string | null }>>(
    `select count(*) filter (where status = 'sent' and sent_at > ?)::int as sent,
            count(*) filter (where status in ('retrying', 'failed') and last_attempt_at > ?)::int as failed,
            (array_agg(last_error order by last_attempt_at desc) filter (where status in ('retrying', 'failed') and last_attempt_at > ?))[1] as last_error
       from ads_conversions where store_id = ? and last_attempt_at > ?`,
    [since, since, since, storeId, since],
  );
  return { sent24h: row?.sent ?? 0, failed24h: row?.failed ?? 0, lastError: row?.last_error ?? null };
}

export async function getAdsConnection(ctx: Ctx, storeId: string): Promise<AdsConnectionType> {
  const [row, integration, conversions] = [await connectionRow(ctx, storeId), await ctx.em.findOne(StoreIntegration, { storeId, key: ADS_KEY }), await conversionStats(ctx, storeId)];
  const status = connectionStatus(row);
  const settings = settingsOf(integration?.config);
  const secret = integration ? integrationView(integration).secrets[CAPI_TOKEN] : undefined;
  const exp = row ? expiresAt(row) : null;
  return {
    status,
    account: row?.account ?? null,
    grantedScopes: row?.granted_scopes ?? [],
    tokenExpiresAt: exp ? exp.toISOString() : null,
    settings: { ...settings, conversionsApi: { ...settings.conversionsApi, accessToken: secret ?? null } },
    conversions,
  };
}

/**
 * A failed Meta call as the API answers it: a dead token makes the connection `expired` and
 * answers 502; other refusals of our credentials mark the integration `error` (502); throttling
 * is 429 with Retry-After; anything else from Meta is 502.
 */
export async function adsFailure(ctx: Ctx, storeId: string, err: unknown): Promise<unknown> {
  if (!(err instanceof AdsError)) return err;
  switch (err.kind) {
    case 'expired':
      await markExpired(ctx, storeId, err.message);
      return new AppError('BAD_GATEWAY', 'Meta no longer accepts this store\'s token (expired or revoked); connect again');
    case 'auth':
      await markIntegration(ctx, storeId, ADS_KEY, { ok: false, error: err.message });
      return new AppError('BAD_GATEWAY', err.message);
    case 'rate_limited':
      return new AppError('RATE_LIMITED', `Meta's rate limit is reached; retry in ${err.retryAfter ?? 60} s`, undefined, { 'retry-after': String(err.retryAfter ?? 60) });
    default:
      return new AppError('BAD_GATEWAY', err.message);
  }
}

/** The usable token and the account it belongs to; 409 when not connected or expired. */
async function connected(ctx: Ctx, storeId: string): Promise<{ token: string; accountId: string }> {
  const row = await connectionRow(ctx, storeId);
  const status = connectionStatus(row);
  if (status !== 'connected') throw conflict(status === 'expired' ? 'The ads platform token has expired; connect again (POST /oauth/start)' : 'The ads platform is not connected (POST /oauth/start)');
  return { token: connectionToken(ctx.deps, row)!, accountId: row!.account?.id ?? '' };
}

/*
 * Page cursors handed out are Meta's own, sealed: signed under the server key and bound to the
 * store and the connected account, so a forged, altered or foreign cursor is the client's 400 and
 * never reaches Meta (whose refusal would be a 502).
 */
const cursorMac = (deps: Deps, storeId: string, accountId: string, payload: string) =>
  createHmac('sha256', deps.config.secretKey).update(`ad-accounts:${storeId}:${accountId}:${payload}`).digest('base64url').slice(0, 32);

function sealCursor(deps: Deps, storeId: string, accountId: string, after: string): string {
  const payload = Buffer.from(after).toString('base64url');
  return `${payload}.${cursorMac(deps, storeId, accountId, payload)}`;
}

function openCursor(deps: Deps, storeId: string, accountId: string, cursor: string): string {
  const [payload, mac, extra] = cursor.split('.');
  const expected = payload && mac && extra === undefined && cursor.length <= 1000 ? Buffer.from(cursorMac(deps, storeId, accountId, payload)) : null;
  if (!expected || !/^[A-Za-z0-9_-]+$/.test(payload) || mac.length !== expected.length || !timingSafeEqual(Buffer.from(mac), expected)) {
    throw invalid('cursor', 'is not a cursor from a previous page');
  }
  return Buffer.from(payload, 'base64url').toString();
}

export async function listAdAccounts(ctx: Ctx, storeId: string, cursor: string | null | undefined, limit?: number | null): Promise<AdAccountPage> {
  const provider = metaProvider(ctx.deps);
  const size = pageLimit(limit);
  const { token, accountId } = await connected(ctx, storeId);
  const after = cursor === undefined || cursor === null ? null : openCursor(ctx.deps, storeId, accountId, cursor);
  try {
    const res = await provider.adAccounts(token, after, size);
    return { data: res.data, nextCursor: res.nextCursor === null ? null : sealCursor(ctx.deps, storeId, accountId, res.nextCursor) };
  } catch (err) {
    throw await adsFailure(ctx, storeId, err);
  }
}

/** `act_123` or `123`, as Meta's node id. */
function adAccountNode(value: string): string {
  const v = value.trim();
  if (!/^(act_)?\d{1,30}$/.test(v)) throw invalid('adAccountId', 'must be an ad account id (act_<digits>)');
  return v.startsWith('act_') ? v : `act_${v}`;
}

/** One of the connected user's ad accounts, or 400: another user's account cannot be chosen. */
async function ownAdAccount(ctx: Ctx, storeId: string, id: string): Promise<AdAccount> {
  const provider = metaProvider(ctx.deps);
  const { token } = await connected(ctx, storeId);
  let cursor: string | null = null;
  try {
    for (let page = 0; page < ACCOUNT_SEARCH_PAGES; page++) {
      const res: { data: AdAccount[]; nextCursor: string | null } = await provider.adAccounts(token, cursor, 100);
      const found = res.data.find((a) => a.id === id);
      if (found) return found;
      if (!res.nextCursor) break;
      cursor = res.nextCursor;
    }
  } catch (err) {
    throw await adsFailure(ctx, storeId, err);
  }
  throw invalid('adAccountId', "is not one of the connected user's ad accounts");
}

function eventMapPatch(current: Record<string, string>, patch: Record<string, unknown> | null): Record<string, string> {
  if (patch === null) return { ...DEFAULT_EVENT_MAP };
  const next = { ...current };
  for (const [trigger, name] of Object.entries(patch)) {
    const path = `conversionsApi.eventMap.${trigger}`;
    if (!(TRIGGERS as readonly string[]).includes(trigger)) throw invalid(path, `is not a trigger (${TRIGGERS.join(', ')})`);
    if (name === null) {
      delete next[trigger];
      continue;
    }
    if (typeof name !== 'string' || !/^[A-Za-z][A-Za-z0-9_ ]{0,99}$/.test(name)) throw invalid(path, 'must be an event name such as Purchase (letters, digits, _ and spaces, at most 100)');
    next[trigger] = name;
  }
  return next;
}

/**
 * PATCH /ads/settings: a partial update (omitted fields stay, null clears). A chosen ad account
 * must be one of the connected user's (its currency becomes the default); enabling the
 * Conversions API needs a pixel. The settings live in the store's `ads-platform` integration.
 */
export async function updateAdsSettings(ctx: Ctx, storeId: string, input: AdsSettingsInput): Promise<AdsConnectionType> {
  const capi = input.conversionsApi ?? undefined;
  if (input.currency !== undefined && input.currency !== null && !isCurrency(input.currency)) throw invalid('currency', 'must be an ISO 4217 currency code');
  if (input.pixelId !== undefined && input.pixelId !== null && !/^\d{1,30}$/.test(input.pixelId)) throw invalid('pixelId', 'must be a pixel (dataset) id: digits');
  if (capi?.accessToken !== undefined && capi.accessToken !== null && !capi.accessToken.trim()) throw invalid('conversionsApi.accessToken', 'must be a non-empty string, or null to remove it');
  if (capi?.eventMap !== undefined && capi.eventMap !== null && (typeof capi.eventMap !== 'object' || Array.isArray(capi.eventMap))) throw invalid('conversionsApi.eventMap', 'must be an object');
  const account = input.adAccountId ? await ownAdAccount(ctx, storeId, adAccountNode(input.adAccountId)) : null;
  await transaction(ctx, async (tx) => {
    await lockStore(tx, storeId);
    const now = new Date();
    let row = await tx.em.findOne(StoreIntegration, { storeId, key: ADS_KEY }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!row) {
      if ((await tx.em.count(StoreIntegration, { storeId })) >= MAX_INTEGRATIONS) throw new AppError('LIMIT_EXCEEDED', `A store has at most ${MAX_INTEGRATIONS} integrations`);
      row = tx.em.create(StoreIntegration, { storeId, key: ADS_KEY, kind: 'ads-platform', provider: 'meta', createdAt: now });
      if (await connectionRow(tx, storeId)) row.status = 'active';
    }
    const s = settingsOf(row.config);
    if (input.adAccountId !== undefined) s.adAccountId = account?.id ?? null;
    if (input.currency !== undefined) s.currency = input.currency;
    else if (account?.currency && !s.currency) s.currency = account.currency;
    if (input.pixelId !== undefined) s.pixelId = input.pixelId;
    if (capi) {
      if (capi.enabled !== undefined && capi.enabled !== null) s.conversionsApi.enabled = capi.enabled;
      if (capi.eventMap !== undefined) s.conversionsApi.eventMap = eventMapPatch(s.conversionsApi.eventMap, capi.eventMap as Record<string, unknown> | null);
      if (capi.testEventCode !== undefined) s.conversionsApi.testEventCode = capi.testEventCode || null;
      if (capi.accessToken !== undefined) {
        const secrets = { ...row.secretsEnc };
        if (capi.accessToken === null) delete secrets[CAPI_TOKEN];
        else secrets[CAPI_TOKEN] = { enc: encryptSecret(tx.deps.config.secretKey, capi.accessToken), last4: capi.accessToken.length >= 8 ? capi.accessToken.slice(-4) : '', updatedAt: now.toISOString() };
        row.secretsEnc = secrets;
      }
    }
    if (s.conversionsApi.enabled && !s.pixelId) throw invalid('conversionsApi.enabled', 'needs a pixelId');
    // Other keys a client stored through the registry are kept beside the settings.
    row.config = validateConfig(KINDS[ADS_KEY], { ...row.config, ...s });
    row.updatedAt = now;
    await tx.em.flush();
  });
  // The settings live in the store's integration: the ads module re-reads them as for any registry write.
  await integrationChanged(ctx, storeId, ADS_KEY);
  return getAdsConnection(ctx, storeId);
}

export async function startAdsOAuth(ctx: Ctx, storeId: string, input: AdsOAuthStartInput): Promise<AdsOAuthStartType> {
  const provider = metaProvider(ctx.deps);
  const actor = requireActor(ctx);
  const returnUrl = returnUrlOf(ctx.deps.config, input.returnUrl);
  const { state, expiresAt: exp } = await createState(ctx, { provider: 'meta', storeId, userId: actor.userId, connectorId: null, shop: null, returnUrl });
  bindToUserAgent(ctx, state);
  return {
    authorizationUrl: provider.authorizationUrl({ state, redirectUri: callbackUrl(ctx.deps.config.publicUrl), scopes: META_SCOPES }),
    state,
    expiresAt: exp.toISOString(),
  };
}

/** Revokes the token at Meta where it can (best effort), then forgets it. */
export async function disconnectAds(ctx: Ctx, storeId: string): Promise<void> {
  const row = await connectionRow(ctx, storeId);
  if (row) {
    try {
      await metaProvider(ctx.deps).revoke(decryptSecret(ctx.deps.config.secretKey, row.token_enc));
    } catch (err) {
      // A dead token has nothing left to revoke; Meta down must not keep the merchant connected.
      ctx.deps.log.warn({ storeId, err: (err as Error).message }, 'ads token not revoked at Meta');
    }
  }
  await transaction(ctx, async (tx) => {
    await sql(tx).execute('delete from ads_connections where store_id = ?', [storeId]);
    await tx.em.nativeUpdate(StoreIntegration, { storeId, key: ADS_KEY }, { status: 'disconnected', updatedAt: new Date() });
  });
}

/**
 * The end of Meta's OAuth flow, reached through the connector callback with a verified state:
 * the code is traded for a token, that one for a long-lived token, which is stored encrypted
 * with the account and the scopes Meta granted. Answers where to send the merchant.
 */
export async function completeAdsOAuth(ctx: Ctx, state: OAuthState, code: string): Promise<string> {
  const storeId = state.storeId;
  try {
    const provider = metaProvider(ctx.deps);
    const short = await provider.exchangeCode(code, callbackUrl(ctx.deps.config.publicUrl));
    const token = await provider.longLived(short.accessToken);
    const account = await provider.account(token.accessToken);
    const scopes = await provider.grantedScopes(token.accessToken);
    const now = new Date();
    await transaction(ctx, async (tx) => {
      await lockStore(tx, storeId);
      await sql(tx).execute(
        `insert into ads_connections (store_id, provider, status, account, granted_scopes, token_enc, token_expires_at, connected_by, connected_at, updated_at)
         values (?, 'meta', 'connected', ?::jsonb, ?::text[], ?, ?, ?, ?, ?)
         on conflict (store_id) do update set status = 'connected', account = excluded.account, granted_scopes = excluded.granted_scopes,
           token_enc = excluded.token_enc, token_expires_at = excluded.token_expires_at, connected_by = excluded.connected_by,
           connected_at = excluded.connected_at, updated_at = excluded.updated_at`,
        [storeId, JSON.stringify(account), `{${scopes.map((s) => JSON.stringify(s)).join(',')}}`, encryptSecret(ctx.deps.config.secretKey, token.accessToken), token.expiresAt, state.userId, now, now],
      );
      const row = await tx.em.findOne(StoreIntegration, { storeId, key: ADS_KEY });
      if (row) {
        Object.assign(row, { status: 'active', lastError: null, lastSuccessAt: now, updatedAt: now });
      } else if ((await tx.em.count(StoreIntegration, { storeId })) < MAX_INTEGRATIONS) {
        tx.em.create(StoreIntegration, { storeId, key: ADS_KEY, kind: 'ads-platform', provider: 'meta', status: 'active', lastSuccessAt: now, createdAt: now, updatedAt: now });
      }
      await tx.em.flush();
    });
    return withStatus(state.returnUrl, 'connected');
  } catch (err) {
    if (!(err instanceof AdsError) && !(err instanceof AppError)) throw err;
    ctx.deps.log.warn({ storeId, err: err.message }, 'ads connection failed');
    await markIntegration(ctx, storeId, ADS_KEY, { ok: false, error: err.message });
    return withStatus(state.returnUrl, 'error');
  }
}
