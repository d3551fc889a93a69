import { createContext } from '../../../src/core/context.js';
import { invalid } from '../../../src/core/errors.js';
import { ProblemError } from '../../router.js';
import { pageArgs, pageList, scan, SCAN_LIMIT, type SoukPage, findRoute, deleteRoute } from '../pages.js';
import { BY_ID, PAGE_PARAMS, type Call, type FeeefRoute } from '../route.js';
import { arr, bool, input, int, nstr, obj, str, strs, time, anyObj, pageOf } from '../schema.js';
import { accessTokenSchema, authResponseSchema, authToken, authTokenSchema, mapInput, toAccessToken, TOKEN, toUser, USER, userSchema } from '../shapes.js';

/**
 * Feeef's identity routes (`users`, `users/auth`, `oauth`) over Souk's auth, token, user and app
 * fields. Feeef's `users/auth/code` is a cross-device sign-in code, which is Souk's session
 * transfer; Feeef's `users/auth/transfer` moves wallet money (501 in unsupported.ts).
 */

const SIGNUP = `mutation($input: SignupInput!) { signup(input: $input) { token user { ${USER} } } }`;
const SIGNIN = `mutation($input: SigninInput!) { signin(input: $input) { token user { ${USER} } } }`;
const SIGNOUT = 'mutation { signout }';
const ME = `query { me { ${USER} } }`;
const MY_TOKENS = `query($limit: Int, $cursor: String) { myTokens(limit: $limit, cursor: $cursor) { data { ${TOKEN} } nextCursor } }`;
const UPDATE_ME = `mutation($input: MeUpdateInput!) { updateMe(input: $input) { ${USER} } }`;
const TRANSFER = `mutation($input: TransferInput) { transferSession(input: $input) { ... on TransferCode { code expiresAt } ... on AuthPayload { token user { ${USER} } } } }`;
const CONSUME = 'mutation($input: CodeConsumeInput!) { consumeAuthorizationCode(input: $input) { accessToken tokenType scopes expiresIn } }';

/** A new session's token as Feeef answers it: sessions expire SOUK_SESSION_TTL after their last use. */
function sessionToken(call: Call, token: string) {
  return authToken(token, { name: null, lastUsedAt: new Date().toISOString(), expiresAt: new Date(Date.now() + call.ctx.deps.config.sessionTtlMs).toISOString() });
}

const authAnswer = (call: Call, v: { token: string; user: Record<string, unknown> }) => ({ token: sessionToken(call, v.token), user: toUser(v.user) });

/** Every live token of the caller (Feeef lists them whole). */
async function allTokens(call: Call, authorization?: string) {
  const { rows } = await scan<Record<string, any>>(
    (cursor, limit) => call.run({ cursor, limit }, { operation: MY_TOKENS, ...(authorization ? { authorization } : {}) }) as Promise<SoukPage<Record<string, any>>>,
    SCAN_LIMIT,
  );
  return rows;
}

/** The token of this request in Feeef's shape; the bearer itself is echoed so the SDK keeps its header. */
async function currentToken(call: Call) {
  const actor = call.ctx.actor;
  // App tokens cannot list tokens (sessions only); their abilities are their scopes.
  if (actor?.kind === 'oauth') return authToken(call.bearer, { scopes: actor.scopes });
  const current = (await allTokens(call)).find((t) => t.current);
  return authToken(call.bearer, current ?? {});
}

/** Feeef's OAuth answers (RFC 6749 snake_case); a form body arrives as an object of strings. */
function formField(call: Call, key: string, required = true): string | undefined {
  const v = call.body[key];
  if (v === undefined || v === '') {
    if (required) throw invalid(key, 'is required');
    return undefined;
  }
  if (typeof v !== 'string') throw invalid(key, 'must be a string');
  return v;
}

const signupInput = { referral: null, name: 'name', email: 'email', phone: null, password: 'password', photoUrl: null, fcmToken: null };

