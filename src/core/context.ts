import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { MikroORM } from '@mikro-orm/core';
import type { PostgreSqlDriver } from '@mikro-orm/postgresql';
import type { Config } from '../config.js';
import { AppError, unauthenticated } from './errors.js';

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

export interface Ctx {
  em: EntityManager;
  deps: Deps;
  actor: Actor | null;
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

export async function resolveActor(em: EntityManager, authorization: string | undefined, sessionTtlMs: number): Promise<{ actor: Actor | null; failure: string | null }> {
  if (!authorization) return { actor: null, failure: null };
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  if (!match) return { actor: null, failure: 'The Authorization header must be "Bearer <token>"' };
  // One round trip for token and user: this runs on every authenticated request.
  const [row] = await em.execute<Array<TokenRow>>(
    `select t.id, t.kind, t.scopes, t.app_id, t.expires_at, t.revoked_at, t.last_used_at, u.id as user_id, u.platform_role
       from auth_tokens t join users u on u.id = t.user_id where t.token_hash = ?`,
    [sha256(match[1])],
  );
  const now = new Date();
  if (!row || row.revoked_at) return { actor: null, failure: 'The bearer token is unknown or revoked' };
  if (row.expires_at && new Date(row.expires_at) <= now) return { actor: null, failure: 'The bearer token has expired' };
  const resolution = Math.min(LAST_USED_RESOLUTION_MS, sessionTtlMs / 10);
  if (!row.last_used_at || now.getTime() - new Date(row.last_used_at).getTime() > resolution) {
    // A session expires SOUK_SESSION_TTL after its last use; app tokens keep their fixed expiry.
    if (row.kind === 'session') {
      await em.execute('update auth_tokens set last_used_at = ?, expires_at = ? where id = ?', [now, new Date(now.getTime() + sessionTtlMs), row.id]);
    } else {
      await em.execute('update auth_tokens set last_used_at = ? where id = ?', [now, row.id]);
    }
  }
  return {
    actor: {
      userId: row.user_id,
      tokenId: row.id,
      kind: row.kind === 'oauth' ? 'oauth' : 'session',
      scopes: row.kind === 'oauth' ? (row.scopes ?? []) : null,
      appId: row.app_id,
      platformRole: row.platform_role,
    },
    failure: null,
  };
}

export async function createContext(deps: Deps, authorization: string | undefined, ip: string): Promise<Ctx> {
  const em = deps.orm.em.fork() as EntityManager;
  const { actor, failure } = await resolveActor(em, authorization, deps.config.sessionTtlMs);
  return { em, deps, actor, authFailure: failure, ip, memberships: new Map() };
}

/** The one gate for "this needs a signed-in caller". */
export function requireActor(ctx: Ctx): Actor {
  if (!ctx.actor) throw unauthenticated(ctx.authFailure ?? undefined);
  return ctx.actor;
}

/** An OAuth token may only do what its scopes allow; sessions carry every scope. */
export function requireScope(ctx: Ctx, scope: string): Actor {
  const actor = requireActor(ctx);
  if (actor.scopes && !actor.scopes.includes(scope)) {
    throw new AppError('FORBIDDEN', `This token lacks the scope ${scope}`);
  }
  return actor;
}

export function hasScope(actor: Actor, scope: string): boolean {
  return actor.scopes === null || actor.scopes.includes(scope);
}
