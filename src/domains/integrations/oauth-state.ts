import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../../config.js';
import { sha256, type Ctx } from '../../core/context.js';
import { invalid } from '../../core/errors.js';
import { PERMISSIONS, roleAtLeast } from '../../core/policy.js';
import { transaction } from '../../core/tx.js';

/**
 * OAuth `state` values of the flows Souk starts with a provider (the ads platform, the platform
 * connector): random, stored hashed, bound to the store and (for a shop) the shop, valid 10
 * minutes and single-use: consuming one is one UPDATE that only the first caller wins.
 */

export const STATE_TTL_MS = 10 * 60_000;

export type StateProvider = 'meta' | 'shopify';

export interface OAuthState {
  provider: StateProvider;
  storeId: string;
  userId: string | null;
  connectorId: string | null;
  shop: string | null;
  returnUrl: string;
}

interface StateRow {
  provider: StateProvider;
  store_id: string;
  user_id: string | null;
  connector_id: string | null;
  shop: string | null;
  return_url: string;
}

const sql = (ctx: Ctx) => ctx.em as EntityManager;

export async function createState(ctx: Ctx, s: OAuthState, now = new Date()): Promise<{ state: string; expiresAt: Date }> {
  const state = randomBytes(24).toString('base64url');
  const expiresAt = new Date(now.getTime() + STATE_TTL_MS);
  await transaction(ctx, (tx) =>
    sql(tx).execute(
      `insert into oauth_states (state_hash, provider, store_id, user_id, connector_id, shop, return_url, expires_at, created_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [sha256(state), s.provider, s.storeId, s.userId, s.connectorId, s.shop, s.returnUrl, expiresAt, now],
    ),
  );
  return { state, expiresAt };
}

const fromRow = (r: StateRow): OAuthState => ({ provider: r.provider, storeId: r.store_id, userId: r.user_id, connectorId: r.connector_id, shop: r.shop, returnUrl: r.return_url });

/** Which flow a live state belongs to, without using it up (null: unknown, used or expired). */
export async function peekState(ctx: Ctx, state: string, now = new Date()): Promise<OAuthState | null> {
  if (state.length > 200) return null;
  const [row] = await sql(ctx).execute<StateRow[]>(
    'select provider, store_id, user_id, connector_id, shop, return_url from oauth_states where state_hash = ? and used_at is null and expires_at > ?',
    [sha256(state), now],
  );
  return row ? fromRow(row) : null;
}

/** Uses the state up; null when it is unknown, already used, expired, or bound to another shop. */
export async function consumeState(ctx: Ctx, state: string, provider: StateProvider, shop: string | null, now = new Date()): Promise<OAuthState | null> {
  if (state.length > 200) return null;
  const [row] = await transaction(ctx, (tx) =>
    sql(tx).execute<StateRow[]>(
      `update oauth_states set used_at = ? where state_hash = ? and provider = ? and used_at is null and expires_at > ? and shop is not distinct from ?
       returning provider, store_id, user_id, connector_id, shop, return_url`,
      [now, sha256(state), provider, now, shop],
    ),
  );
  return row ? fromRow(row) : null;
}

/**
 * Whether the member who started the flow may still manage the store's integrations: read from
 * the database, not a cache, so a member removed or demoted meanwhile cannot finish it.
 */
export async function starterMayFinish(ctx: Ctx, s: OAuthState): Promise<boolean> {
  if (!s.userId) return false;
  const [row] = await sql(ctx).execute<Array<{ role: string }>>('select role from store_members where store_id = ? and user_id = ?', [s.storeId, s.userId]);
  return !!row && roleAtLeast(row.role, PERMISSIONS['integrations.write'].role);
}

/** States past their expiry are useless; kept a day for the record, then dropped. */
export async function pruneStates(ctx: Ctx, now = new Date()): Promise<number> {
  const rows = await sql(ctx).execute<Array<{ state_hash: string }>>('delete from oauth_states where expires_at < ? returning state_hash', [new Date(now.getTime() - 86_400_000)]);
  return rows.length;
}

/** The origins a flow may send the merchant back to: SOUK_RETURN_URL_ORIGINS, else the public URL's. */
export const returnOrigins = (config: Pick<Config, 'publicUrl' | 'returnUrlOrigins'>): string[] => config.returnUrlOrigins ?? [new URL(config.publicUrl).origin];

/**
 * Where the flow ends: an absolute http(s) URL on one of the configured origins, or the
 * dashboard. Any other site is refused, so a flow cannot hand the merchant (and the `status`
 * it learned) to a page its starter picked.
 */
export function returnUrlOf(config: Pick<Config, 'publicUrl' | 'returnUrlOrigins'>, given: string | null | undefined, path = 'returnUrl'): string {
  if (given === undefined || given === null) return `${config.publicUrl.replace(/\/+$/, '')}/dashboard`;
  let u: URL;
  try {
    u = new URL(given);
  } catch {
    throw invalid(path, 'must be an absolute http(s) URL');
  }
  if ((u.protocol !== 'http:' && u.protocol !== 'https:') || given.length > 2000) throw invalid(path, 'must be an absolute http(s) URL of at most 2000 characters');
  if (u.username || u.password || !returnOrigins(config).includes(u.origin)) throw invalid(path, `must be on an allowed origin (${returnOrigins(config).join(', ')})`);
  return u.toString();
}

/*
 * The user agent that started a flow (RFC 6749 §10.12): the start answer sets a cookie named
 * after the state whose value is an HMAC of the state under the server key; the callback goes
 * on only when the browser that lands there presents it. A link someone else started (their
 * state, their cookie) lands in a browser without it.
 */
const BINDING_PREFIX = 'souk_oauth_';
const bindingName = (state: string) => `${BINDING_PREFIX}${sha256(state).slice(0, 16)}`;
const bindingValue = (key: Buffer, state: string) => createHmac('sha256', key).update(`oauth-user-agent:${state}`).digest('base64url');

function bindingCookie(config: Config, state: string, value: string, maxAgeSeconds: number): string {
  const callback = new URL(callbackUrl(config.publicUrl));
  const secure = callback.protocol === 'https:' ? '; Secure' : '';
  return `${bindingName(state)}=${value}; Path=${callback.pathname}; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${secure}`;
}

/** Binds a new state to the caller's browser: the answer that starts the flow carries the cookie. */
export function bindToUserAgent(ctx: Ctx, state: string): void {
  ctx.setCookie?.(bindingCookie(ctx.deps.config, state, bindingValue(ctx.deps.config.secretKey, state), STATE_TTL_MS / 1000));
}

/** Whether the callback's `Cookie` header holds the state's binding (compared in constant time). */
export function fromStartingUserAgent(config: Config, cookieHeader: string | string[] | undefined, state: string): boolean {
  const header = Array.isArray(cookieHeader) ? cookieHeader.join('; ') : (cookieHeader ?? '');
  const name = bindingName(state);
  const expected = Buffer.from(bindingValue(config.secretKey, state));
  return header.split(';').some((pair) => {
    const i = pair.indexOf('=');
    if (i < 0 || pair.slice(0, i).trim() !== name) return false;
    const given = Buffer.from(pair.slice(i + 1).trim());
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

/** The cookie that removes a used state's binding. */
export const unbindCookie = (config: Config, state: string) => bindingCookie(config, state, '', 0);

/** The return URL with `status` (and nothing else of ours) added to its query. */
export function withStatus(returnUrl: string, status: string): string {
  const u = new URL(returnUrl);
  u.searchParams.set('status', status);
  return u.toString();
}

/** The one callback URL Souk gives every provider; the state says which flow it ends. */
export const callbackUrl = (publicUrl: string) => `${publicUrl.replace(/\/+$/, '')}/v1/integrations/connectors/platform/callback`;
