import { randomBytes } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { AuthToken } from './token.entity.js';
import { User } from '../users/user.entity.js';
import { AppError, conflict } from '../../server/errors.js';
import { requireActor, sha256, type Ctx } from '../../server/context.js';

/** argon2id with the library's defaults (m=19 MiB, t=2, p=1: OWASP's baseline). */
export const hashPassword = (password: string) => hash(password);

/** Verifying against this keeps an unknown email as slow as a wrong password. */
const DUMMY_HASH = hash('not-a-real-password-' + randomBytes(8).toString('hex'));

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
    expiresAt: opts.expiresAt ?? null,
    last4: token.slice(-4),
  });
  return { token, record };
}

export async function signup(ctx: Ctx, input: { email: string; password: string; name: string }): Promise<{ token: string; user: User }> {
  const email = normalizeEmail(input.email);
  const passwordHash = await hashPassword(input.password);
  try {
    return await ctx.em.transactional(async (em) => {
      // The first account of an empty database administers the platform.
      const first = (await em.count(User, {})) === 0;
      const user = em.create(User, { email, name: input.name.trim(), passwordHash, platformRole: first ? 'admin' : 'user' });
      await em.flush();
      const { token } = issueToken({ ...ctx, em }, user.id, { name: 'signup' });
      await em.flush();
      return { token, user };
    });
  } catch (err) {
    if (err instanceof UniqueConstraintViolationException) throw conflict('An account with this email already exists');
    throw err;
  }
}

export async function signin(ctx: Ctx, input: { email: string; password: string }): Promise<{ token: string; user: User }> {
  const user = await ctx.em.findOne(User, { email: normalizeEmail(input.email) });
  const ok = await verify(user?.passwordHash ?? (await DUMMY_HASH), input.password).catch(() => false);
  if (!user || !ok) throw new AppError('UNAUTHENTICATED', 'Wrong email or password');
  const { token } = issueToken(ctx, user.id, { name: 'signin' });
  await ctx.em.flush();
  return { token, user };
}

export async function signout(ctx: Ctx): Promise<void> {
  const actor = requireActor(ctx);
  await ctx.em.nativeUpdate(AuthToken, { id: actor.tokenId, revokedAt: null }, { revokedAt: new Date() });
}

export async function currentUser(ctx: Ctx): Promise<User> {
  const actor = requireActor(ctx);
  return ctx.em.findOneOrFail(User, { id: actor.userId });
}
