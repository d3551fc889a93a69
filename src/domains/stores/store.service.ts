import { Membership, Store } from './store.entity.js';
import { LockMode } from '@mikro-orm/core';
import { MANAGE_STORE, READ_STORE, requireStoreAccess, type Role } from './access.js';
import { User } from '../users/user.entity.js';
import { normalizeEmail } from '../auth/auth.service.js';
import { AppError, conflict, notFound } from '../../core/errors.js';
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
  const store = await ctx.em.findOneOrFail(Store, { id });
  if (input.name != null) store.name = input.name.trim();
  await ctx.em.flush();
  return view(store, membership.role);
}

export async function deleteStore(ctx: Ctx, id: string): Promise<void> {
  await requireStoreAccess(ctx, id, { role: 'owner', scope: 'store.settings' });
  await ctx.em.nativeDelete(Store, { id });
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

export async function addMember(ctx: Ctx, storeId: string, input: { email: string; role: string }): Promise<MemberType> {
  const { membership } = await requireStoreAccess(ctx, storeId, MANAGE_STORE);
  checkRoleChange(membership.role, null, input.role);
  const user = await ctx.em.findOne(User, { email: normalizeEmail(input.email) });
  if (!user) throw new AppError('NOT_FOUND', 'No user has this email; they must sign up first');
  if (await ctx.em.findOne(Membership, { storeId, userId: user.id })) throw conflict('This user is already a member');
  const m = ctx.em.create(Membership, { storeId, userId: user.id, role: input.role as Role });
  await ctx.em.flush();
  return (await memberView(ctx, [m]))[0];
}

export async function updateMember(ctx: Ctx, storeId: string, userId: string, input: { role: string }): Promise<MemberType> {
  const { membership } = await requireStoreAccess(ctx, storeId, MANAGE_STORE);
  return ctx.em.transactional(async (em) => {
    const target = await em.findOne(Membership, { storeId, userId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!target) throw notFound('member');
    checkRoleChange(membership.role, target.role, input.role);
    if (target.role === 'owner' && input.role !== 'owner') await ensureAnotherOwner({ ...ctx, em }, storeId, userId);
    target.role = input.role;
    await em.flush();
    return (await memberView({ ...ctx, em }, [target]))[0];
  });
}

export async function removeMember(ctx: Ctx, storeId: string, userId: string): Promise<void> {
  const actor = requireActor(ctx);
  // Members may leave on their own; removing others needs admin.
  const rule = userId === actor.userId ? READ_STORE : MANAGE_STORE;
  const { membership } = await requireStoreAccess(ctx, storeId, rule);
  await ctx.em.transactional(async (em) => {
    const target = await em.findOne(Membership, { storeId, userId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!target) throw notFound('member');
    if (userId !== actor.userId) checkRoleChange(membership.role, target.role, null);
    if (target.role === 'owner') await ensureAnotherOwner({ ...ctx, em }, storeId, userId);
    await em.nativeDelete(Membership, { storeId, userId });
  });
}

