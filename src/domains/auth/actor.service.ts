import type { EntityManager } from '@mikro-orm/postgresql';
import { sha256, type AuthCache, type Caller } from '../../core/context.js';

export const UNKNOWN_TOKEN = 'The bearer token is unknown or revoked';

/**
 * Last-used times are written at most once a minute per token, not on every request (or ten
 * times per session lifetime, for very short lifetimes); a session's expiry slides forward then.
 */
const LAST_USED_RESOLUTION_MS = 60_000;

interface TokenRow {
  id: string;
  kind: string;
  scopes: string[] | null;
  app_id: string | null;
  expires_at: string | Date | null;
  revoked_at: string | Date | null;
  last_used_at: string | Date | null;
  user_id: string;
  platform_role: string;
}

/** The token of an `Authorization: Bearer <token>` header, or why the header is refused. */
export function bearerToken(authorization: string): { token: string } | { failure: string } {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  return match ? { token: match[1] } : { failure: 'The Authorization header must be "Bearer <token>"' };
}

/** The signed-in user an auth token (session or OAuth app token) stands for. */
export async function resolveActor(em: EntityManager, presented: string, sessionTtlMs: number, cache: AuthCache): Promise<Caller> {
  const hash = sha256(presented);
  const nowMs = Date.now();
  let token = cache.getToken(hash, nowMs);
  if (!token) {
    const epoch = cache.epoch;
    // One round trip for token and user, and none at all while the cache holds them.
    const [row] = await em.execute<Array<TokenRow>>(
      `select t.id, t.kind, t.scopes, t.app_id, t.expires_at, t.revoked_at, t.last_used_at, u.id as user_id, u.platform_role
         from auth_tokens t join users u on u.id = t.user_id where t.token_hash = ?`,
      [hash],
    );
    // Unknown and revoked tokens are not remembered: a revocation must never be outlived.
    if (!row || row.revoked_at) return { actor: null, failure: UNKNOWN_TOKEN };
    token = {
      id: row.id,
      kind: row.kind,
      scopes: row.scopes,
      appId: row.app_id,
      expiresAt: row.expires_at ? new Date(row.expires_at).getTime() : null,
      lastUsedAt: row.last_used_at ? new Date(row.last_used_at).getTime() : null,
      userId: row.user_id,
      platformRole: row.platform_role,
    };
    cache.setToken(hash, token, epoch);
  }
  if (token.expiresAt !== null && token.expiresAt <= nowMs) return { actor: null, failure: 'The bearer token has expired' };
  const resolution = Math.min(LAST_USED_RESOLUTION_MS, sessionTtlMs / 10);
  if (token.lastUsedAt === null || nowMs - token.lastUsedAt > resolution) {
    const now = new Date(nowMs);
    // A session expires SOUK_SESSION_TTL after its last use; app tokens keep their fixed expiry.
    // One statement on its own, before the request has a context: bookkeeping, not a mutation.
    if (token.kind === 'session') {
      await em.execute('update auth_tokens set last_used_at = ?, expires_at = ? where id = ?', [now, new Date(nowMs + sessionTtlMs), token.id]);
      token.expiresAt = nowMs + sessionTtlMs;
    } else {
      await em.execute('update auth_tokens set last_used_at = ? where id = ?', [now, token.id]);
    }
    token.lastUsedAt = nowMs;
  }
  return {
    actor: {
      userId: token.userId,
      tokenId: token.id,
      kind: token.kind === 'oauth' ? 'oauth' : 'session',
      scopes: token.kind === 'oauth' ? (token.scopes ?? []) : null,
      appId: token.appId,
      platformRole: token.platformRole,
      expiresAt: token.expiresAt,
    },
    failure: null,
  };
}
