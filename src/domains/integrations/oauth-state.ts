import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sha256, type Ctx } from '../../core/context.js';
import { invalid } from '../../core/errors.js';
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

/** Which flow a state belongs to, without using it up (null: unknown). */
export async function peekState(ctx: Ctx, state: string): Promise<OAuthState | null> {
  if (state.length > 200) return null;
  const [row] = await sql(ctx).execute<StateRow[]>('select provider, store_id, user_id, connector_id, shop, return_url from oauth_states where state_hash = ?', [sha256(state)]);
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

/** States past their expiry are useless; kept a day for the record, then dropped. */
export async function pruneStates(ctx: Ctx, now = new Date()): Promise<number> {
  const rows = await sql(ctx).execute<Array<{ state_hash: string }>>('delete from oauth_states where expires_at < ? returning state_hash', [new Date(now.getTime() - 86_400_000)]);
  return rows.length;
}

/** Where the flow ends: an absolute http(s) URL the caller chose, or the dashboard. */
export function returnUrlOf(publicUrl: string, given: string | null | undefined, path = 'returnUrl'): string {
  if (given === undefined || given === null) return `${publicUrl.replace(/\/+$/, '')}/dashboard`;
  let u: URL;
  try {
    u = new URL(given);
  } catch {
    throw invalid(path, 'must be an absolute http(s) URL');
  }
  if ((u.protocol !== 'http:' && u.protocol !== 'https:') || given.length > 2000) throw invalid(path, 'must be an absolute http(s) URL of at most 2000 characters');
  return u.toString();
}

/** The return URL with `status` (and nothing else of ours) added to its query. */
export function withStatus(returnUrl: string, status: string): string {
  const u = new URL(returnUrl);
  u.searchParams.set('status', status);
  return u.toString();
}

/** The one callback URL Souk gives every provider; the state says which flow it ends. */
export const callbackUrl = (publicUrl: string) => `${publicUrl.replace(/\/+$/, '')}/v1/integrations/connectors/platform/callback`;
