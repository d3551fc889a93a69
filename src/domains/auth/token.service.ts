import { AuthToken } from './token.entity.js';
import { User } from './user.entity.js';
import { AppError, notFound } from '../../core/errors.js';
import { requireActor, type Ctx } from '../../core/context.js';
import { transaction } from '../../core/tx.js';
import { page, pageLimit } from '../../lib/pagination.js';
import { requireSession } from './scopes.js';
import { createCode, findLiveCode, useCode } from './code.service.js';
import { issueToken } from './auth.service.js';
import type { TokenType } from './auth.types.js';

/** Live means neither revoked nor expired. */
export const liveTokenFilter = () => ({ revokedAt: null, $or: [{ expiresAt: null }, { expiresAt: { $gt: new Date() } }] });

export async function listTokens(ctx: Ctx, args: { limit?: number | null; cursor?: string | null }): Promise<{ data: TokenType[]; nextCursor: string | null }> {
  const actor = requireActor(ctx);
  const limit = pageLimit(args.limit);
  const tokens = await ctx.em.find(
    AuthToken,
    { userId: actor.userId, ...liveTokenFilter(), ...(args.cursor ? { id: { $lt: args.cursor } } : {}) },
    { orderBy: { id: 'desc' }, limit: limit + 1 },
  );
  const appIds = [...new Set(tokens.flatMap((t) => (t.appId ? [t.appId] : [])))];
  // The apps domain's names, read by table: that domain builds on this one, not the other way round.
  const apps = appIds.length ? await ctx.em.execute<Array<{ id: string; name: string }>>('select id, name from oauth_apps where id in (?)', [appIds]) : [];
  const byId = new Map(apps.map((a) => [a.id, a]));
  const rows = tokens.map((t) => ({
    id: t.id,
    kind: t.kind,
    name: t.name,
    scopes: t.scopes,
    app: t.appId && byId.has(t.appId) ? { id: t.appId, name: byId.get(t.appId)!.name } : null,
    createdAt: t.createdAt,
    lastUsedAt: t.lastUsedAt,
    expiresAt: t.expiresAt,
    current: t.id === actor.tokenId,
    last4: t.last4,
  }));
  return page(rows, limit);
}

/** A token id revokes that token; an app id revokes every token the caller gave that app. */
export async function revokeToken(ctx: Ctx, identifier: string): Promise<void> {
  const actor = requireActor(ctx);
  const where = identifier.startsWith('app_') ? { appId: identifier } : { id: identifier };
  const n = await transaction(ctx, (tx) => tx.em.nativeUpdate(AuthToken, { userId: actor.userId, revokedAt: null, ...where }, { revokedAt: new Date() }));
  if (n === 0) throw notFound('token');
}

export async function revokeAllTokens(ctx: Ctx, input: { includeCurrent?: boolean | null }): Promise<number> {
  const actor = requireActor(ctx);
  return transaction(ctx, (tx) =>
    tx.em.nativeUpdate(
      AuthToken,
      { userId: actor.userId, revokedAt: null, ...(input.includeCurrent ? {} : { id: { $ne: actor.tokenId } }) },
      { revokedAt: new Date() },
    ),
  );
}

export type TransferResult = { code: string; expiresAt: Date } | { token: string; user: User };

/**
 * One route, two halves: a signed-in session asks for a short-lived code; another device
 * (signed out) trades the code for a session of its own.
 */
export async function transferSession(ctx: Ctx, input: { code?: string | null }): Promise<TransferResult> {
  if (input.code == null) {
    const actor = requireSession(ctx);
    return transaction(ctx, async (tx) => {
      // Bound to this session: revoking it (sign-out, revoke-all, a password change or reset) voids the code.
      const { code, record } = createCode(tx.em, actor.userId, 'transfer', { sessionId: actor.tokenId });
      await tx.em.flush();
      return { code, expiresAt: record.expiresAt };
    });
  }
  const code = input.code;
  return transaction(ctx, async (tx) => {
    const record = await findLiveCode(tx.em, 'transfer', code);
    if (!record || !(await useCode(tx.em, record))) {
      throw new AppError('UNAUTHENTICATED', 'The transfer code is unknown, expired or already used');
    }
    const user = await tx.em.findOneOrFail(User, { id: record.userId });
    const { token } = issueToken(tx, user.id, { name: 'transfer' });
    await tx.em.flush();
    return { token, user };
  });
}
