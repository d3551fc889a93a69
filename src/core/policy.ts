import { Extensions } from 'type-graphql';
import { defaultFieldResolver, type GraphQLField, type GraphQLResolveInfo, type GraphQLSchema } from 'graphql';
import { AppError, notFound } from './errors.js';
import { assertCleanInput } from './input.js';
import { primaryEm, requireActor, type Actor, type Ctx, type StoreMembership } from './context.js';

/**
 * Authorization as data: every root GraphQL field declares one policy next to its resolver
 * (`@Allow(...)`), and one checker (`guardRootFields`) enforces it before the resolver runs.
 * A root field without a policy is refused; a test walks the schema to prove none is missing.
 */

export const ROLES = ['owner', 'admin', 'editor', 'viewer'] as const;
export type Role = (typeof ROLES)[number];
const RANK: Record<Role, number> = { viewer: 1, editor: 2, admin: 3, owner: 4 };
export const roleAtLeast = (role: string, min: Role) => (RANK[role as Role] ?? 0) >= RANK[min];

/**
 * Store permissions: the lowest role that holds it, and the OAuth scopes of which a token
 * needs one. A token acts for the user who granted it, so both must hold (scope ∩ role).
 */
export const PERMISSIONS = {
  /** Read any of the store's data (integrations masked). */
  'store.read': { role: 'viewer', scopes: ['store.read'] },
  /** Store settings and members. */
  'store.manage': { role: 'admin', scopes: ['store.settings'] },
  /** Delete the store or hand over ownership. */
  'store.own': { role: 'owner', scopes: ['store.settings'] },
  /** Leave a store (remove one's own membership): any role, but never with a read-only token. */
  'store.leave': { role: 'viewer', scopes: ['store.settings', 'store.products', 'store.orders', 'store.integrations', 'store.finance'] },
  'products.write': { role: 'editor', scopes: ['store.products'] },
  'orders.write': { role: 'editor', scopes: ['store.orders'] },
  'webhooks.read': { role: 'viewer', scopes: ['store.read', 'store.integrations'] },
  'webhooks.write': { role: 'editor', scopes: ['store.integrations'] },
  'finance.read': { role: 'viewer', scopes: ['store.finance', 'store.read'] },
  'finance.write': { role: 'editor', scopes: ['store.finance'] },
  'refunds.write': { role: 'admin', scopes: ['store.finance'] },
  'inventory.write': { role: 'editor', scopes: ['store.products'] },
  /** Template components, store templates, locales, pages, shipping, AI studios. */
  'catalog.write': { role: 'editor', scopes: ['store.settings'] },
  'promos.write': { role: 'admin', scopes: ['store.settings'] },
  /** Configure, connect and install integrations; their webhook secrets. */
  'integrations.write': { role: 'admin', scopes: ['store.integrations'] },
  /** Carrier send/sendMany, payment select/checkout. */
  'fulfillment.write': { role: 'editor', scopes: ['store.orders'] },
  /** The storefront's blocklist of phones and IP ranges (CONTRACT-3 §17.7). */
  'storefront.blocklist': { role: 'editor', scopes: ['store.orders'] },
} as const satisfies Record<string, { role: Role; scopes: readonly string[] }>;

export type Permission = keyof typeof PERMISSIONS;

export type Policy =
  /** Anyone, with or without a token (a presented token must still be valid). */
  | { kind: 'public' }
  /** Any signed-in caller; `session: true` refuses app tokens (account management). */
  | { kind: 'user'; session?: boolean; scope?: string }
  /** Platform administrators (sessions only). */
  | { kind: 'platform' }
  /**
   * A permission in the store named by the argument `arg` (default `storeId`). With
   * `optional`, a call without that argument falls back to that policy (marketplace reads).
   */
  | { kind: 'store'; permission: Permission; arg?: string; optional?: 'public' | 'user' | 'platform' }
  /**
   * The service decides, for the reason given (e.g. an order's payment token); `anonymous`:
   * some calls need no bearer token at all.
   */
  | { kind: 'delegated'; reason: string; anonymous?: boolean }
  /**
   * A shopper without an account, in the one store the argument `arg` names (its id or slug). A
   * bearer token changes nothing (the answer is the public view); the storefront service finds the
   * store in the statement that reads the answer, and an unknown, deleted or closed store is 404.
   */
  | { kind: 'storefront'; arg: string }
  /** The bearer of one order's token (its payment token): that order only; no token, or another kind, is 401. */
  | { kind: 'orderToken' };

