import { createHash, randomBytes } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import { AuthorizationCode, OAuthApp } from './app.entity.js';
import { AuthToken } from '../auth/token.entity.js';
import { User } from '../auth/user.entity.js';
import { AppError, invalid, notFound } from '../../core/errors.js';
import { requireActor, sha256, type Ctx } from '../../core/context.js';
import { transaction } from '../../core/tx.js';
import { issueToken } from '../auth/auth.service.js';
import { liveTokenFilter } from '../auth/token.service.js';
import { sessionLive } from '../auth/code.service.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import { findApp, secretMatches } from './app.service.js';
import type { AuthorizationCodeType, CodeInspectionType, ConnectedAppType, OAuthTokenType } from './app.types.js';

export const CODE_TTL_MS = 10 * 60_000;
/** No refresh tokens: an app runs the flow again after this. */
export const OAUTH_TOKEN_TTL_SECONDS = 30 * 24 * 60 * 60;

/** The signed-in user consents; the code goes to a redirect URI registered exactly as given. */
export async function createAuthorizationCode(
  ctx: Ctx,
  input: { appId: string; redirectUri: string; scopes: string[]; state?: string | null; codeChallenge: string; codeChallengeMethod: string },
): Promise<AuthorizationCodeType> {
  const actor = requireActor(ctx);
  const app = await findApp(ctx, input.appId);
  if (!app.redirectUris.includes(input.redirectUri)) throw invalid('redirectUri', 'is not registered for this app');
  const extra = input.scopes.filter((s) => !app.scopes.includes(s));
  if (extra.length) throw invalid('scopes', `exceed what the app may ask for: ${extra.join(', ')}`);
  const code = 'souk_ac_' + randomBytes(32).toString('base64url');
  return transaction(ctx, async (tx) => {
    const record = tx.em.create(AuthorizationCode, {
      codeHash: sha256(code),
      appId: app.id,
      userId: actor.userId,
      redirectUri: input.redirectUri,
      scopes: [...new Set(input.scopes)],
      state: input.state ?? null,
      codeChallenge: input.codeChallenge,
      codeChallengeMethod: input.codeChallengeMethod,
      expiresAt: new Date(Date.now() + CODE_TTL_MS),
      sessionId: actor.tokenId,
    });
    await tx.em.flush();
    return { code, redirectUri: record.redirectUri, state: record.state, expiresAt: record.expiresAt };
  });
}

const pkceS256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');
const invalidGrant = (why: string) => new AppError('BAD_REQUEST', `invalid_grant: ${why}`, [{ path: 'code', message: why }]);

/**
 * The app trades the code for a token. A code is used once: presenting it again revokes
 * the token it bought, since the code has leaked (RFC 6749 section 4.1.2).
 */
export async function consumeAuthorizationCode(
  ctx: Ctx,
  input: { code: string; clientId: string; clientSecret: string; redirectUri: string; codeVerifier: string },
): Promise<OAuthTokenType> {
  const app = await ctx.em.findOne(OAuthApp, { id: input.clientId });
  if (!app || !secretMatches(app, input.clientSecret)) throw new AppError('UNAUTHENTICATED', 'invalid_client: unknown client id or wrong client secret');
  const outcome = await transaction(ctx, async (tx): Promise<OAuthTokenType | { error: string }> => {
    const code = await tx.em.findOne(AuthorizationCode, { codeHash: sha256(input.code) }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!code || code.appId !== app.id) return { error: 'the code is unknown' };
    if (code.consumedAt) {
      if (code.tokenId) await tx.em.nativeUpdate(AuthToken, { id: code.tokenId, revokedAt: null }, { revokedAt: new Date() });
      return { error: 'the code was already used; the token it gave is revoked' };
    }
    if (code.expiresAt <= new Date()) return { error: 'the code has expired' };
    if (!code.sessionId || !(await sessionLive(tx.em as EntityManager, code.sessionId))) return { error: 'the session that granted the code has ended' };
    if (code.redirectUri !== input.redirectUri) return { error: 'redirectUri differs from the one the code was issued for' };
    if (pkceS256(input.codeVerifier) !== code.codeChallenge) return { error: 'codeVerifier does not match the code challenge' };
    // The app's scopes may have narrowed since the user consented.
    const scopes = code.scopes.filter((s) => app.scopes.includes(s));
    const { token, record } = issueToken(tx, code.userId, {
      kind: 'oauth',
      name: app.name,
      scopes,
      appId: app.id,
      expiresAt: new Date(Date.now() + OAUTH_TOKEN_TTL_SECONDS * 1000),
    });
    code.consumedAt = new Date();
    code.tokenId = record.id;
    await tx.em.flush();
    return { accessToken: token, tokenType: 'Bearer', scopes, expiresIn: OAUTH_TOKEN_TTL_SECONDS };
  });
  if ('error' in outcome) throw invalidGrant(outcome.error);
  return outcome;
}

/** The code itself is the credential (256 random bits): whoever holds it may look at it. */
export async function inspectAuthorizationCode(ctx: Ctx, input: { code: string }): Promise<CodeInspectionType> {
  const code = await ctx.em.findOne(AuthorizationCode, { codeHash: sha256(input.code) });
  if (!code) throw notFound('authorization code');
  const [user, app] = await Promise.all([ctx.em.findOneOrFail(User, { id: code.userId }), ctx.em.findOneOrFail(OAuthApp, { id: code.appId })]);
  return {
    user: { id: user.id, name: user.name },
    app: { id: app.id, name: app.name, description: app.description, homepageUrl: app.homepageUrl },
    scopes: code.scopes,
    redirectUri: code.redirectUri,
    expiresAt: code.expiresAt,
    expired: code.expiresAt <= new Date() || !code.sessionId || !(await sessionLive(ctx.em, code.sessionId)),
    consumed: code.consumedAt !== null,
  };
}

export async function connectedApps(ctx: Ctx): Promise<ConnectedAppType[]> {
  const actor = requireActor(ctx);
  const tokens = await ctx.em.find(AuthToken, { userId: actor.userId, kind: 'oauth', appId: { $ne: null }, ...liveTokenFilter() }, { orderBy: { id: 'asc' } });
  const apps = await ctx.em.find(OAuthApp, { id: { $in: [...new Set(tokens.map((t) => t.appId!))] } });
  return apps.map((app) => {
    const own = tokens.filter((t) => t.appId === app.id);
    const used = own.flatMap((t) => (t.lastUsedAt ? [t.lastUsedAt.getTime()] : []));
    return {
      app: { id: app.id, name: app.name, description: app.description, homepageUrl: app.homepageUrl },
      scopes: [...new Set(own.flatMap((t) => t.scopes ?? []))].sort(),
      tokenIds: own.map((t) => t.id),
      connectedAt: own[0].createdAt,
      lastUsedAt: used.length ? new Date(Math.max(...used)) : null,
    };
  });
}
