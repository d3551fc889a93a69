import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { User } from '../auth/user.entity.js';
import { AppError, conflict, forbidden, notFound } from '../../core/errors.js';
import { requireActor, type Actor, type Ctx } from '../../core/context.js';
import { transaction, type TxCtx } from '../../core/tx.js';
import { page, pageLimit } from '../../lib/pagination.js';
import type { OutgoingMail } from '../../lib/mailer.js';
import { applyProfileChange, checkAccountCreation, hashPassword, normalizeEmail, sendAll, type ProfileChange } from '../auth/auth.service.js';
import { verificationMail } from '../auth/mails.js';

const isAdmin = (actor: Actor) => actor.platformRole === 'admin';

/** Admins reach every account; anyone else only their own, and learns nothing of others (404). */
function requireUserAccess(ctx: Ctx, id: string): Actor {
  const actor = requireActor(ctx);
  if (!isAdmin(actor) && actor.userId !== id) throw notFound('user');
  return actor;
}

const uniqueEmail = (err: unknown) => (err instanceof UniqueConstraintViolationException ? conflict('An account with this email already exists') : err);

export async function listUsers(ctx: Ctx, args: { limit?: number | null; cursor?: string | null }) {
  const actor = requireActor(ctx);
  const limit = pageLimit(args.limit);
  const users = await ctx.em.find(
    User,
    { $and: [isAdmin(actor) ? {} : { id: actor.userId }, args.cursor ? { id: { $lt: args.cursor } } : {}] },
    { orderBy: { id: 'desc' }, limit: limit + 1 },
  );
  return page(users, limit);
}

export async function getUser(ctx: Ctx, id: string): Promise<User> {
  requireUserAccess(ctx, id);
  const user = await ctx.em.findOne(User, { id });
  if (!user) throw notFound('user');
  return user;
}

export async function createUser(ctx: Ctx, input: { email: string; password: string; name: string; platformRole?: string | null }): Promise<User> {
  checkAccountCreation(ctx, 'admin');
  const passwordHash = await hashPassword(input.password);
  let mail: OutgoingMail;
  try {
    const user = await transaction(ctx, async (tx) => {
      const user = tx.em.create(User, { email: normalizeEmail(input.email), name: input.name.trim(), passwordHash, platformRole: input.platformRole ?? 'user' });
      await tx.em.flush();
      mail = verificationMail(tx.em, ctx.deps.config, user);
      await tx.em.flush();
      return user;
    });
    await sendAll(ctx, [mail!]);
    return user;
  } catch (err) {
    throw uniqueEmail(err);
  }
}

/** The platform keeps at least one admin. */
async function ensureAnotherAdmin(ctx: Ctx, userId: string) {
  const others = await ctx.em.count(User, { platformRole: 'admin', id: { $ne: userId } });
  if (others === 0) throw conflict('The platform must keep at least one admin');
}

/**
 * Locks the user and, when admins are counted, every admin with it, in id order: two admins
 * removing each other wait for one another instead of each counting the other. The caller's
 * own rights are read again under the lock, so a request that waited acts as if it came second.
 */
async function lockUser(tx: TxCtx, actor: Actor, id: string, countAdmins: boolean): Promise<User> {
  await (tx.em as EntityManager).execute(
    `select id from users where id = ?${countAdmins ? " or platform_role = 'admin'" : ''} order by id for no key update`,
    [id],
  );
  const user = await tx.em.findOne(User, { id }, { refresh: true });
  if (!user) throw notFound('user');
  if (actor.userId !== id) {
    const current = await tx.em.findOne(User, { id: actor.userId }, { refresh: true });
    if (current?.platformRole !== 'admin') throw notFound('user');
  }
  return user;
}

/**
 * PATCH and PUT: a user changing their own password proves the current one and keeps this
 * session; an admin setting someone else's password signs that user out everywhere.
 */
export async function updateUser(ctx: Ctx, id: string, input: ProfileChange): Promise<User> {
  const actor = requireUserAccess(ctx, id);
  if (input.platformRole != null && !isAdmin(actor)) throw forbidden('Only platform admins change platform roles');
  const self = actor.userId === id;
  let mails: OutgoingMail[] = [];
  try {
    const user = await transaction(ctx, async (tx) => {
      const user = await lockUser(tx, actor, id, input.platformRole != null);
      if (input.platformRole != null && input.platformRole !== user.platformRole) {
        if (user.platformRole === 'admin') await ensureAnotherAdmin(tx, id);
        user.platformRole = input.platformRole;
      }
      mails = await applyProfileChange(tx, user, input, { requireCurrentPassword: self, keepTokenId: self ? actor.tokenId : null });
      await tx.em.flush();
      return user;
    });
    await sendAll(ctx, mails);
    return user;
  } catch (err) {
    throw uniqueEmail(err);
  }
}

/**
 * Tokens, memberships, apps and codes go with the user (foreign keys cascade). The stores the
 * user belongs to are locked first, in id order, as member changes lock them (see lockStore),
 * so no owner leaves between the sole-owner check and the delete; then the users counted.
 */
export async function deleteUser(ctx: Ctx, id: string): Promise<void> {
  const actor = requireUserAccess(ctx, id);
  await transaction(ctx, async (tx) => {
    const em = tx.em as EntityManager;
    await em.execute('select id from stores where id in (select store_id from store_members where user_id = ?) order by id for no key update', [id]);
    const user = await lockUser(tx, actor, id, true);
    if (user.platformRole === 'admin') await ensureAnotherAdmin(tx, id);
    const soleOwner = await em.execute(
      `select m.store_id from store_members m
        where m.user_id = ? and m.role = 'owner'
          and not exists (select 1 from store_members o where o.store_id = m.store_id and o.role = 'owner' and o.user_id <> m.user_id)
        limit 1`,
      [id],
    );
    if (soleOwner.length) {
      throw new AppError('CONFLICT', `This user is the last owner of store ${soleOwner[0].store_id}: hand ownership over or delete the store first`);
    }
    await em.nativeDelete(User, { id });
  });
}
