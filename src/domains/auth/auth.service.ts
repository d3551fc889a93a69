import { randomBytes } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AuthToken } from './token.entity.js';
import { User } from './user.entity.js';
import { AppError, conflict, forbidden, invalid } from '../../core/errors.js';
import { requireActor, sha256, type Ctx, type Deps } from '../../core/context.js';
import { transaction } from '../../core/tx.js';
import { enforce, SlidingWindowLimiter } from '../../lib/rate-limit.js';
import type { OutgoingMail } from '../../lib/mailer.js';
import { verificationMail } from './mails.js';

/** argon2id with the library's defaults (m=19 MiB, t=2, p=1: OWASP's baseline). */
export const hashPassword = (password: string) => hash(password);

/** Verifying against this keeps an unknown email as slow as a wrong password. */
const DUMMY_HASH = hash('not-a-real-password-' + randomBytes(8).toString('hex'));

export const verifyPassword = async (user: User | null, password: string): Promise<boolean> =>
  verify(user?.passwordHash ?? (await DUMMY_HASH), password).then((ok) => ok && user !== null, () => false);

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

export interface IssuedToken {
  token: string;
  record: AuthToken;
}

/** Tokens are 32 random bytes; only their SHA-256 is kept. */
export function issueToken(ctx: Ctx, userId: string, opts: Partial<Pick<AuthToken, 'kind' | 'name' | 'scopes' | 'appId' | 'expiresAt'>> = {}): IssuedToken {
  const prefix = opts.kind === 'oauth' ? 'souk_oat_' : 'souk_st_';
  const token = prefix + randomBytes(32).toString('base64url');
  const record = ctx.em.create(AuthToken, {
    userId,
    tokenHash: sha256(token),
    kind: opts.kind ?? 'session',
    name: opts.name ?? null,
    scopes: opts.scopes ?? null,
    appId: opts.appId ?? null,
    // Sessions expire SOUK_SESSION_TTL after their last use (resolveActor slides it forward).
    expiresAt: opts.expiresAt ?? (opts.kind === 'oauth' ? null : new Date(Date.now() + ctx.deps.config.sessionTtlMs)),
    last4: token.slice(-4),
  });
  return { token, record };
}

interface AuthLimiters {
  ip: SlidingWindowLimiter;
  email: SlidingWindowLimiter;
}

/** Each running service's sign-in, sign-up and reset limiters, made on first use (replicas in one test process count apart). */
const limitersOf = new WeakMap<Deps, AuthLimiters>();

/**
 * Password guessing and account spam are slowed per client IP and per email; every
 * attempt counts, so a wrong password and an unknown email are limited alike.
 */
export function limitAuthAttempt(ctx: Ctx, email: string): void {
  const { config } = ctx.deps;
  let limiters = limitersOf.get(ctx.deps);
  if (!limiters) {
    limiters = {
      ip: new SlidingWindowLimiter(config.authRateLimitPerIp, config.authRateWindowMs),
      email: new SlidingWindowLimiter(config.authRateLimitPerEmail, config.authRateWindowMs),
    };
    limitersOf.set(ctx.deps, limiters);
  }
  enforce([
    [limiters.ip, ctx.ip],
    [limiters.email, normalizeEmail(email)],
  ]);
}

/** Mail goes out only once the transaction that created its code has committed. */
export async function sendAll(ctx: Ctx, mails: OutgoingMail[]): Promise<void> {
  for (const mail of mails) await ctx.deps.mailer.send(mail);
}

/**
 * Outside production the first account of an empty database administers the platform, so a
 * developer's first sign-up can do everything. In production it is a plain account: whoever
 * reaches a fresh deployment first must not own it; the first administrator is made from the
 * shell (`npm run admin -- create-user EMAIL NAME --admin`). Two first sign-ups at once must not
 * both see an empty table: while it looks empty, sign-ups take turns on a transaction lock and
 * count again after it (each statement then sees the other's committed row).
 */
async function isFirstAccount(ctx: Ctx, em: EntityManager): Promise<boolean> {
  if (ctx.deps.config.production || (await em.count(User, {})) > 0) return false;
  await em.execute('select pg_advisory_xact_lock(hashtextextended(?, 0))', ['souk:first-account']);
  return (await em.count(User, {})) === 0;
}

/** SOUK_SIGNUP: who may make an account through the API; the shell (`npm run admin`) always may. */
export function checkAccountCreation(ctx: Ctx, by: 'self' | 'admin'): void {
  const mode = ctx.deps.config.signup;
  if (mode === 'open' || (mode === 'invite' && by === 'admin')) return;
  throw forbidden(
    mode === 'invite'
      ? 'Sign-up is by invitation on this platform: a platform administrator creates your account'
      : 'Accounts are not created through the API on this platform: an operator creates them from the shell (npm run admin -- create-user)',
  );
}

