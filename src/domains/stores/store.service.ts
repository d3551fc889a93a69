import { Membership, Store } from './store.entity.js';
import { LockMode } from '@mikro-orm/core';
import { MANAGE_STORE, READ_STORE, requireStoreAccess, type Role } from './access.js';
import { roleAtLeast } from '../../core/policy.js';
import { User } from '../users/user.entity.js';
import { normalizeEmail } from '../auth/auth.service.js';
import { AppError, conflict, forbidden, notFound } from '../../core/errors.js';
import { lockStore, transaction, type TxCtx } from '../../core/tx.js';
import { requireActor, requireScope, type Ctx } from '../../core/context.js';
import { page, pageLimit } from '../../lib/pagination.js';
import type { MemberType, StoreType } from './store.types.js';


const view = (store: Store, role: string): StoreType => ({
  id: store.id,
  name: store.name,
  role,
  createdAt: store.createdAt,
  updatedAt: store.updatedAt,
});

export async function createStore(ctx: Ctx, input: { name: string }): Promise<StoreType> {
  const actor = requireScope(ctx, 'store.settings');
  return ctx.em.transactional(async (em) => {
    const store = em.create(Store, { name: input.name.trim() });
    em.create(Membership, { storeId: store.id, userId: actor.userId, role: 'owner' });
    await em.flush();
    for (const m of ctx.deps.modules) await m.onStoreCreated?.({ ...ctx, em: em as Ctx['em'] }, store.id);
    return view(store, 'owner');
  });
}

export async function listStores(ctx: Ctx, args: { limit?: number | null; cursor?: string | null }) {
  const actor = requireScope(ctx, 'store.read');
  const limit = pageLimit(args.limit);
  const memberships = await ctx.em.find(
    Membership,
    { userId: actor.userId, ...(args.cursor ? { storeId: { $lt: args.cursor } } : {}) },
    { orderBy: { storeId: 'desc' }, limit: limit + 1 },
  );
  const stores = await ctx.em.find(Store, { id: { $in: memberships.map((m) => m.storeId) } });
  const byId = new Map(stores.map((s) => [s.id, s]));
  const rows = memberships.flatMap((m) => (byId.has(m.storeId) ? [view(byId.get(m.storeId)!, m.role)] : []));
  return page(rows, limit);
}

export async function getStore(ctx: Ctx, id: string): Promise<StoreType> {
  const { membership } = await requireStoreAccess(ctx, id, READ_STORE);
  const store = await ctx.em.findOne(Store, { id });
  if (!store) throw notFound('store');
  return view(store, membership.role);
}

export async function updateStore(ctx: Ctx, id: string, input: { name?: string | null }): Promise<StoreType> {
  const { membership } = await requireStoreAccess(ctx, id, MANAGE_STORE);
  return transaction(ctx, async (tx) => {
    await lockStore(tx, id);
    const store = await tx.em.findOneOrFail(Store, { id }, { refresh: true });
    if (input.name != null) store.name = input.name.trim();
    await tx.em.flush();
    return view(store, membership.role);
  });
}

export async function deleteStore(ctx: Ctx, id: string): Promise<void> {
  await requireStoreAccess(ctx, id, { role: 'owner', scope: 'store.settings' });
  // The delete locks the store row before its records (cascades): the order every writer follows.
  const deleted = await transaction(ctx, (tx) => tx.em.nativeDelete(Store, { id }));
  if (!deleted) throw notFound('store');
}

async function memberView(ctx: Ctx, members: Membership[]): Promise<MemberType[]> {
  const users = await ctx.em.find(User, { id: { $in: members.map((m) => m.userId) } });
  const byId = new Map(users.map((u) => [u.id, u]));
  return members.map((m) => {
    const u = byId.get(m.userId)!;
    return { userId: m.userId, email: u.email, name: u.name, role: m.role, createdAt: m.createdAt };
  });
}

