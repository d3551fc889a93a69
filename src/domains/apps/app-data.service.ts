import { AppUserData, OAuthApp } from './app.entity.js';
import { AuthToken } from '../auth/token.entity.js';
import { AppError, forbidden, invalid, notFound } from '../../core/errors.js';
import { requireActor, type Actor, type Ctx } from '../../core/context.js';
import { transaction } from '../../core/tx.js';
import { assertJsonLimits, JSON_MAX_DEPTH } from '../../core/input.js';
import { liveTokenFilter } from '../auth/token.service.js';
import { findApp, isOwner } from './app.service.js';

type Json = Record<string, unknown>;
export const APP_DATA_MAX_BYTES = 64 * 1024;

function checkSize(data: Json, path = 'data') {
  // Depth first: a document nested beyond the limit is refused before anything serializes it.
  assertJsonLimits(data, path, { maxDepth: JSON_MAX_DEPTH });
  if (Buffer.byteLength(JSON.stringify(data), 'utf8') > APP_DATA_MAX_BYTES) {
    const message = `is limited to ${APP_DATA_MAX_BYTES} bytes of JSON`;
    throw new AppError('PAYLOAD_TOO_LARGE', path === 'data' ? `App data ${message}` : `${path}: ${message}`, path === 'data' ? undefined : [{ path, message }]);
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

/** A user's data for an app by visibility: the column each part is kept in. */
export const USER_DATA_PARTS = { public: 'data', private: 'private_data', protected: 'protected_data' } as const;
export type UserDataPart = keyof typeof USER_DATA_PARTS;
export type UserDataSet = Record<UserDataPart, Json>;

async function readUserDataSet(ctx: Ctx, appId: string, userId: string): Promise<UserDataSet> {
  const row = await ctx.em.findOne(AppUserData, { appId, userId });
  return { public: row?.data ?? {}, private: row?.privateData ?? {}, protected: row?.protectedData ?? {} };
}

async function readUserData(ctx: Ctx, appId: string, userId: string): Promise<Json> {
  return (await readUserDataSet(ctx, appId, userId)).public;
}

/**
 * Replaces the given parts, leaving the others as they are; one statement, so the first write of
 * a user races no other into a duplicate row.
 */
async function writeUserDataSet(ctx: Ctx, appId: string, userId: string, parts: Partial<UserDataSet>): Promise<UserDataSet> {
  const given = (Object.keys(USER_DATA_PARTS) as UserDataPart[]).filter((p) => parts[p] !== undefined && parts[p] !== null);
  if (!given.length) return readUserDataSet(ctx, appId, userId);
  const columns = given.map((p) => USER_DATA_PARTS[p]);
  const [row] = await ctx.em.execute<Array<{ data: Json; private_data: Json; protected_data: Json }>>(
    `insert into app_user_data (app_id, user_id, ${columns.join(', ')}, updated_at)
     values (?, ?, ${columns.map(() => 'cast(? as jsonb)').join(', ')}, now())
     on conflict (app_id, user_id) do update set ${columns.map((c) => `${c} = excluded.${c}`).join(', ')}, updated_at = excluded.updated_at
     returning data, private_data, protected_data`,
    [appId, userId, ...given.map((p) => JSON.stringify(parts[p]))],
  );
  return { public: row.data, private: row.private_data, protected: row.protected_data };
}

async function writeUserData(ctx: Ctx, appId: string, userId: string, data: Json): Promise<Json> {
  return (await writeUserDataSet(ctx, appId, userId, { public: data })).public;
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

/** The user's own view of their data for this app: the public part and the protected part the app wrote. */
export async function getMyDataSet(ctx: Ctx, id: string): Promise<Omit<UserDataSet, 'private'>> {
  const { actor, app } = await myDataApp(ctx, id);
  const { private: _hidden, ...seen } = await readUserDataSet(ctx, app.id, actor.userId);
  return seen;
}

export async function getUserDataSet(ctx: Ctx, id: string, userId: string): Promise<UserDataSet> {
  const app = await connectedUser(ctx, id, userId);
  return readUserDataSet(ctx, app.id, userId);
}

/** The owner or the app itself replaces the given parts of a connected user's data; the others stay. */
export async function setUserDataSet(ctx: Ctx, id: string, userId: string, parts: Partial<Record<UserDataPart, unknown>>): Promise<UserDataSet> {
  const checked: Partial<UserDataSet> = {};
  for (const part of Object.keys(USER_DATA_PARTS) as UserDataPart[]) {
    const value = parts[part];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'object' || Array.isArray(value)) throw invalid(part, 'must be a JSON object');
    checkSize(value as Json, part);
    checked[part] = value as Json;
  }
  return transaction(ctx, async (tx) => {
    const app = await connectedUser(tx, id, userId);
    return writeUserDataSet(tx, app.id, userId, checked);
  });
}
