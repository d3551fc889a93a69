import { Membership, Store } from './store.entity.js';
import { LockMode, UniqueConstraintViolationException } from '@mikro-orm/core';
import { User } from '../auth/user.entity.js';
import { normalizeEmail } from '../auth/auth.service.js';
import { AppError, conflict, forbidden, invalid, notFound } from '../../core/errors.js';
import { requireActor, type Ctx } from '../../core/context.js';
import { membershipOf, requireStorePermission, roleAtLeast, type Role } from '../../core/policy.js';
import { DEFAULT_CURRENCY, exponent, isCurrency } from '../../core/money.js';
import { lockStore, transaction, type TxCtx } from '../../core/tx.js';
import { page, pageLimit } from '../../lib/pagination.js';
import type { MemberType, StoreType } from './store.types.js';
import { storeCreated } from './store.hooks.js';
import { freeSlugOf, isStoreSlug, patchStorefront, slugBase, storefrontSettings, type StorefrontSettingsPatch } from './store.storefront.js';

interface StoreRow {
  id: string;
  name: string;
  slug: string;
  currency: string;
  logoUrl: string | null;
  storefront: unknown;
  createdAt: Date;
  updatedAt: Date;
}

const view = (ctx: Ctx, store: StoreRow, role: string): StoreType => ({
  id: store.id,
  name: store.name,
  slug: store.slug,
  currency: store.currency,
  logoUrl: store.logoUrl,
  storefront: storefrontSettings(store.storefront, ctx.deps.config),
  role,
  createdAt: store.createdAt,
  updatedAt: store.updatedAt,
});

function checkSlug(slug: string): string {
  if (!isStoreSlug(slug)) throw invalid('slug', 'must be 3 to 48 of a-z, 0-9 and dashes, starting and ending with a letter or digit (and not a reserved word)');
  return slug;
}

/** A handle another store holds is a 409; a derived one takes the first free `-N`. */
const slugTaken = () => conflict('This slug is taken by another store');

async function derivedSlug(tx: Ctx, name: string): Promise<string> {
  const base = slugBase(name);
  // Stores named alike derive one at a time (until their transactions end): otherwise a burst
  // of same-named creates keeps colliding on the unique index and runs out of retries.
  await tx.em.execute('select pg_advisory_xact_lock(hashtext(?))', [`store-slug:${base}`]);
  // A base holds only a-z, 0-9 and dashes: nothing LIKE would read as a wildcard.
  const rows = await tx.em.execute<Array<{ slug: string }>>('select slug from stores where slug = ? or slug like ?', [base, `${base}-%`]);
  return freeSlugOf(base, new Set(rows.map((r) => r.slug)));
}

function checkCurrency(code: string): string {
  if (!isCurrency(code)) throw invalid('currency', 'must be an ISO 4217 currency code, e.g. DZD');
  return code;
}

export async function createStore(ctx: Ctx, input: { name: string; currency?: string | null; slug?: string | null }): Promise<StoreType> {
  const actor = requireActor(ctx);
  const currency = input.currency == null ? DEFAULT_CURRENCY : checkCurrency(input.currency);
  const given = input.slug == null ? null : checkSlug(input.slug);
  // Two stores deriving the same handle at once: the loser derives again (the unique index decides).
  for (let attempt = 0; ; attempt++) {
    try {
      return await transaction(ctx, async (tx) => {
        const slug = given ?? (await derivedSlug(tx, input.name));
        const store = tx.em.create(Store, { name: input.name.trim(), currency, slug });
        tx.em.create(Membership, { storeId: store.id, userId: actor.userId, role: 'owner' });
        await tx.em.flush();
        await storeCreated(tx, store.id);
        return view(ctx, store, 'owner');
      });
    } catch (err) {
      if (!(err instanceof UniqueConstraintViolationException) || !/slug/.test(err.message)) throw err;
      if (given || attempt >= 4) throw slugTaken();
    }
  }
}

export async function listStores(ctx: Ctx, args: { limit?: number | null; cursor?: string | null }) {
  const actor = requireActor(ctx);
  const limit = pageLimit(args.limit);
  const memberships = await ctx.em.find(
    Membership,
    { userId: actor.userId, ...(args.cursor ? { storeId: { $lt: args.cursor } } : {}) },
    { orderBy: { storeId: 'desc' }, limit: limit + 1 },
  );
  const stores = await ctx.em.find(Store, { id: { $in: memberships.map((m) => m.storeId) } });
  const byId = new Map(stores.map((s) => [s.id, s]));
  const rows = memberships.flatMap((m) => (byId.has(m.storeId) ? [view(ctx, byId.get(m.storeId)!, m.role)] : []));
  return page(rows, limit);
}

/** The caller's role, as the field's policy already read it. */
async function roleIn(ctx: Ctx, storeId: string): Promise<string> {
  const membership = await membershipOf(ctx, storeId);
  if (!membership) throw notFound('store');
  return membership.role;
}

/** The hottest read there is: one plain statement, no entity (nothing here is written back). */
export async function getStore(ctx: Ctx, id: string): Promise<StoreType> {
  const role = await roleIn(ctx, id);
  const [row] = await ctx.em.execute<Array<{ id: string; name: string; slug: string; currency: string; logo_url: string | null; storefront: unknown; created_at: Date; updated_at: Date }>>(
    'select id, name, slug, currency, logo_url, storefront, created_at, updated_at from stores where id = ?',
    [id],
  );
  if (!row) throw notFound('store');
  return view(
    ctx,
    { id: row.id, name: row.name, slug: row.slug, currency: row.currency, logoUrl: row.logo_url, storefront: row.storefront, createdAt: new Date(row.created_at), updatedAt: new Date(row.updated_at) },
    role,
  );
}