export const routes: FeeefRoute[] = [
  {
    method: 'POST',
    path: '/users/auth/signup',
    summary: 'Create an account: {token, user}; referral, phone, photoUrl and fcmToken are accepted, not kept',
    operation: SIGNUP,
    status: 201,
    body: input({ name: str, email: str, password: str, phone: str, photoUrl: str, referral: nstr, fcmToken: nstr }, ['name', 'email', 'password']),
    response: authResponseSchema,
    handle: async (call) => authAnswer(call, await call.run({ input: mapInput(call.body, signupInput) })),
  },
  {
    method: 'POST',
    path: '/users/auth/signin',
    summary: 'Sign in with email and password: {token, user}',
    operation: SIGNIN,
    body: input({ email: str, password: str, fcmToken: nstr }, ['email', 'password']),
    response: authResponseSchema,
    handle: async (call) => authAnswer(call, await call.run({ input: mapInput(call.body, { email: 'email', password: 'password', fcmToken: null }) })),
  },
  {
    method: 'POST',
    path: '/users/auth/signout',
    summary: 'Revoke the token of this request (a body-less form POST, as the SDK sends it)',
    operation: SIGNOUT,
    status: 204,
    handle: async (call) => {
      await call.run({});
    },
  },
  {
    method: 'GET',
    path: '/users/auth',
    summary: 'The signed-in user and this request token: {user, token}',
    operation: ME,
    operations: [MY_TOKENS],
    response: obj({ user: userSchema, token: authTokenSchema }),
    handle: async (call) => ({ user: toUser(await call.run({})), token: await currentToken(call) }),
  },
  {
    method: 'PUT',
    path: '/users/auth',
    summary: "Change the caller's name, email or password (newPassword with oldPassword); answers the user",
    operation: UPDATE_ME,
    body: input({ name: str, email: str, phone: str, photoUrl: str, oldPassword: str, newPassword: str }),
    response: userSchema,
    handle: async (call) =>
      toUser(await call.run({ input: mapInput(call.body, { name: 'name', email: 'email', oldPassword: 'currentPassword', newPassword: 'password', phone: null, photoUrl: null }) })),
  },
  {
    method: 'POST',
    path: '/users/auth/reset-password',
    summary: 'Mail a password reset link to ?email= (202 whether or not it has an account)',
    operation: 'mutation($input: ResetRequestInput!) { requestPasswordReset(input: $input) { accepted message } }',
    query: { email: { type: 'string' } },
    status: 202,
    body: input({ email: str }),
    response: obj({ accepted: bool, message: str }),
    handle: async (call) => {
      const email = call.query.string('email') ?? formField(call, 'email');
      return call.run({ input: { email } });
    },
  },
  {
    method: 'GET',
    path: '/users/auth/reset-password',
    summary: 'Whether the reset ?token= from the mail is still valid (uid is accepted, not needed)',
    operation: 'query($token: String!) { passwordResetStatus(token: $token) { valid expiresAt } }',
    query: { token: { type: 'string' }, uid: { type: 'string' } },
    response: obj({ valid: bool, expiresAt: { type: ['string', 'null'], format: 'date-time' } }),
    handle: async (call) => {
      const token = call.query.string('token');
      if (!token) throw invalid('token', 'is required');
      return call.run({ token });
    },
  },
  {
    method: 'GET',
    path: '/users/auth/tokens',
    summary: "The caller's live tokens as a bare array (never the token itself)",
    operation: MY_TOKENS,
    response: arr(accessTokenSchema),
    handle: async (call) => (await allTokens(call)).map(toAccessToken),
  },
  {
    method: 'DELETE',
    path: '/users/auth/tokens/{identifier}',
    summary: 'Revoke a token by its identifier (or every token of an app by the app id)',
    operation: 'mutation($identifier: ID!) { revokeToken(identifier: $identifier) }',
    status: 204,
    handle: async (call) => {
      await call.run({ identifier: call.params.identifier });
    },
  },
  {
    method: 'POST',
    path: '/users/auth/tokens/revoke-all',
    summary: 'Sign out everywhere: every token of the caller, this one included → {revoked, total}',
    operation: 'mutation($input: RevokeAllInput) { revokeAllTokens(input: $input) { revoked } }',
    response: obj({ revoked: int, total: int }),
    handle: async (call) => {
      const { revoked } = await call.run({ input: { includeCurrent: true } });
      return { revoked, total: revoked };
    },
  },
  {
    method: 'GET',
    path: '/users/auth/connected-apps',
    summary: 'Apps holding live tokens of the caller, as a bare array',
    operation: 'query { connectedApps { app { id name } scopes connectedAt lastUsedAt } }',
    response: arr(obj({ appId: str, name: str, logoUrl: { type: 'null' }, connectedAt: time, scopes: strs })),
    handle: async (call) =>
      ((await call.run({})) as Array<Record<string, any>>).map((c) => ({
        appId: c.app.id,
        name: c.app.name,
        logoUrl: null,
        connectedAt: c.connectedAt,
        lastUsedAt: c.lastUsedAt,
        scopes: c.scopes,
      })),
  },
  {
    method: 'POST',
    path: '/users/auth/code',
    summary: "A short-lived, single-use sign-in code for another device (Souk's session transfer, 5 minutes)",
    operation: TRANSFER,
    body: input({ redirect: nstr }),
    response: obj({ authCode: str, expiresInSeconds: int, redirect: nstr }),
    handle: async (call) => {
      const { redirect } = mapInput(call.body, { redirect: 'redirect' });
      if (redirect != null && typeof redirect !== 'string') throw invalid('redirect', 'must be a string');
      const v = await call.run({ input: {} });
      return { authCode: v.code, expiresInSeconds: Math.max(0, Math.round((Date.parse(v.expiresAt) - Date.now()) / 1000)), redirect: redirect ?? null };
    },
  },
  {
    method: 'POST',
    path: '/users/auth/code/consume',
    summary: 'Sign in with a code from /users/auth/code: {token, user}',
    operation: TRANSFER,
    body: input({ authCode: str }, ['authCode']),
    response: authResponseSchema,
    handle: async (call) => {
      const { code } = mapInput(call.body, { authCode: 'code' });
      if (typeof code !== 'string' || !code) throw invalid('authCode', 'is required');
      return authAnswer(call, await call.run({ input: { code } }, { authorization: null }));
    },
  },
  // Users (platform administration, and a user's own account).
  {
    method: 'GET',
    path: '/users',
    summary: 'Every account (platform admins) or only the caller, a page at a time',
    operation: 'query($limit: Int, $cursor: String) { users(limit: $limit, cursor: $cursor) { data { ' + USER + ' } nextCursor } }',
    query: PAGE_PARAMS,
    response: pageOf(userSchema),
    handle: async (call) => pageList(pageArgs(call.query), (cursor, limit) => call.run({ cursor, limit }), { map: toUser }),
  },
  {
    method: 'POST',
    path: '/users',
    summary: 'Create an account (platform admins); Feeef-only fields (phone, photo, verification dates, balance) are accepted, not kept',
    operation: `mutation($input: UserCreateInput!) { createUser(input: $input) { ${USER} } }`,
    status: 201,
    body: input({ name: str, email: str, password: str, phone: str, photoUrl: str, metadata: anyObj }, ['name', 'email', 'password']),
    response: userSchema,
    handle: async (call) => {
      const mapped = mapInput(call.body, {
        name: 'name',
        email: 'email',
        password: 'password',
        platformRole: 'platformRole',
        ...Object.fromEntries(['phone', 'photoUrl', 'metadata', 'emailVerifiedAt', 'phoneVerifiedAt', 'verifiedAt', 'blockedAt', 'createdByAdmin', 'initialBalance'].map((k) => [k, null])),
      });
      return toUser(await call.run({ input: mapped }));
    },
  },
  findRoute({ path: '/users/{id}', summary: 'Show an account (admins: any; others: their own)', operation: `query($id: ID!) { user(id: $id) { ${USER} } }`, prefixes: [], query: BY_ID, map: toUser, response: userSchema }),
  {
    method: 'PUT',
    path: '/users/{id}',
    summary: 'Change the given fields of an account (partial); password_confirmation must match',
    operation: `mutation($id: ID!, $input: UserUpdateInput!) { updateUser(id: $id, input: $input) { ${USER} } }`,
    body: input({ name: str, email: str, password: str, password_confirmation: str, phone: str, photoUrl: str, metadata: anyObj }),
    response: userSchema,
    handle: async (call) => {
      const { password_confirmation: confirmation, ...rest } = call.body;
      if (confirmation !== undefined && confirmation !== rest.password) throw invalid('password_confirmation', 'must match password');
      const mapped = mapInput(rest, {
        name: 'name',
        email: 'email',
        password: 'password',
        currentPassword: 'currentPassword',
        platformRole: 'platformRole',
        ...Object.fromEntries(['phone', 'photoUrl', 'metadata', 'emailVerifiedAt', 'phoneVerifiedAt', 'verifiedAt', 'blockedAt'].map((k) => [k, null])),
      });
      return toUser(await call.run({ id: call.params.id, input: mapped }));
    },
  },
  deleteRoute({
    path: '/users/{id}',
    summary: 'Delete an account with its tokens and memberships (409 for the last owner of a store)',
    operation: 'mutation($id: ID!) { deleteUser(id: $id) }',
    prefixes: [],
    query: BY_ID,
  }),
  // OAuth: RFC 6749 forms with snake_case answers.
  {
    method: 'POST',
    path: '/oauth/token',
    summary: 'Exchange an authorization code (grant_type=authorization_code, PKCE) for an access token; a form',
    operation: CONSUME,
    body: input({ grant_type: str, code: str, redirect_uri: str, client_id: str, client_secret: str, code_verifier: str }, ['grant_type', 'code', 'redirect_uri', 'client_id']),
    response: obj({ access_token: str, token_type: str, expires_in: int, scope: str }),
    handle: async (call) => {
      mapInput(call.body, { grant_type: null, code: null, redirect_uri: null, client_id: null, client_secret: null, code_verifier: null });
      if (formField(call, 'grant_type') !== 'authorization_code') throw invalid('grant_type', 'must be authorization_code');
      const v = await call.run(
        {
          input: {
            code: formField(call, 'code'),
            redirectUri: formField(call, 'redirect_uri'),
            clientId: formField(call, 'client_id'),
            // Souk's apps are confidential clients: the secret is required with PKCE.
            clientSecret: formField(call, 'client_secret'),
            codeVerifier: formField(call, 'code_verifier'),
          },
        },
        { authorization: null },
      );
      return { access_token: v.accessToken, token_type: v.tokenType, expires_in: v.expiresIn, scope: (v.scopes as string[]).join(' ') };
    },
  },
  {
    method: 'POST',
    path: '/oauth/revoke',
    summary: 'Revoke the token given in the form (RFC 7009: an unknown token is not an error) → {revoked}',
    operation: SIGNOUT,
    body: input({ token: str, token_type_hint: str }, ['token']),
    response: obj({ revoked: bool }),
    handle: async (call) => {
      mapInput(call.body, { token: null, token_type_hint: null });
      const token = formField(call, 'token')!;
      try {
        await call.run({}, { authorization: `Bearer ${token}` });
        return { revoked: true };
      } catch (err) {
        if (err instanceof ProblemError && err.problem.code === 'UNAUTHENTICATED') return { revoked: false };
        throw err;
      }
    },
  },
  {
    method: 'POST',
    path: '/oauth/introspect',
    summary: 'Whether the token given in the form is live, with its scopes, app, user and expiry (RFC 7662)',
    operation: ME,
    operations: [MY_TOKENS],
    body: input({ token: str }, ['token']),
    response: obj({ active: bool }),
    handle: async (call) => {
      mapInput(call.body, { token: null, token_type_hint: null });
      const authorization = `Bearer ${formField(call, 'token')}`;
      const other = await createContext(call.ctx.deps, authorization, call.ctx.ip);
      if (!other.actor) return { active: false };
      const { actor } = other;
      // `me` needs the profile scope of an app token; without it the token is live all the same.
      const user = await call.run({}, { authorization }).catch((err) => {
        if (err instanceof ProblemError && err.problem.code === 'FORBIDDEN') return null;
        throw err;
      });
      const current = actor.kind === 'session' ? (await allTokens(call, authorization)).find((t) => t.current) : undefined;
      return {
        active: true,
        scope: actor.scopes ? actor.scopes.join(' ') : '*',
        client_id: actor.appId,
        username: user?.email ?? null,
        token_type: 'bearer',
        exp: current?.expiresAt ? Math.floor(Date.parse(current.expiresAt) / 1000) : null,
      };
    },
  },
];