export async function listMembers(ctx: Ctx, storeId: string): Promise<MemberType[]> {
  await requireStoreAccess(ctx, storeId, READ_STORE);
  const members = await ctx.em.find(Membership, { storeId }, { orderBy: { createdAt: 'asc', userId: 'asc' } });
  return memberView(ctx, members);
}

/** Only an owner grants or takes away ownership. */
function checkRoleChange(actorRole: string, from: string | null, to: string | null) {
  if ((from === 'owner' || to === 'owner') && actorRole !== 'owner') {
    throw new AppError('FORBIDDEN', 'Only an owner can grant or remove the owner role');
  }
}

async function ensureAnotherOwner(ctx: Ctx, storeId: string, userId: string) {
  const owners = await ctx.em.count(Membership, { storeId, role: 'owner', userId: { $ne: userId } });
  if (owners === 0) throw conflict('A store must keep at least one owner');
}

/**
 * Member changes run with the store row locked (see lockStore), so the owners counted are the
 * owners at commit, and the caller's role is read again under the lock: a request that waited
 * behind another acts as if it came after it (an owner demoted meanwhile grants nothing).
 */
async function lockMembers(tx: TxCtx, storeId: string, actorId: string, manage: boolean): Promise<Membership> {
  await lockStore(tx, storeId);
  const mine = await tx.em.findOne(Membership, { storeId, userId: actorId }, { refresh: true });
  if (!mine) throw notFound('store');
  if (manage && !roleAtLeast(mine.role, 'admin')) throw forbidden('This action needs the admin role or higher in this store');
  return mine;
}

export async function addMember(ctx: Ctx, storeId: string, input: { email: string; role: string }): Promise<MemberType> {
  await requireStoreAccess(ctx, storeId, MANAGE_STORE);
  return transaction(ctx, async (tx) => {
    const mine = await lockMembers(tx, storeId, requireActor(ctx).userId, true);
    checkRoleChange(mine.role, null, input.role);
    const user = await tx.em.findOne(User, { email: normalizeEmail(input.email) });
    if (!user) throw new AppError('NOT_FOUND', 'No user has this email; they must sign up first');
    if (await tx.em.findOne(Membership, { storeId, userId: user.id })) throw conflict('This user is already a member');
    const m = tx.em.create(Membership, { storeId, userId: user.id, role: input.role as Role });
    await tx.em.flush();
    return (await memberView(tx, [m]))[0];
  });
}

export async function updateMember(ctx: Ctx, storeId: string, userId: string, input: { role: string }): Promise<MemberType> {
  await requireStoreAccess(ctx, storeId, MANAGE_STORE);
  return transaction(ctx, async (tx) => {
    const mine = await lockMembers(tx, storeId, requireActor(ctx).userId, true);
    const target = await tx.em.findOne(Membership, { storeId, userId }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
    if (!target) throw notFound('member');
    checkRoleChange(mine.role, target.role, input.role);
    if (target.role === 'owner' && input.role !== 'owner') await ensureAnotherOwner(tx, storeId, userId);
    target.role = input.role;
    await tx.em.flush();
    return (await memberView(tx, [target]))[0];
  });
}

export async function removeMember(ctx: Ctx, storeId: string, userId: string): Promise<void> {
  const actor = requireActor(ctx);
  // Members may leave on their own; removing others needs admin.
  const rule = userId === actor.userId ? READ_STORE : MANAGE_STORE;
  await requireStoreAccess(ctx, storeId, rule);
  await transaction(ctx, async (tx) => {
    const self = userId === actor.userId;
    const mine = await lockMembers(tx, storeId, actor.userId, !self);
    const target = self ? mine : await tx.em.findOne(Membership, { storeId, userId }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
    if (!target) throw notFound('member');
    if (!self) checkRoleChange(mine.role, target.role, null);
    if (target.role === 'owner') await ensureAnotherOwner(tx, storeId, userId);
    await tx.em.nativeDelete(Membership, { storeId, userId });
  });
}

