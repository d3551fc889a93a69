import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { MikroORM } from '@mikro-orm/core';
import type { PostgreSqlDriver } from '@mikro-orm/postgresql';
import type { Config } from '../config.js';
import { AuthToken } from '../domains/auth/token.entity.js';
import { User } from '../domains/users/user.entity.js';
import { AppError, unauthenticated } from './errors.js';
import type { Membership } from '../domains/stores/store.entity.js';

/** Long-lived parts of the running service that services reach through the context. */
export interface Deps {
  config: Config;
  orm: MikroORM<PostgreSqlDriver>;
  embedded: boolean;
  /** Registered by later subsystems (events, queue, mailer); keyed by name. */
  extras: Map<string, unknown>;
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
  memberships: Map<string, Membership | null>;
}

export const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

/** Last-used times are written at most once a minute per token, not on every request. */
const LAST_USED_RESOLUTION_MS = 60_000;

export async function resolveActor(em: EntityManager, authorization: string | undefined): Promise<{ actor: Actor | null; failure: string | null }> {
  if (!authorization) return { actor: null, failure: null };
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  if (!match) return { actor: null, failure: 'The Authorization header must be "Bearer <token>"' };
  const token = await em.findOne(AuthToken, { tokenHash: sha256(match[1]) });
  const now = new Date();
  if (!token || token.revokedAt) return { actor: null, failure: 'The bearer token is unknown or revoked' };
  if (token.expiresAt && token.expiresAt <= now) return { actor: null, failure: 'The bearer token has expired' };
  const user = await em.findOne(User, { id: token.userId });
  if (!user) return { actor: null, failure: 'The bearer token is unknown or revoked' };
  if (!token.lastUsedAt || now.getTime() - token.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
    await em.nativeUpdate(AuthToken, { id: token.id }, { lastUsedAt: now });
  }
  return {
    actor: {
      userId: user.id,
      tokenId: token.id,
      kind: token.kind === 'oauth' ? 'oauth' : 'session',
      scopes: token.kind === 'oauth' ? (token.scopes ?? []) : null,
      appId: token.appId,
      platformRole: user.platformRole,
    },
    failure: null,
  };
}

export async function createContext(deps: Deps, authorization: string | undefined, ip: string): Promise<Ctx> {
  const em = deps.orm.em.fork() as EntityManager;
  const { actor, failure } = await resolveActor(em, authorization);
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
