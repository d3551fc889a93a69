import { forbidden, invalid } from '../../../src/core/errors.js';
import { pageArgs, pageList, findRoute, deleteRoute } from '../pages.js';
import { BY_ID, PAGE_PARAMS, type Call, type FeeefRoute } from '../route.js';
import { anyObj, input, obj, pageOf, str, strs } from '../schema.js';
import { APP, appInput, appSchema, mapInput, toApp } from '../shapes.js';

/**
 * Feeef's developer apps. The client id is the app id; app data is kept as one object per
 * scope of visibility: Feeef's `public` and `private` namespaces are Souk's public and private
 * data; a user's data for an app has three parts: `public` (the user and the app), `private`
 * (the app and its owner only) and `protected` (the app writes, the user reads).
 */

const owner = (call: Call) => call.ctx.actor?.userId ?? null;

function appData(call: Call, key: 'public' | 'private'): Record<string, unknown> {
  const { [key]: value, ...rest } = call.body;
  if (Object.keys(rest).length) throw invalid(Object.keys(rest)[0], 'is not a known field');
  if (value === undefined || value === null || typeof value !== 'object' || Array.isArray(value)) throw invalid(key, 'is required: an object of namespaces');
  return value as Record<string, unknown>;
}

const dataOf = (key: 'public' | 'private') => obj({ [key]: anyObj });
const USER_DATA_SEEN = 'public protected';
const USER_DATA_ALL = 'public private protected';
const listParams = { ...PAGE_PARAMS, q: { type: 'string' as const, description: 'Not supported by Souk: refused when given' }, filterator: { type: 'string' as const }, userId: { type: 'string' as const }, active: { type: 'boolean' as const } };