export async function signup(ctx: Ctx, input: { email: string; password: string; name: string }): Promise<{ token: string; user: User }> {
  checkAccountCreation(ctx, 'self');
  limitAuthAttempt(ctx, input.email);
  const email = normalizeEmail(input.email);
  const passwordHash = await hashPassword(input.password);
  let mail: OutgoingMail;
  let result: { token: string; user: User };
  try {
    result = await transaction(ctx, async (tx) => {
      const first = await isFirstAccount(ctx, tx.em as EntityManager);
      const user = tx.em.create(User, { email, name: input.name.trim(), passwordHash, platformRole: first ? 'admin' : 'user' });
      await tx.em.flush();
      const { token } = issueToken(tx, user.id, { name: 'signup' });
      mail = verificationMail(tx.em, ctx.deps.config, user);
      await tx.em.flush();
      return { token, user };
    });
  } catch (err) {
    if (err instanceof UniqueConstraintViolationException) throw conflict('An account with this email already exists');
    throw err;
  }
  await sendAll(ctx, [mail!]);
  return result;
}

export async function signin(ctx: Ctx, input: { email: string; password: string }): Promise<{ token: string; user: User }> {
  limitAuthAttempt(ctx, input.email);
  const user = await ctx.em.findOne(User, { email: normalizeEmail(input.email) });
  if (!(await verifyPassword(user, input.password))) throw new AppError('UNAUTHENTICATED', 'Wrong email or password');
  const token = await transaction(ctx, async (tx) => {
    const issued = issueToken(tx, user!.id, { name: 'signin' });
    await tx.em.flush();
    return issued.token;
  });
  return { token, user: user! };
}

export async function signout(ctx: Ctx): Promise<void> {
  const actor = requireActor(ctx);
  await transaction(ctx, (tx) => tx.em.nativeUpdate(AuthToken, { id: actor.tokenId, revokedAt: null }, { revokedAt: new Date() }));
}

/** Sessions read their profile; an app needs the `profile` scope (the field's policy). */
export async function currentUser(ctx: Ctx): Promise<User> {
  const actor = requireActor(ctx);
  return ctx.em.findOneOrFail(User, { id: actor.userId });
}

export interface ProfileChange {
  name?: string | null;
  email?: string | null;
  password?: string | null;
  currentPassword?: string | null;
  platformRole?: string | null;
}

/**
 * Applies a profile change inside `em`'s transaction. A new email must be verified again;
 * a new password signs out every other token (`keepTokenId`), or all of them when null.
 * Returns the verification mail to send after commit, if any.
 */
export async function applyProfileChange(
  ctx: Ctx,
  user: User,
  input: ProfileChange,
  opts: { requireCurrentPassword: boolean; keepTokenId: string | null },
): Promise<OutgoingMail[]> {
  const mails: OutgoingMail[] = [];
  if (input.password != null && opts.requireCurrentPassword) {
    if (input.currentPassword == null) throw invalid('currentPassword', 'is required to change the password');
    if (!(await verifyPassword(user, input.currentPassword))) throw invalid('currentPassword', 'is wrong');
  }
  if (input.name != null) user.name = input.name.trim();
  if (input.email != null && normalizeEmail(input.email) !== user.email) {
    const email = normalizeEmail(input.email);
    if (await ctx.em.findOne(User, { email, id: { $ne: user.id } })) throw conflict('An account with this email already exists');
    user.email = email;
    user.emailVerifiedAt = null;
    mails.push(verificationMail(ctx.em, ctx.deps.config, user));
  }
  if (input.password != null) {
    user.passwordHash = await hashPassword(input.password);
    await ctx.em.nativeUpdate(
      AuthToken,
      { userId: user.id, revokedAt: null, ...(opts.keepTokenId ? { id: { $ne: opts.keepTokenId } } : {}) },
      { revokedAt: new Date() },
    );
  }
  return mails;
}

export async function updateMe(ctx: Ctx, input: ProfileChange): Promise<User> {
  const actor = requireActor(ctx);
  let mails: OutgoingMail[] = [];
  try {
    const user = await transaction(ctx, async (tx) => {
      const user = await tx.em.findOneOrFail(User, { id: actor.userId });
      mails = await applyProfileChange(tx, user, input, { requireCurrentPassword: true, keepTokenId: actor.tokenId });
      await tx.em.flush();
      return user;
    });
    await sendAll(ctx, mails);
    return user;
  } catch (err) {
    if (err instanceof UniqueConstraintViolationException) throw conflict('An account with this email already exists');
    throw err;
  }
}