/**
 * Orders keep the currency they were placed in, so a store with orders keeps its currency (409).
 * Product prices keep their face value: their minor units are rescaled to the new exponent, and a
 * price the new currency cannot express (19.99 in JPY) refuses the change.
 */
async function changeCurrency(tx: Ctx, store: Store, currency: string): Promise<void> {
  const [{ has }] = await tx.em.execute<Array<{ has: boolean }>>('select exists (select 1 from orders where store_id = ?) as has', [store.id]);
  if (has) throw conflict('The currency of a store with orders cannot change');
  const shift = exponent(currency) - exponent(store.currency);
  if (shift < 0) {
    const [odd] = await tx.em.execute<Array<{ id: string }>>('select id from products where store_id = ? and price % ? <> 0 limit 1', [store.id, 10 ** -shift]);
    if (odd) throw conflict(`The price of product ${odd.id} has more decimals than ${currency} allows`);
    await tx.em.execute('update products set price = price / ? where store_id = ?', [10 ** -shift, store.id]);
  } else if (shift > 0) {
    await tx.em.execute('update products set price = price * ? where store_id = ?', [10 ** shift, store.id]);
  }
  store.currency = currency;
}

export interface StoreUpdate {
  name?: string | null;
  currency?: string | null;
  slug?: string | null;
  logoUrl?: string | null;
  storefront?: StorefrontSettingsPatch | null;
}

export async function updateStore(ctx: Ctx, id: string, input: StoreUpdate): Promise<StoreType> {
  const role = await roleIn(ctx, id);
  const currency = input.currency == null ? null : checkCurrency(input.currency);
  const slug = input.slug == null ? null : checkSlug(input.slug);
  try {
    return await transaction(ctx, async (tx) => {
      // The row lock orders this change with order creation, whose event bumps the store row.
      // Deleted meanwhile (after the role was read): the row is gone once the lock is granted.
      const store = await tx.em.findOne(Store, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
      if (!store) throw notFound('store');
      if (input.name != null) store.name = input.name.trim();
      if (currency !== null && currency !== store.currency) await changeCurrency(tx, store, currency);
      if (slug !== null && slug !== store.slug) {
        const [other] = await tx.em.execute<Array<{ id: string }>>('select id from stores where slug = ?', [slug]);
        if (other) throw slugTaken();
        store.slug = slug;
      }
      if (input.logoUrl !== undefined) store.logoUrl = input.logoUrl;
      if (input.storefront != null) store.storefront = patchStorefront(store.storefront, input.storefront, ctx.deps.config);
      await tx.em.flush();
      return view(ctx, store, role);
    });
  } catch (err) {
    if (err instanceof UniqueConstraintViolationException && /slug/.test(err.message)) throw slugTaken();
    throw err;
  }
}

export async function deleteStore(ctx: Ctx, id: string): Promise<void> {
  // The delete locks the store row before its records (cascades): the order every writer follows.
  // A writer that locked a record first (a provider's answer coming back) can still deadlock with
  // it; the delete loses nothing by trying again, and each new try finds fewer writers ahead.
  for (let attempt = 1; ; attempt++) {
    try {
      const deleted = await transaction(ctx, (tx) => tx.em.nativeDelete(Store, { id }));
      if (!deleted) throw notFound('store');
      return;
    } catch (err) {
      if (!(err instanceof AppError && err.code === 'CONFLICT') || attempt >= 4) throw err;
      await new Promise((resolve) => setTimeout(resolve, 25 * attempt));
    }
  }
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
  const members = await ctx.em.find(Membership, { storeId }, { orderBy: { createdAt: 'asc', userId: 'asc' } });
  return memberView(ctx, members);
}

/** Only an owner grants or takes away ownership. */
export function checkRoleChange(actorRole: string, from: string | null, to: string | null) {
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
export async function lockMembers(tx: TxCtx, storeId: string, actorId: string, manage: boolean): Promise<Membership> {
  await lockStore(tx, storeId);
  const mine = await tx.em.findOne(Membership, { storeId, userId: actorId }, { refresh: true });
  if (!mine) throw notFound('store');
  if (manage && !roleAtLeast(mine.role, 'admin')) throw forbidden('This action needs the admin role or higher in this store');
  return mine;
}

export async function addMember(ctx: Ctx, storeId: string, input: { email: string; role: string }): Promise<MemberType> {
  return transaction(ctx, async (tx) => {
    const mine = await lockMembers(tx, storeId, requireActor(ctx).userId, true);
    checkRoleChange(mine.role, null, input.role);
    const user = await tx.em.findOne(User, { email: normalizeEmail(input.email) });
    if (!user) throw new AppError('NOT_FOUND', 'No user has this email; they must sign up first');
    return admitMember(tx, storeId, user.id, input.role);
  });
}

/**
 * Makes the account a member with the role: the one way in, whether a manager adds it or it
 * accepts an invite. Runs inside the caller's transaction, with the store row already locked.
 */
export async function admitMember(tx: TxCtx, storeId: string, userId: string, role: string): Promise<MemberType> {
  if (await tx.em.findOne(Membership, { storeId, userId })) throw conflict('This user is already a member');
  const m = tx.em.create(Membership, { storeId, userId, role: role as Role });
  await tx.em.flush();
  return (await memberView(tx, [m]))[0];
}

export async function updateMember(ctx: Ctx, storeId: string, userId: string, input: { role: string }): Promise<MemberType> {
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

/** Leaving (oneself) needs `store.leave`, never a read-only token; removing another member `store.manage`. */
export async function removeMember(ctx: Ctx, storeId: string, userId: string): Promise<void> {
  const actor = requireActor(ctx);
  await requireStorePermission(ctx, storeId, userId === actor.userId ? 'store.leave' : 'store.manage');
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

