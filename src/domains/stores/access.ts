import type { StoreMembership } from '../../core/context.js';
import { membershipOf } from '../../core/policy.js';
import { AppError, notFound } from '../../core/errors.js';
import { hasScope, requireActor, type Actor, type Ctx } from '../../core/context.js';

export const ROLES = ['owner', 'admin', 'editor', 'viewer'] as const;
export type Role = (typeof ROLES)[number];
const RANK: Record<Role, number> = { viewer: 1, editor: 2, admin: 3, owner: 4 };

export const roleAtLeast = (role: string, min: Role) => (RANK[role as Role] ?? 0) >= RANK[min];

export interface StoreAccessRule {
  /** Lowest store role allowed; any member when omitted. */
  role?: Role;
  /** Scope an OAuth token must carry, or any one of several (sessions carry every scope). */
  scope: string | readonly string[];
  /** An OAuth token with the scope may act whatever the member's role (webhook writes). */
  scopeSuffices?: boolean;
}

export interface StoreAccess {
  actor: Actor;
  membership: StoreMembership;
}

/**
 * The one authorization decision for store data: a non-member learns nothing (404),
 * a member whose role or token scope falls short is refused (403).
 */
export async function requireStoreAccess(ctx: Ctx, storeId: string, rule: StoreAccessRule): Promise<StoreAccess> {
  const actor = requireActor(ctx);
  const membership = await membershipOf(ctx, storeId);
  if (!membership) throw notFound('store');
  const scoped = actor.scopes !== null;
  const scopes = typeof rule.scope === 'string' ? [rule.scope] : rule.scope;
  if (scoped && !scopes.some((scope) => hasScope(actor, scope))) {
    throw new AppError('FORBIDDEN', `This token lacks the scope ${scopes.join(' or ')}`);
  }
  if (rule.role && !roleAtLeast(membership.role, rule.role) && !(scoped && rule.scopeSuffices)) {
    throw new AppError('FORBIDDEN', `This action needs the ${rule.role} role or higher in this store`);
  }
  return { actor, membership };
}

/** Common rules, named once. */
export const READ_STORE: StoreAccessRule = { scope: 'store.read' };
export const MANAGE_STORE: StoreAccessRule = { role: 'admin', scope: 'store.settings' };
