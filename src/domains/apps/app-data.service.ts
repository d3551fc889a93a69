import { AppUserData, OAuthApp } from './app.entity.js';
import { AuthToken } from '../auth/token.entity.js';
import { AppError, forbidden, notFound } from '../../core/errors.js';
import { requireActor, type Actor, type Ctx } from '../../core/context.js';
import { transaction } from '../../core/tx.js';
import { assertJsonLimits, JSON_MAX_DEPTH } from '../../core/input.js';
import { liveTokenFilter } from '../auth/token.service.js';
import { findApp, isOwner } from './app.service.js';

type Json = Record<string, unknown>;
export const APP_DATA_MAX_BYTES = 64 * 1024;

function checkSize(data: Json) {
  // Depth first: a document nested beyond the limit is refused before anything serializes it.
  assertJsonLimits(data, 'data', { maxDepth: JSON_MAX_DEPTH });
  if (Buffer.byteLength(JSON.stringify(data), 'utf8') > APP_DATA_MAX_BYTES) {
    throw new AppError('PAYLOAD_TOO_LARGE', `App data is limited to ${APP_DATA_MAX_BYTES} bytes of JSON`);
  }
}

/** The app acting through one of its tokens, whichever user granted it. */
const isAppItself = (actor: Actor, app: OAuthApp) => actor.kind === 'oauth' && actor.appId === app.id;

export async function getPublicData(ctx: Ctx, id: string): Promise<Json> {
  requireActor(ctx);
  return (await findApp(ctx, id)).publicData;
}

export async function setPublicData(ctx: Ctx, id: string, data: Json): Promise<Json> {
  const actor = requireActor(ctx);
  checkSize(data);
  return transaction(ctx, async (tx) => {
    const app = await findApp(tx, id);
    if (!isOwner(actor, app)) throw forbidden("Only the app's owner writes its public data");
    app.publicData = data;
    await tx.em.flush();
    return app.publicData;
  });
}

async function privateApp(ctx: Ctx, id: string): Promise<OAuthApp> {
  const actor = requireActor(ctx);
  const app = await findApp(ctx, id);
  if (!isOwner(actor, app) && !isAppItself(actor, app)) throw forbidden("Only the app's owner or the app itself reads and writes its private data");
  return app;
}

export async function getPrivateData(ctx: Ctx, id: string): Promise<Json> {
  return (await privateApp(ctx, id)).privateData;
}

export async function setPrivateData(ctx: Ctx, id: string, data: Json): Promise<Json> {
  checkSize(data);
  return transaction(ctx, async (tx) => {
    const app = await privateApp(tx, id);
    app.privateData = data;
    await tx.em.flush();
    return app.privateData;
  });
}

/** A session keeps its own data for any app; an app token only for its own app. */
async function myDataApp(ctx: Ctx, id: string): Promise<{ actor: Actor; app: OAuthApp }> {
  const actor = requireActor(ctx);
  const app = await findApp(ctx, id);
  if (actor.kind === 'oauth' && !isAppItself(actor, app)) throw forbidden("An app token reaches only its own app's data");
  return { actor, app };
}

async function readUserData(ctx: Ctx, appId: string, userId: string): Promise<Json> {
  return (await ctx.em.findOne(AppUserData, { appId, userId }))?.data ?? {};
}

async function writeUserData(ctx: Ctx, appId: string, userId: string, data: Json): Promise<Json> {
  await ctx.em.upsert(AppUserData, { appId, userId, data, updatedAt: new Date() });
  return data;
}

export async function getMyData(ctx: Ctx, id: string): Promise<Json> {
  const { actor, app } = await myDataApp(ctx, id);
  return readUserData(ctx, app.id, actor.userId);
}

export async function setMyData(ctx: Ctx, id: string, data: Json): Promise<Json> {
  checkSize(data);
  return transaction(ctx, async (tx) => {
    const { actor, app } = await myDataApp(tx, id);
    return writeUserData(tx, app.id, actor.userId, data);
  });
}

/**
 * The owner, or the app itself, reaches the data of a user who has connected the app
 * (holds a live token of it); other users are not revealed (404).
 */
async function connectedUser(ctx: Ctx, id: string, userId: string): Promise<OAuthApp> {
  const actor = requireActor(ctx);
  const app = await findApp(ctx, id);
  if (!isOwner(actor, app) && !isAppItself(actor, app)) throw forbidden("Only the app's owner or the app itself reads its users' data");
  const connected = await ctx.em.count(AuthToken, { appId: app.id, userId, ...liveTokenFilter() });
  if (!connected) throw notFound('user of this app');
  return app;
}

export async function getUserData(ctx: Ctx, id: string, userId: string): Promise<Json> {
  const app = await connectedUser(ctx, id, userId);
  return readUserData(ctx, app.id, userId);
}

export async function setUserData(ctx: Ctx, id: string, userId: string, data: Json): Promise<Json> {
  checkSize(data);
  return transaction(ctx, async (tx) => {
    const app = await connectedUser(tx, id, userId);
    return writeUserData(tx, app.id, userId, data);
  });
}