export const policies = {
  public: (): Policy => ({ kind: 'public' }),
  user: (opts: { session?: boolean; scope?: string } = {}): Policy => ({ kind: 'user', ...opts }),
  platformAdmin: (): Policy => ({ kind: 'platform' }),
  store: (permission: Permission, opts: { arg?: string; optional?: 'public' | 'user' | 'platform' } = {}): Policy => ({ kind: 'store', permission, ...opts }),
  delegated: (reason: string, opts: { anonymous?: boolean } = {}): Policy => ({ kind: 'delegated', reason, ...opts }),
  storefront: (arg = 'store'): Policy => ({ kind: 'storefront', arg }),
  orderToken: (): Policy => ({ kind: 'orderToken' }),
};

/** The longest store reference (an id or a slug) a storefront field looks up. */
const STORE_REF_MAX = 64;

/** Declares the policy of a Query, Mutation or Subscription field. */
export const Allow = (policy: Policy) => Extensions({ policy });

export function policyOf(field: GraphQLField<unknown, unknown>): Policy | undefined {
  return (field.extensions as { policy?: Policy } | undefined)?.policy;
}

/** What the checker learned about the caller's place in a store, for services that need the role. */
export async function membershipOf(ctx: Ctx, storeId: string): Promise<StoreMembership | null> {
  const actor = requireActor(ctx);
  const key = `${storeId}:${actor.userId}`;
  let membership = ctx.memberships.get(key);
  if (membership === undefined) {
    const cache = ctx.deps.authCache;
    let role = cache.getRole(storeId, actor.userId);
    if (role === undefined) {
      const epoch = cache.epoch;
      // The primary's, even inside a query read from a replica: a removed member is refused at once,
      // and a stale role never enters the process-wide cache.
      const [row] = await primaryEm(ctx).execute<Array<{ role: string }>>('select role from store_members where store_id = ? and user_id = ?', [storeId, actor.userId]);
      role = row?.role ?? null;
      cache.setRole(storeId, actor.userId, role, epoch);
    }
    membership = role !== null ? { storeId, userId: actor.userId, role } : null;
    ctx.memberships.set(key, membership);
  }
  return membership;
}

export interface StoreAccess {
  actor: Actor;
  membership: StoreMembership;
}

/**
 * The one store decision: a non-member learns nothing (404); a member whose role or token
 * scope falls short is refused (403). Services that find the store from a record (an order's
 * payment routes) call it themselves under a `delegated` policy.
 */
export async function requireStorePermission(ctx: Ctx, storeId: string, permission: Permission): Promise<StoreAccess> {
  const actor = requireActor(ctx);
  if (typeof storeId !== 'string' || !storeId) throw new AppError('VALIDATION_FAILED', 'storeId: is required', [{ path: 'storeId', message: 'is required' }]);
  const membership = await membershipOf(ctx, storeId);
  if (!membership) throw notFound('store');
  const rule = PERMISSIONS[permission];
  if (actor.scopes && !rule.scopes.some((s) => actor.scopes!.includes(s))) {
    throw new AppError('FORBIDDEN', `This token lacks the scope ${rule.scopes.join(' or ')}`);
  }
  if (!roleAtLeast(membership.role, rule.role)) {
    throw new AppError('FORBIDDEN', `This action needs the ${rule.role} role or higher in this store`);
  }
  return { actor, membership };
}

/** True when the caller holds the permission in the store, without throwing (masking decisions). */
export async function holdsPermission(ctx: Ctx, storeId: string, permission: Permission): Promise<boolean> {
  try {
    await requireStorePermission(ctx, storeId, permission);
    return true;
  } catch {
    return false;
  }
}

