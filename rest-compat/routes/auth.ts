import { dataEnvelope, group, route } from '../route.js';
import { APP_REF, TOKEN, USER } from './fragments.js';

export default group('auth', [
  route({
    method: 'POST',
    path: '/v1/users/auth/signup',
    summary: 'Create an account; a verification mail is sent',
    status: 201,
    operation: `mutation($input: SignupInput!) { signup(input: $input) { token user { ${USER} } } }`,
  }),
  route({
    method: 'POST',
    path: '/v1/users/auth/signin',
    summary: 'Sign in with email and password',
    operation: `mutation($input: SigninInput!) { signin(input: $input) { token user { ${USER} } } }`,
  }),
  route({
    method: 'POST',
    path: '/v1/users/auth/signout',
    summary: 'Revoke the token of this request',
    status: 204,
    operation: `mutation { signout }`,
  }),
  route({
    method: 'GET',
    path: '/v1/users/auth',
    summary: 'The signed-in user',
    operation: `query { me { ${USER} } }`,
  }),
  route({
    method: 'PUT',
    path: '/v1/users/auth',
    summary: "Change the caller's name, email (verified again) or password (needs currentPassword)",
    operation: `mutation($input: MeUpdateInput!) { updateMe(input: $input) { ${USER} } }`,
  }),
  route({
    method: 'GET',
    path: '/v1/users/auth/tokens',
    summary: "The caller's live tokens (never the token itself)",
    operation: `query($limit: Int, $cursor: String) { myTokens(limit: $limit, cursor: $cursor) { data { ${TOKEN} } nextCursor } }`,
  }),
  route({
    method: 'DELETE',
    path: '/v1/users/auth/tokens/{identifier}',
    summary: 'Revoke a token by id, or every token of an app by app id',
    status: 204,
    operation: `mutation($identifier: ID!) { revokeToken(identifier: $identifier) }`,
  }),
  route({
    method: 'POST',
    path: '/v1/users/auth/tokens/revoke-all',
    summary: 'Revoke every token but this one ({"includeCurrent": true}: this one too)',
    operation: `mutation($input: RevokeAllInput) { revokeAllTokens(input: $input) { revoked } }`,
  }),
  route({
    method: 'POST',
    path: '/v1/users/auth/transfer',
    summary: 'Signed in, no body: a 5-minute transfer code. Signed out with {code}: a new session',
    operation: `mutation($input: TransferInput) { transferSession(input: $input) { ... on TransferCode { code expiresAt } ... on AuthPayload { token user { ${USER} } } } }`,
  }),
  route({
    method: 'POST',
    path: '/v1/users/auth/verify-email/resend',
    summary: 'Mail a new verification link to the caller',
    status: 202,
    operation: `mutation { resendVerificationEmail { accepted message } }`,
  }),
  route({
    method: 'POST',
    path: '/v1/users/auth/verify-email/confirm',
    summary: 'Mark the email verified with the token from the link',
    operation: `mutation($input: TokenInput!) { confirmEmailVerification(input: $input) { ${USER} } }`,
  }),
  route({
    method: 'POST',
    path: '/v1/users/auth/reset-password',
    summary: 'Mail a password reset link (202 whether or not the email has an account)',
    status: 202,
    operation: `mutation($input: ResetRequestInput!) { requestPasswordReset(input: $input) { accepted message } }`,
  }),
  route({
    method: 'GET',
    path: '/v1/users/auth/reset-password',
    summary: 'Whether a reset token is still valid',
    operation: `query($token: String!) { passwordResetStatus(token: $token) { valid expiresAt } }`,
  }),
  route({
    method: 'POST',
    path: '/v1/auth/web/reset-password-confirm',
    summary: 'Set a new password with a reset token; every token of the user is revoked',
    operation: `mutation($input: ResetConfirmInput!) { confirmPasswordReset(input: $input) { passwordReset revokedTokens } }`,
  }),
  route({
    method: 'POST',
    path: '/v1/users/auth/code',
    summary: 'The signed-in user authorizes an app: an authorization code (PKCE S256, 10 minutes)',
    operation: `mutation($input: AuthorizationCodeInput!) { createAuthorizationCode(input: $input) { code redirectUri state expiresAt } }`,
  }),
  route({
    method: 'POST',
    path: '/v1/users/auth/code/consume',
    summary: 'The app exchanges a code, its client credentials and the PKCE verifier for an access token',
    operation: `mutation($input: CodeConsumeInput!) { consumeAuthorizationCode(input: $input) { accessToken tokenType scopes expiresIn } }`,
  }),
  route({
    method: 'POST',
    path: '/v1/users/auth/code/inspect',
    summary: 'Who granted a code, to which app and scopes, and whether it expired or was used',
    operation: `query($input: CodeInspectInput!) { inspectAuthorizationCode(input: $input) { user { id name } app { ${APP_REF} } scopes redirectUri expiresAt expired consumed } }`,
  }),
  route({
    method: 'GET',
    path: '/v1/users/auth/connected-apps',
    summary: 'Apps holding live tokens of the caller',
    operation: `query { connectedApps { app { ${APP_REF} } scopes tokenIds connectedAt lastUsedAt } }`,
    ...dataEnvelope,
  }),
]);
