import { randomBytes, timingSafeEqual } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import { User } from '../auth/user.entity.js';
import { normalizeEmail, sendAll } from '../auth/auth.service.js';
import { AppError, conflict, invalid, notFound } from '../../core/errors.js';
import { requireActor, sha256, type Ctx } from '../../core/context.js';
import { lockStore, transaction } from '../../core/tx.js';
import type { Config } from '../../config.js';
import type { OutgoingMail } from '../../lib/mailer.js';
import { Store } from './store.entity.js';
import { StoreInvite } from './invite.entity.js';
import { admitMember, checkRoleChange, lockMembers } from './store.service.js';
import type { MemberType } from './store.types.js';
import type { StoreInviteType } from './invite.types.js';

/**
 * Store invitations: a manager (the rule addMember follows) mails an address a link carrying the
 * invite id and a random token; the account with that email, once signed in, accepts with the
 * token and becomes a member exactly as addMember makes one (admitMember). Only the token's hash
 * is kept, and no log line carries it (mails are logged by subject only).
 */

const DAY_MS = 24 * 60 * 60_000;
export const INVITE_TTL_MS = 7 * DAY_MS;
const INVITE_MAX_TTL_MS = 30 * DAY_MS;
/** A list answers at most this many invites, newest first. */
export const INVITE_LIST_MAX = 200;

export function inviteStatus(invite: StoreInvite, now = new Date()): string {
  if (invite.acceptedAt) return 'accepted';
  if (invite.revokedAt) return 'revoked';
  return invite.expiresAt <= now ? 'expired' : 'pending';
}

const view = (i: StoreInvite): StoreInviteType => ({
  id: i.id,
  storeId: i.storeId,
  email: i.email,
  role: i.role,
  invitedBy: i.invitedBy,
  status: inviteStatus(i),
  expiresAt: i.expiresAt,
  acceptedAt: i.acceptedAt,
  acceptedBy: i.acceptedBy,
  revokedAt: i.revokedAt,
  metadata: i.metadata,
  createdAt: i.createdAt,
  updatedAt: i.updatedAt,
});

function inviteMail(config: Config, invite: StoreInvite, storeName: string, inviter: string, token: string): OutgoingMail {
  const query = new URLSearchParams({ store: invite.storeId, invite: invite.id, token });
  return {
    to: invite.email,
    subject: `You are invited to join ${storeName}`,
    text: [
      'Hello,',
      '',
      `${inviter} invites you to join the store ${storeName} on Souk as ${invite.role}. Accept before ${invite.expiresAt.toISOString()} here:`,
      `${config.publicUrl.replace(/\/+$/, '')}/accept-invite?${query}`,
      '',
      `Sign in (or sign up) with this email address (${invite.email}) first. The link works once. If you did not expect it, ignore this mail.`,
      '',
      `(API: the GraphQL mutation acceptStoreInvite(storeId, id, token), or POST /feeef/v1/stores/${invite.storeId}/invites/${invite.id}/accept with {"token": "<the token in the link>"})`,
    ].join('\n'),
  };
}

function expiryOf(requested: Date | null | undefined): Date {
  if (requested == null) return new Date(Date.now() + INVITE_TTL_MS);
  const ms = requested.getTime() - Date.now();
  if (!Number.isFinite(ms) || ms <= 0 || ms > INVITE_MAX_TTL_MS) throw invalid('expiresAt', 'must be in the future and at most 30 days ahead');
  return requested;
}

