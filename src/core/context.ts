import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { MikroORM } from '@mikro-orm/core';
import type { PostgreSqlDriver } from '@mikro-orm/postgresql';
import type { Config } from '../config.js';
import { unauthenticated } from './errors.js';
import type { AuthCache } from './auth-cache.js';

/**
 * Long-lived parts of the running service that services reach through the context. Each
 * subsystem adds its own typed field by declaration merging (`declare module '…/core/context.js'`)
 * and sets it when service.ts starts it; core itself knows none of them.
 */
export interface Deps {
  config: Config;
  orm: MikroORM<PostgreSqlDriver>;
  embedded: boolean;
}

/** A store membership as the authorization checker reads it. */
export interface StoreMembership {
  storeId: string;
  userId: string;
  role: string;
}

export interface Actor {
  userId: string;
  tokenId: string;
  kind: 'session' | 'oauth';
  /** Null for sessions: everything the user's roles allow. */
  scopes: string[] | null;
  appId: string | null;
  platformRole: string;
}

/** What an order's payment token (CONTRACT-2 §9) lets its bearer do: that order's payment routes. */
export interface PaymentGrant {
  orderId: string;
  storeId: string;
}

/** Order payment tokens carry this prefix, so they are told apart from auth tokens without a second lookup. */
export const PAYMENT_TOKEN_PREFIX = 'opt_';

export interface Ctx {
  em: EntityManager;
  deps: Deps;
  actor: Actor | null;
  /** Set instead of `actor` for an order payment token; every check that needs an actor still refuses it. */
  paymentGrant?: PaymentGrant | null;
  /** Why a presented token was refused, so routes needing auth can say so. */
  authFailure: string | null;
  ip: string;
  /** Memberships already read in this request. */
  memberships: Map<string, StoreMembership | null>;
}

export const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

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

export async function resolveActor(
  em: EntityManager,
  authorization: string | undefined,
  sessionTtlMs: number,
  cache?: AuthCache,
): Promise<{ actor: Actor | null; failure: string | null; paymentGrant?: PaymentGrant }> {
  if (!authorization) return { actor: null, failure: null };
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  if (!match) return { actor: null, failure: 'The Authorization header must be "Bearer <token>"' };
  if (match[1].startsWith(PAYMENT_TOKEN_PREFIX)) {
    const [order] = await em.execute<Array<{ id: string; store_id: string }>>('select id, store_id from orders where payment_token_hash = ?', [sha256(match[1])]);
    if (!order) return { actor: null, failure: 'The bearer token is unknown or revoked' };
    return { actor: null, failure: null, paymentGrant: { orderId: order.id, storeId: order.store_id } };
  }
  const hash = sha256(match[1]);
  const nowMs = Date.now();
  let token = cache?.getToken(hash, nowMs);
  if (!token) {
    const epoch = cache?.epoch ?? 0;
    // One round trip for token and user, and none at all while the cache holds them.
    const [row] = await em.execute<Array<TokenRow>>(
      `select t.id, t.kind, t.scopes, t.app_id, t.expires_at, t.revoked_at, t.last_used_at, u.id as user_id, u.platform_role
         from auth_tokens t join users u on u.id = t.user_id where t.token_hash = ?`,
      [hash],
    );
    // Unknown and revoked tokens are not remembered: a revocation must never be outlived.
    if (!row || row.revoked_at) return { actor: null, failure: 'The bearer token is unknown or revoked' };
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
    cache?.setToken(hash, token, epoch);
  }
  if (token.expiresAt !== null && token.expiresAt <= nowMs) return { actor: null, failure: 'The bearer token has expired' };
  const resolution = Math.min(LAST_USED_RESOLUTION_MS, sessionTtlMs / 10);
  if (token.lastUsedAt === null || nowMs - token.lastUsedAt > resolution) {
    const now = new Date(nowMs);
    // A session expires SOUK_SESSION_TTL after its last use; app tokens keep their fixed expiry.
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
    },
    failure: null,
  };
}

export async function createContext(deps: Deps, authorization: string | undefined, ip: string): Promise<Ctx> {
  const em = deps.orm.em.fork() as EntityManager;
  const { actor, failure, paymentGrant } = await resolveActor(em, authorization, deps.config.sessionTtlMs, deps.authCache);
  return { em, deps, actor, paymentGrant: paymentGrant ?? null, authFailure: failure, ip, memberships: new Map() };
}

/** The one gate for "this needs a signed-in caller". */
export function requireActor(ctx: Ctx): Actor {
  if (!ctx.actor) throw unauthenticated(ctx.paymentGrant ? "An order payment token is valid only on that order's payment routes" : (ctx.authFailure ?? undefined));
  return ctx.actor;
}
