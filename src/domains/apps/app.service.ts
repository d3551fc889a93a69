import { randomBytes, timingSafeEqual } from 'node:crypto';
import { OAuthApp } from './app.entity.js';
import { forbidden, notFound } from '../../core/errors.js';
import { requireActor, sha256, type Actor, type Ctx } from '../../core/context.js';
import { transaction } from '../../core/tx.js';
import { page, pageLimit } from '../../lib/pagination.js';
import type { AppType, AppWithSecretType } from './app.types.js';

export const view = (app: OAuthApp): AppType => ({
  id: app.id,
  name: app.name,
  description: app.description,
  homepageUrl: app.homepageUrl,
  redirectUris: app.redirectUris,
  scopes: app.scopes,
  createdAt: app.createdAt,
  updatedAt: app.updatedAt,
});

const newSecret = () => 'souk_cs_' + randomBytes(32).toString('base64url');
const withSecret = (app: OAuthApp, clientSecret: string): AppWithSecretType => ({ ...view(app), clientSecret });

/** Compares hashes in constant time so a secret cannot be found byte by byte. */
export function secretMatches(app: OAuthApp, secret: string): boolean {
  return timingSafeEqual(Buffer.from(app.secretHash, 'hex'), Buffer.from(sha256(secret), 'hex'));
}

export async function findApp(ctx: Ctx, id: string): Promise<OAuthApp> {
  const app = await ctx.em.findOne(OAuthApp, { id });
  if (!app) throw notFound('app');
  return app;
}

export const isOwner = (actor: Actor, app: OAuthApp) => actor.kind === 'session' && actor.userId === app.ownerId;

/** Anyone signed in may see an app (consent screens need it); only its owner's sessions change it. */
async function ownedApp(ctx: Ctx, id: string): Promise<OAuthApp> {
  const actor = requireActor(ctx);
  const app = await findApp(ctx, id);
  if (!isOwner(actor, app)) throw forbidden('Only the owner of this app may change it');
  return app;
}

export async function createApp(
  ctx: Ctx,
  input: { name: string; description?: string | null; homepageUrl?: string | null; redirectUris: string[]; scopes: string[] },
): Promise<AppWithSecretType> {
  const actor = requireActor(ctx);
  const secret = newSecret();
  return transaction(ctx, async (tx) => {
    const app = tx.em.create(OAuthApp, {
      ownerId: actor.userId,
      name: input.name.trim(),
      description: input.description ?? null,
      homepageUrl: input.homepageUrl ?? null,
      redirectUris: [...new Set(input.redirectUris)],
      scopes: [...new Set(input.scopes)],
      secretHash: sha256(secret),
    });
    await tx.em.flush();
    return withSecret(app, secret);
  });
}

export async function listApps(ctx: Ctx, args: { limit?: number | null; cursor?: string | null }) {
  const actor = requireActor(ctx);
  const limit = pageLimit(args.limit);
  const apps = await ctx.em.find(
    OAuthApp,
    { ownerId: actor.userId, ...(args.cursor ? { id: { $lt: args.cursor } } : {}) },
    { orderBy: { id: 'desc' }, limit: limit + 1 },
  );
  return page(apps.map(view), limit);
}

export async function getApp(ctx: Ctx, id: string): Promise<AppType> {
  requireActor(ctx);
  return view(await findApp(ctx, id));
}

/** Narrowing scopes does not touch tokens already granted; revoking them is the user's call. */
export async function updateApp(
  ctx: Ctx,
  id: string,
  input: { name?: string | null; description?: string | null; homepageUrl?: string | null; redirectUris?: string[] | null; scopes?: string[] | null },
): Promise<AppType> {
  return transaction(ctx, async (tx) => {
    const app = await ownedApp(tx, id);
    if (input.name != null) app.name = input.name.trim();
    if (input.description !== undefined) app.description = input.description;
    if (input.homepageUrl !== undefined) app.homepageUrl = input.homepageUrl;
    if (input.redirectUris != null) app.redirectUris = [...new Set(input.redirectUris)];
    if (input.scopes != null) app.scopes = [...new Set(input.scopes)];
    await tx.em.flush();
    return view(app);
  });
}

/** Its tokens, codes and data go with it (foreign keys cascade). */
export async function deleteApp(ctx: Ctx, id: string): Promise<void> {
  await transaction(ctx, async (tx) => {
    const app = await ownedApp(tx, id);
    await tx.em.nativeDelete(OAuthApp, { id: app.id });
  });
}

export async function regenerateSecret(ctx: Ctx, id: string): Promise<AppWithSecretType> {
  const secret = newSecret();
  return transaction(ctx, async (tx) => {
    const app = await ownedApp(tx, id);
    app.secretHash = sha256(secret);
    await tx.em.flush();
    return withSecret(app, secret);
  });
}
