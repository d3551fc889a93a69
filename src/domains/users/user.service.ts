import { LockMode, UniqueConstraintViolationException } from '@mikro-orm/core';
import { User } from './user.entity.js';
import { AppError, conflict, forbidden, notFound } from '../../core/errors.js';
import { requireActor, type Actor, type Ctx } from '../../core/context.js';
import { page, pageLimit } from '../../lib/pagination.js';
import type { OutgoingMail } from '../../lib/mailer.js';
import { applyProfileChange, hashPassword, normalizeEmail, sendAll, type ProfileChange } from '../auth/auth.service.js';
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
  const passwordHash = await hashPassword(input.password);
  let mail: OutgoingMail;
  try {
    const user = await ctx.em.transactional(async (em) => {
      const user = em.create(User, { email: normalizeEmail(input.email), name: input.name.trim(), passwordHash, platformRole: input.platformRole ?? 'user' });
      await em.flush();
      mail = verificationMail(em, ctx.deps.config, user);
      await em.flush();
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
 * PATCH and PUT: a user changing their own password proves the current one and keeps this
 * session; an admin setting someone else's password signs that user out everywhere.
 */
export async function updateUser(ctx: Ctx, id: string, input: ProfileChange): Promise<User> {
  const actor = requireUserAccess(ctx, id);
  if (input.platformRole != null && !isAdmin(actor)) throw forbidden('Only platform admins change platform roles');
  const self = actor.userId === id;
  let mails: OutgoingMail[] = [];
  try {
    const user = await ctx.em.transactional(async (em) => {
      const user = await em.findOne(User, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      if (!user) throw notFound('user');
      if (input.platformRole != null && input.platformRole !== user.platformRole) {
        if (user.platformRole === 'admin') await ensureAnotherAdmin({ ...ctx, em }, id);
        user.platformRole = input.platformRole;
      }
      mails = await applyProfileChange({ ...ctx, em }, user, input, { requireCurrentPassword: self, keepTokenId: self ? actor.tokenId : null });
      await em.flush();
      return user;
    });
    await sendAll(ctx, mails);
    return user;
  } catch (err) {
    throw uniqueEmail(err);
  }
}

/** Tokens, memberships, apps and codes go with the user (foreign keys cascade). */
export async function deleteUser(ctx: Ctx, id: string): Promise<void> {
  requireUserAccess(ctx, id);
  await ctx.em.transactional(async (em) => {
    const user = await em.findOne(User, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!user) throw notFound('user');
    if (user.platformRole === 'admin') await ensureAnotherAdmin({ ...ctx, em }, id);
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