export const routes: FeeefRoute[] = [
  {
    method: 'GET',
    path: '/apps',
    summary: "The caller's apps, a page at a time (userId must be the caller; active apps only)",
    operation: `query($limit: Int, $cursor: String) { apps(limit: $limit, cursor: $cursor) { data { ${APP} } nextCursor } }`,
    query: listParams,
    response: pageOf(appSchema),
    handle: async (call) => {
      const userId = call.query.string('userId');
      if (userId !== undefined && userId !== owner(call)) throw invalid('userId', "must be the caller's id: Souk lists only your own apps");
      for (const k of ['q', 'filterator']) if (call.query.has(k)) throw invalid(k, 'is not supported: Souk lists all of your apps');
      const active = call.query.boolean('active');
      return pageList(pageArgs(call.query), (cursor, limit) => call.run({ cursor, limit }), {
        map: (a: Record<string, unknown>) => toApp(a, owner(call)),
        filter: active === false ? () => false : null,
      });
    },
  },
  {
    method: 'POST',
    path: '/apps',
    summary: 'Register an app; the client secret is in this answer only (logoUrl is accepted, not kept)',
    operation: `mutation($input: AppCreateInput!) { createApp(input: $input) { ${APP} clientSecret } }`,
    status: 201,
    body: input({ name: str, redirectUris: strs, scopes: strs, logoUrl: str, userId: str, description: str, homepageUrl: str }, ['name', 'redirectUris']),
    response: appSchema,
    handle: async (call) => {
      const { __userId, ...mapped } = mapInput(call.body, appInput);
      if (__userId !== undefined && __userId !== owner(call)) throw invalid('userId', "must be the caller's id: apps belong to the user who registers them");
      return toApp(await call.run({ input: { scopes: [], ...mapped } }), owner(call));
    },
  },
  findRoute({
    path: '/apps/{id}',
    summary: 'Show an app (any signed-in user, as for consent screens)',
    operation: `query($id: ID!) { app(id: $id) { ${APP} } }`,
    prefixes: [],
    query: BY_ID,
    map: (a) => toApp(a, null),
    response: appSchema,
  }),
  {
    method: 'PUT',
    path: '/apps/{id}',
    summary: 'Change the given fields of an app (its owner)',
    operation: `mutation($id: ID!, $input: AppUpdateInput!) { updateApp(id: $id, input: $input) { ${APP} } }`,
    body: input({ name: str, redirectUris: strs, scopes: strs, logoUrl: { type: ['string', 'null'] }, active: { type: 'boolean' }, description: str, homepageUrl: str }),
    response: appSchema,
    handle: async (call) => {
      const { __userId, ...mapped } = mapInput(call.body, appInput);
      if (__userId !== undefined) throw invalid('userId', 'cannot be changed');
      return toApp(await call.run({ id: call.params.id, input: mapped }), owner(call));
    },
  },
  deleteRoute({ path: '/apps/{id}', summary: 'Delete an app; its tokens stop working', operation: 'mutation($id: ID!) { deleteApp(id: $id) }', prefixes: [], query: BY_ID }),
  {
    method: 'POST',
    path: '/apps/{id}/regenerate-secret',
    summary: 'A new client secret, in this answer only; the old one stops working',
    operation: `mutation($id: ID!) { regenerateAppSecret(id: $id) { ${APP} clientSecret } }`,
    response: appSchema,
    handle: async (call) => toApp(await call.run({ id: call.params.id }), owner(call)),
  },
  {
    method: 'GET',
    path: '/apps/{id}/public-data',
    summary: "The app's public namespaces: {public}",
    operation: 'query($id: ID!) { appPublicData(id: $id) }',
    response: dataOf('public'),
    handle: async (call) => ({ public: await call.run({ id: call.params.id }) }),
  },
  {
    method: 'PUT',
    path: '/apps/{id}/public-data',
    summary: "Replace the app's public namespaces {public} (its owner; 64 KiB max)",
    operation: 'mutation($id: ID!, $data: JSONObject!) { setAppPublicData(id: $id, data: $data) }',
    body: input({ public: anyObj }, ['public']),
    response: dataOf('public'),
    handle: async (call) => ({ public: await call.run({ id: call.params.id, data: appData(call, 'public') }) }),
  },
  {
    method: 'GET',
    path: '/apps/{id}/private-data',
    summary: "The app's private namespaces: {private} (its owner or its own tokens)",
    operation: 'query($id: ID!) { appPrivateData(id: $id) }',
    response: dataOf('private'),
    handle: async (call) => ({ private: await call.run({ id: call.params.id }) }),
  },
  {
    method: 'PUT',
    path: '/apps/{id}/private-data',
    summary: "Replace the app's private namespaces {private} (64 KiB max)",
    operation: 'mutation($id: ID!, $data: JSONObject!) { setAppPrivateData(id: $id, data: $data) }',
    body: input({ private: anyObj }, ['private']),
    response: dataOf('private'),
    handle: async (call) => ({ private: await call.run({ id: call.params.id, data: appData(call, 'private') }) }),
  },
  {
    method: 'GET',
    path: '/apps/{id}/user-data/me',
    summary: "The caller's data for this app: {public, protected} (protected is the app's to write; the private part is never shown to the user)",
    operation: `query($id: ID!) { myAppDataSet(id: $id) { ${USER_DATA_SEEN} } }`,
    response: obj({ public: anyObj, protected: anyObj }),
    handle: async (call) => call.run({ id: call.params.id }),
  },
  {
    method: 'PUT',
    path: '/apps/{id}/user-data/me',
    summary: "Replace the caller's public namespaces for this app {public} (64 KiB max); protected and private are the app's to write: 403",
    operation: 'mutation($id: ID!, $data: JSONObject!) { setMyAppData(id: $id, data: $data) }',
    body: input({ public: anyObj, protected: anyObj, private: anyObj }, ['public']),
    response: dataOf('public'),
    handle: async (call) => {
      for (const k of ['protected', 'private'] as const) {
        if (call.body[k] !== undefined) throw forbidden(`${k}: a user's ${k} namespaces are written by the app (PUT /apps/{id}/user-data/users/{userId}), not by the user`);
      }
      return { public: await call.run({ id: call.params.id, data: appData(call, 'public') }) };
    },
  },
  {
    method: 'GET',
    path: '/apps/{id}/user-data/users/{userId}',
    summary: "A connected user's data for this app: {public, private, protected} (the owner or the app itself)",
    operation: `query($id: ID!, $userId: ID!) { appUserDataSet(id: $id, userId: $userId) { ${USER_DATA_ALL} } }`,
    response: obj({ public: anyObj, private: anyObj, protected: anyObj }),
    handle: async (call) => call.run({ id: call.params.id, userId: call.params.userId }),
  },
  {
    method: 'PUT',
    path: '/apps/{id}/user-data/users/{userId}',
    summary: "Replace the given parts {public, private, protected} of a connected user's data for this app (the owner or the app itself; each 64 KiB max; an absent part stays)",
    operation: `mutation($id: ID!, $userId: ID!, $input: AppUserDataSetInput!) { setAppUserDataSet(id: $id, userId: $userId, input: $input) { ${USER_DATA_ALL} } }`,
    body: input({ public: anyObj, private: anyObj, protected: anyObj }),
    response: obj({ public: anyObj, private: anyObj, protected: anyObj }),
    handle: async (call) => {
      const unknown = Object.keys(call.body).find((k) => !['public', 'private', 'protected'].includes(k));
      if (unknown) throw invalid(unknown, 'is not a known field');
      const parts: Record<string, unknown> = {};
      for (const k of ['public', 'private', 'protected'] as const) {
        const v = call.body[k];
        if (v === undefined) continue;
        if (v === null || typeof v !== 'object' || Array.isArray(v)) throw invalid(k, 'must be an object of namespaces');
        parts[k] = v;
      }
      return call.run({ id: call.params.id, userId: call.params.userId, input: parts });
    },
  },
];