export async function createInvite(
  ctx: Ctx,
  storeId: string,
  input: { email: string; role: string; expiresAt?: Date | null; metadata?: Record<string, unknown> | null },
): Promise<StoreInviteType> {
  const actor = requireActor(ctx);
  const email = normalizeEmail(input.email);
  const expiresAt = expiryOf(input.expiresAt);
  const token = `souk_inv_${randomBytes(32).toString('base64url')}`;
  const { invite, mail } = await transaction(ctx, async (tx) => {
    const mine = await lockMembers(tx, storeId, actor.userId, true);
    checkRoleChange(mine.role, null, input.role);
    const [member] = await tx.em.execute<Array<{ one: number }>>(
      'select 1 as one from store_members m join users u on u.id = m.user_id where m.store_id = ? and u.email = ?',
      [storeId, email],
    );
    if (member) throw conflict('This email already belongs to a member of the store');
    const pending = await tx.em.findOne(StoreInvite, { storeId, email, acceptedAt: null, revokedAt: null, expiresAt: { $gt: new Date() } });
    if (pending) throw conflict('A pending invite for this email exists; revoke it first to send another');
    const invite = tx.em.create(StoreInvite, { storeId, email, role: input.role, invitedBy: actor.userId, tokenHash: sha256(token), metadata: input.metadata ?? {}, expiresAt });
    const store = await tx.em.findOneOrFail(Store, { id: storeId });
    const inviter = await tx.em.findOneOrFail(User, { id: actor.userId });
    await tx.em.flush();
    return { invite, mail: inviteMail(ctx.deps.config, invite, store.name, inviter.name, token) };
  });
  // After commit, as auth mails are: a rolled-back invite sends nothing; without SMTP the mail is kept in the outbox.
  await sendAll(ctx, [mail]);
  return view(invite);
}

export async function listInvites(ctx: Ctx, storeId: string, status?: string | null): Promise<StoreInviteType[]> {
  const now = new Date();
  const where =
    status === 'accepted'
      ? { acceptedAt: { $ne: null } }
      : status === 'revoked'
        ? { acceptedAt: null, revokedAt: { $ne: null } }
        : status === 'expired'
          ? { acceptedAt: null, revokedAt: null, expiresAt: { $lte: now } }
          : status === 'pending'
            ? { acceptedAt: null, revokedAt: null, expiresAt: { $gt: now } }
            : {};
  const rows = await ctx.em.find(StoreInvite, { storeId, ...where }, { orderBy: { createdAt: 'desc', id: 'desc' }, limit: INVITE_LIST_MAX });
  return rows.map(view);
}

export async function getInvite(ctx: Ctx, storeId: string, id: string): Promise<StoreInviteType> {
  const invite = await ctx.em.findOne(StoreInvite, { id, storeId });
  if (!invite) throw notFound('invite');
  return view(invite);
}

/** A pending invite stops working; an accepted one cannot be taken back (remove the member instead). */
export async function revokeInvite(ctx: Ctx, storeId: string, id: string): Promise<StoreInviteType> {
  return transaction(ctx, async (tx) => {
    await lockMembers(tx, storeId, requireActor(ctx).userId, true);
    const invite = await tx.em.findOne(StoreInvite, { id, storeId }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
    if (!invite) throw notFound('invite');
    if (invite.acceptedAt) throw conflict('This invite was already accepted; remove the member instead');
    invite.revokedAt ??= new Date();
    await tx.em.flush();
    return view(invite);
  });
}

const sameToken = (hash: string, token: string) => timingSafeEqual(Buffer.from(hash), Buffer.from(sha256(token)));

/**
 * The signed-in account accepts with the mailed token. A wrong token answers as an unknown invite
 * (404); the right token from another account is 403 and says nothing of the invite. Store row,
 * then invite row, locked in that order (as member changes lock), so two accepts run one after the
 * other and the second finds it accepted (409).
 */
export async function acceptInvite(ctx: Ctx, storeId: string, id: string, token: string): Promise<MemberType> {
  const actor = requireActor(ctx);
  return transaction(ctx, async (tx) => {
    // An unknown store answers as an unknown invite: the caller need not be a member of it.
    await lockStore(tx, storeId).catch(() => {
      throw notFound('invite');
    });
    const invite = await tx.em.findOne(StoreInvite, { id, storeId }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
    if (!invite || typeof token !== 'string' || !sameToken(invite.tokenHash, token)) throw notFound('invite');
    const user = await tx.em.findOneOrFail(User, { id: actor.userId });
    if (user.email !== invite.email) throw new AppError('FORBIDDEN', 'This invite is not for the signed-in account');
    const status = inviteStatus(invite);
    if (status === 'accepted') throw conflict('This invite was already accepted');
    if (status === 'revoked') throw conflict('This invite was revoked');
    if (status === 'expired') throw conflict('This invite has expired; ask for a new one');
    invite.acceptedAt = new Date();
    invite.acceptedBy = user.id;
    return admitMember(tx, storeId, user.id, invite.role);
  });
}
