import { AuthToken } from './token.entity.js';
import { UserCode } from './code.entity.js';
import { User } from './user.entity.js';
import { conflict, invalid } from '../../core/errors.js';
import { requireActor, sha256, type Ctx } from '../../core/context.js';
import { transaction } from '../../core/tx.js';
import type { OutgoingMail } from '../../lib/mailer.js';
import { findLiveCode, useCode } from './code.service.js';
import { resetMail, verificationMail } from './mails.js';
import { hashPassword, limitAuthAttempt, normalizeEmail, sendAll } from './auth.service.js';

const badToken = () => invalid('token', 'is invalid, expired or already used');

export async function resendVerification(ctx: Ctx): Promise<void> {
  const actor = requireActor(ctx);
  const mail = await transaction(ctx, async (tx) => {
    const user = await tx.em.findOneOrFail(User, { id: actor.userId });
    if (user.emailVerifiedAt) throw conflict('This email address is already verified');
    const m = verificationMail(tx.em, ctx.deps.config, user);
    await tx.em.flush();
    return m;
  });
  await sendAll(ctx, [mail]);
}

/** The token proves control of the mailbox it was sent to; a later email change voids it. */
export async function confirmEmail(ctx: Ctx, input: { token: string }): Promise<User> {
  return transaction(ctx, async (tx) => {
    const record = await findLiveCode(tx.em, 'verify_email', input.token);
    if (!record) throw badToken();
    const user = await tx.em.findOne(User, { id: record.userId });
    if (!user || user.email !== record.email || !(await useCode(tx.em, record))) throw badToken();
    user.emailVerifiedAt ??= new Date();
    await tx.em.flush();
    return user;
  });
}

/** Answers the same whether or not the email has an account: no enumeration. */
export async function requestPasswordReset(ctx: Ctx, input: { email: string }): Promise<void> {
  limitAuthAttempt(ctx, input.email);
  let mail: OutgoingMail | null = null;
  await transaction(ctx, async (tx) => {
    const user = await tx.em.findOne(User, { email: normalizeEmail(input.email) });
    if (!user) return;
    mail = resetMail(tx.em, ctx.deps.config, user);
    await tx.em.flush();
  });
  if (mail) await sendAll(ctx, [mail]);
}

export async function passwordResetStatus(ctx: Ctx, token: string): Promise<{ valid: boolean; expiresAt: Date | null }> {
  const record = await findLiveCode(ctx.em, 'reset_password', token);
  return { valid: record !== null, expiresAt: record?.expiresAt ?? null };
}

/**
 * Sets the password and signs the user out everywhere (whoever asked for the reset may
 * have been locked out by an intruder's session). Other pending reset links die too.
 */
export async function confirmPasswordReset(ctx: Ctx, input: { token: string; password: string }): Promise<number> {
  const passwordHash = await hashPassword(input.password);
  return transaction(ctx, async (tx) => {
    const record = await findLiveCode(tx.em, 'reset_password', input.token);
    if (!record || !(await useCode(tx.em, record))) throw badToken();
    const user = await tx.em.findOneOrFail(User, { id: record.userId });
    user.passwordHash = passwordHash;
    // Following the emailed link proved the mailbox is the user's.
    user.emailVerifiedAt ??= new Date();
    await tx.em.nativeUpdate(UserCode, { userId: user.id, purpose: 'reset_password', usedAt: null, codeHash: { $ne: sha256(input.token) } }, { usedAt: new Date() });
    const revoked = await tx.em.nativeUpdate(AuthToken, { userId: user.id, revokedAt: null }, { revokedAt: new Date() });
    await tx.em.flush();
    return revoked;
  });
}
