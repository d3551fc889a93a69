import { createHash, randomBytes } from 'node:crypto';
import { signup, type Api } from './helpers.js';

const REDIRECT = 'https://catalog-app.example/callback';

/**
 * An OAuth access token that `userToken`'s user granted to a fresh app with `scopes`: it acts
 * for that user, within those scopes (scope ∩ role).
 */
export async function oauthToken(api: Api, userToken: string, scopes: string[]): Promise<string> {
  const dev = await signup(api, 'Developer');
  const app = await api('POST', '/v1/apps', { token: dev.token, body: { name: 'Catalog App', redirectUris: [REDIRECT], scopes: ['profile', ...scopes] } });
  if (app.status !== 201) throw new Error(`app create failed: ${app.status} ${app.text}`);
  const verifier = randomBytes(32).toString('base64url');
  const codeChallenge = createHash('sha256').update(verifier).digest('base64url');
  const code = await api('POST', '/v1/users/auth/code', {
    token: userToken,
    body: { appId: app.body.id, redirectUri: REDIRECT, scopes, state: 's', codeChallenge, codeChallengeMethod: 'S256' },
  });
  if (code.status !== 200) throw new Error(`authorize failed: ${code.status} ${code.text}`);
  const token = await api('POST', '/v1/users/auth/code/consume', {
    body: { code: code.body.code, clientId: app.body.id, clientSecret: app.body.clientSecret, redirectUri: REDIRECT, codeVerifier: verifier },
  });
  if (token.status !== 200) throw new Error(`token exchange failed: ${token.status} ${token.text}`);
  return token.body.accessToken;
}

/** A GraphQL call over HTTP. */
export async function gql(base: string, token: string | undefined, query: string, variables: Record<string, unknown> = {}): Promise<{ data?: any; errors?: any[] }> {
  const res = await fetch(`${base}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ query, variables }),
  });
  return res.json() as Promise<{ data?: any; errors?: any[] }>;
}