/** Enforces a declared policy for a root field called with `args`. */
export async function enforcePolicy(ctx: Ctx, policy: Policy | undefined, args: Record<string, unknown>, field: string): Promise<void> {
  // Input rules first (core/input.ts): bad text never reaches a query, the store lookup below included.
  assertCleanInput(args, '', 2);
  // A presented token that is unknown, expired or revoked is refused everywhere, public fields included.
  if (ctx.authFailure) throw new AppError('UNAUTHENTICATED', ctx.authFailure);
  if (!policy) throw new AppError('FORBIDDEN', `The field ${field} declares no authorization policy`);
  switch (policy.kind) {
    case 'public':
    case 'delegated':
      return;
    case 'storefront': {
      const ref = args[policy.arg];
      // Whatever cannot name a store is answered as a store that does not exist.
      if (typeof ref !== 'string' || ref === '' || ref.length > STORE_REF_MAX) throw notFound('store');
      return;
    }
    case 'orderToken':
      if (!ctx.paymentGrant) throw new AppError('UNAUTHENTICATED', "This needs an order's token (the orderToken of its checkout) as the bearer token");
      return;
    case 'user': {
      const actor = requireActor(ctx);
      if (policy.session && actor.kind !== 'session') throw new AppError('FORBIDDEN', 'This action needs a session token, not an app token');
      if (policy.scope && actor.scopes && !actor.scopes.includes(policy.scope)) throw new AppError('FORBIDDEN', `This token lacks the scope ${policy.scope}`);
      return;
    }
    case 'platform': {
      const actor = requireActor(ctx);
      if (actor.kind !== 'session' || actor.platformRole !== 'admin') throw new AppError('FORBIDDEN', 'This action needs a platform administrator');
      return;
    }
    case 'store': {
      const storeId = args[policy.arg ?? 'storeId'];
      if (storeId === undefined || storeId === null) {
        if (policy.optional) return enforcePolicy(ctx, { kind: policy.optional }, args, field);
        const path = policy.arg ?? 'storeId';
        throw new AppError('VALIDATION_FAILED', `${path}: is required`, [{ path, message: 'is required' }]);
      }
      await requireStorePermission(ctx, String(storeId), policy.permission);
      return;
    }
  }
}

/**
 * The checker: wraps the resolver of every Query and Mutation field so its policy runs first.
 * Only root fields are wrapped (not a global middleware): a middleware on every field would make
 * each nested field of a large answer asynchronous, seconds of overhead on reports with thousands
 * of objects. Subscriptions are checked when they subscribe (`guardSubscriptions`).
 */
export function guardRootFields(schema: GraphQLSchema): void {
  for (const type of [schema.getQueryType(), schema.getMutationType()]) {
    if (!type) continue;
    for (const field of Object.values(type.getFields())) {
      const resolve = field.resolve ?? defaultFieldResolver;
      const name = `${type.name}.${field.name}`;
      field.resolve = async (source, args, context: Ctx, info) => {
        await enforcePolicy(context, policyOf(field), args, name);
        return resolve(source, args, context, info);
      };
    }
  }
}

/** For a subscription's `subscribe`: the same check, at subscribe time. */
export async function enforceFieldPolicy(ctx: Ctx, info: GraphQLResolveInfo, args: Record<string, unknown>): Promise<void> {
  const field = info.parentType.getFields()[info.fieldName];
  await enforcePolicy(ctx, policyOf(field), args, `${info.parentType.name}.${info.fieldName}`);
}

/**
 * Middlewares run when a field resolves, which for a subscription is once per event, after it
 * started: every Subscription field's `subscribe` is wrapped here so its policy is enforced
 * before the stream opens, whether or not its resolver remembers to.
 */
export function guardSubscriptions(schema: GraphQLSchema): GraphQLSchema {
  for (const field of Object.values(schema.getSubscriptionType()?.getFields() ?? {})) {
    const subscribe = field.subscribe;
    if (!subscribe) continue;
    field.subscribe = async (source, args, ctx, info) => {
      await enforceFieldPolicy(ctx as Ctx, info, args);
      return subscribe(source, args, ctx, info);
    };
  }
  return schema;
}

/** Every root field with its policy: for the schema test, OpenAPI and the docs table. */
export function rootPolicies(schema: GraphQLSchema): Array<{ type: string; field: string; policy: Policy | undefined }> {
  const out: Array<{ type: string; field: string; policy: Policy | undefined }> = [];
  for (const type of [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()]) {
    if (!type) continue;
    for (const field of Object.values(type.getFields())) out.push({ type: type.name, field: field.name, policy: policyOf(field) });
  }
  return out;
}

/** A short human form: `public`, `user`, `platform admin`, `store: products.write`, ... */
export function describePolicy(p: Policy | undefined): string {
  if (!p) return 'none (refused)';
  switch (p.kind) {
    case 'public':
      return 'public';
    case 'user':
      return p.session ? 'user (session)' : p.scope ? `user (${p.scope})` : 'user';
    case 'platform':
      return 'platform admin';
    case 'store':
      return `store: ${p.permission}${p.optional ? ` (without storeId: ${p.optional === 'platform' ? 'platform admin' : p.optional})` : ''}`;
    case 'delegated':
      return `delegated: ${p.reason}`;
    case 'storefront':
      return `storefront: anyone, in the store named by ${p.arg}`;
    case 'orderToken':
      return "order token: that order's customer";
  }
}
