import { group, route } from '../route.js';

const base = '/v1/stores/{storeId}/integrations/ads-platform';
const problem = (description: string) => ({ description, content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } });

export const ADS_CONNECTION = `status account { id name } grantedScopes tokenExpiresAt
  settings { adAccountId pixelId currency conversionsApi { enabled eventMap testEventCode accessToken { set last4 updatedAt } } }
  conversions { sent24h failed24h lastError }`;

export default group('ads-platform', [
  route({
    method: 'GET',
    path: base,
    summary: "The store's Meta connection: status (disconnected|connected|expired), account, scopes, settings and Conversions API outcomes of the last 24 h",
    operation: `query($storeId: ID!) { adsConnection(storeId: $storeId) { ${ADS_CONNECTION} } }`,
  }),
  route({
    method: 'GET',
    path: `${base}/ad-accounts`,
    summary: "The connected user's ad accounts, a page at a time (?limit= 1-200, default 50; ?cursor= a previous nextCursor, signed: any other → 400); 409 when not connected",
    operation: `query($storeId: ID!, $limit: Int, $cursor: String) { adAccounts(storeId: $storeId, limit: $limit, cursor: $cursor) { data { id name currency status } nextCursor } }`,
    upstream: true,
    extraResponses: {
      '409': problem('Not connected, or the token expired (POST /oauth/start)'),
      '502': problem('Meta failed or refused the token'),
      '503': problem('The server has no Meta app configured'),
    },
  }),
  route({
    method: 'PATCH',
    path: `${base}/ads/settings`,
    summary: "Partial update of the ads settings: an ad account not the user's → 400; enabling the Conversions API needs a pixelId",
    operation: `mutation($storeId: ID!, $input: AdsSettingsInput!) { updateAdsSettings(storeId: $storeId, input: $input) { ${ADS_CONNECTION} } }`,
  }),
  route({
    method: 'POST',
    path: `${base}/oauth/start`,
    summary: "Start Meta's OAuth flow: {authorizationUrl, state (single-use, 10 min), expiresAt}; Meta's redirect lands on the platform callback",
    operation: `mutation($storeId: ID!, $input: AdsOAuthStartInput) { startAdsOAuth(storeId: $storeId, input: $input) { authorizationUrl state expiresAt } }`,
  }),
  route({
    method: 'DELETE',
    path: `${base}/oauth`,
    summary: 'Disconnect: the token is revoked at Meta (best effort) and wiped',
    status: 204,
    operation: `mutation($storeId: ID!) { disconnectAds(storeId: $storeId) }`,
  }),
]);
