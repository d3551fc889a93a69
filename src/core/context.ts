import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { MikroORM } from '@mikro-orm/core';
import type { PostgreSqlDriver } from '@mikro-orm/postgresql';
import type { Config } from '../config.js';
import { unauthenticated } from './errors.js';

/**
 * Long-lived parts of the running service that services reach through the context, all built in
 * service.ts before any module starts. The platform layers declare their own field by declaration
 * merging (`db` in db/, `queue` and `realtime` in events/, `mailer` in lib/), so core imports none
 * of them; a module keeps its own state off Deps, in a WeakMap keyed by it.
 */
export interface Deps {
  config: Config;
  orm: MikroORM<PostgreSqlDriver>;
  embedded: boolean;
  /** Who calls, from a request's `Authorization` header (built in service.ts). */
  resolveCaller: ResolveCaller;
  /** Who tokens are and which roles users hold, per process (the auth domain's cache). */
  authCache: AuthCache;
}

/** What the platform services (queue, realtime hub, mailer) are built from, before the rest of Deps. */
export type BaseDeps = Pick<Deps, 'config' | 'orm' | 'embedded' | 'db' | 'log'>;

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
  /** When the token stops being valid (ms since the epoch), as last read; null: it does not expire. */
  expiresAt?: number | null;
}

/** What an order's payment token (CONTRACT-2 §9) lets its bearer do: that order's payment routes. */
export interface PaymentGrant {
  orderId: string;
  storeId: string;
}

export interface Ctx {
  em: EntityManager;
  /**
   * Set where `em` reads from a read replica (a `query` operation, db/replicas.ts): the request's
   * own EntityManager on the primary, for what must not go to a replica (see `primaryEm`).
   */
  primary?: EntityManager;
  deps: Deps;
  actor: Actor | null;
  /** Set instead of `actor` for an order payment token; every check that needs an actor still refuses it. */
  paymentGrant?: PaymentGrant | null;
  /** Why a presented token was refused, so routes needing auth can say so. */
  authFailure: string | null;
  ip: string;
  /** Memberships already read in this request. */
  memberships: Map<string, StoreMembership | null>;
  /** Adds a `Set-Cookie` value to the HTTP answer, where the context serves one (the edge sends it). */
  setCookie?: (cookie: string) => void;
  /** A request header (lower-case name), where the context serves an HTTP request. */
  header?: (name: string) => string | undefined;
  /** Sets a header of the HTTP answer, whatever its status, where the context serves one (the edge sends it). */
  setHeader?: (name: string, value: string) => void;
}

export const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

/** Who presented the request's bearer token, as the auth domain (or payments, for an order payment token) resolved it. */
export interface Caller {
  actor: Actor | null;
  /** Why a presented token was refused. */
  failure: string | null;
  paymentGrant?: PaymentGrant | null;
}

/** How a request's `Authorization` header becomes its caller; composed in `src/domains/callers.ts`. */
export type ResolveCaller = (em: EntityManager, authorization: string | undefined) => Promise<Caller>;

/** A token as the auth cache keeps it. */
export interface CachedToken {
  id: string;
  kind: string;
  scopes: string[] | null;
  appId: string | null;
  expiresAt: number | null;
  lastUsedAt: number | null;
  userId: string;
  platformRole: string;
}

/**
 * Per-process memory of token → user and (store, user) → role (the auth domain's
 * `auth-cache.ts`); the policy checker reads roles through it.
 */
export interface AuthCache {
  /** Bumped by every invalidation: a read that began before one must not be stored. */
  readonly epoch: number;
  getToken(hash: string, now?: number): CachedToken | undefined;
  setToken(hash: string, value: CachedToken, readEpoch: number): void;
  /** undefined: not known here; null: known not to be a member. */
  getRole(storeId: string, userId: string, now?: number): string | null | undefined;
  setRole(storeId: string, userId: string, role: string | null, readEpoch: number): void;
  /** A user's tokens or memberships changed; null: anything may have (a lost connection). */
  invalidate(userId: string | null): void;
  /** Calls `listener` after each invalidation (long-lived readers re-check their access); returns how to stop. */
  watch(listener: (userId: string | null) => void): () => void;
}

export async function createContext(deps: Deps, authorization: string | undefined, ip: string): Promise<Ctx> {
  const em = deps.orm.em.fork() as EntityManager;
  const { actor, failure, paymentGrant } = await deps.resolveCaller(em, authorization);
  return { em, deps, actor, paymentGrant: paymentGrant ?? null, authFailure: failure, ip, memberships: new Map() };
}

/** Work outside a request (ingress, pollers, queue workers): no actor, its own EntityManager. */
export function systemContext(deps: Deps, ip = 'system'): Ctx {
  return { em: deps.orm.em.fork() as EntityManager, deps, actor: null, authFailure: null, ip, memberships: new Map() };
}

/**
 * The request's EntityManager on the primary. Inside a `query` operation `ctx.em` may read from a
 * replica; writes, locks and reads that gate access (memberships) or must see a write the request
 * just made use this one instead.
 */
export const primaryEm = (ctx: Ctx): EntityManager => ctx.primary ?? ctx.em;

/** `ctx` with its reads on the primary (itself when they already are). */
export function onPrimary<C extends Ctx>(ctx: C): C {
  return ctx.primary ? { ...ctx, em: ctx.primary, primary: undefined } : ctx;
}

/** The one gate for "this needs a signed-in caller". */
export function requireActor(ctx: Ctx): Actor {
  if (!ctx.actor) throw unauthenticated(ctx.paymentGrant ? "An order payment token is valid only on that order's payment routes" : (ctx.authFailure ?? undefined));
  return ctx.actor;
}
