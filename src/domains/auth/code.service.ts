import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sha256 } from '../../core/context.js';
import { UserCode, type CodePurpose } from './code.entity.js';

/** How long each kind of single-use code lives. */
export const CODE_TTL_MS: Record<CodePurpose, number> = {
  verify_email: 24 * 60 * 60_000,
  reset_password: 60 * 60_000,
  transfer: 5 * 60_000,
};

const PREFIX: Record<CodePurpose, string> = { verify_email: 'souk_ve_', reset_password: 'souk_pr_', transfer: 'souk_tr_' };

/**
 * 32 random bytes; the caller gets the plaintext once, the database keeps the hash. `email`
 * binds a mailed code to its address, `sessionId` a transfer code to the session that made it.
 */
export function createCode(
  em: EntityManager,
  userId: string,
  purpose: CodePurpose,
  bound: { email?: string | null; sessionId?: string | null } = {},
): { code: string; record: UserCode } {
  const code = PREFIX[purpose] + randomBytes(32).toString('base64url');
  const record = em.create(UserCode, {
    userId,
    purpose,
    codeHash: sha256(code),
    email: bound.email ?? null,
    sessionId: bound.sessionId ?? null,
    expiresAt: new Date(Date.now() + CODE_TTL_MS[purpose]),
  });
  return { code, record };
}

/**
 * The code if it exists for this purpose, is unused and unexpired, its session (if it came from
 * one) is still live, and the address it was mailed to (if any) is still the account's.
 */
export async function findLiveCode(em: EntityManager, purpose: CodePurpose, code: string): Promise<UserCode | null> {
  const record = await em.findOne(UserCode, { codeHash: sha256(code), purpose });
  if (!record || record.usedAt || record.expiresAt <= new Date()) return null;
  if (record.sessionId && !(await sessionLive(em, record.sessionId))) return null;
  if (record.email !== null) {
    const [owner] = await em.execute<Array<{ email: string }>>('select email from users where id = ?', [record.userId]);
    if (owner?.email !== record.email) return null;
  }
  return record;
}

/** A session that is neither revoked nor expired: credentials derived from it live as long as it does. */
export async function sessionLive(em: EntityManager, tokenId: string): Promise<boolean> {
  const rows = await em.execute('select 1 from auth_tokens where id = ? and revoked_at is null and (expires_at is null or expires_at > now())', [tokenId]);
  return rows.length > 0;
}

/** Marks the code used; false when a concurrent request used it first. */
export async function useCode(em: EntityManager, record: UserCode): Promise<boolean> {
  const now = new Date();
  const n = await em.nativeUpdate(UserCode, { id: record.id, usedAt: null, expiresAt: { $gt: now } }, { usedAt: now });
  return n === 1;
}
