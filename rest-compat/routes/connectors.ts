import { dataEnvelope, group, route } from '../route.js';
import { platformCallback, platformWebhook } from '../../src/domains/connectors/connector.ingress.js';

const base = '/v1/stores/{storeId}/integrations/connectors/platform';
const problem = (description: string) => ({ description, content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } });
const INSTALL_REFUSALS = { '409': problem('The shop is active in another store'), '422': problem('The store already has 5 connectors, pending ones included') };
const CONNECTOR = 'id storeId shopDomain status sync { products orders } lastEventAt importedAt lastError createdAt updatedAt';
const INSTALL = `mutation($storeId: ID!, $shop: String!, $returnUrl: String) { installPlatformConnector(storeId: $storeId, shop: $shop, returnUrl: $returnUrl) { url connectorId state } }`;

export default group('connectors', [
  route({
    method: 'GET',
    path: base,
    summary: "The store's platform connectors (extension route, admin+)",
    operation: `query($storeId: ID!) { platformConnectors(storeId: $storeId) { ${CONNECTOR} } }`,
    ...dataEnvelope,
  }),
  route({
    method: 'GET',
    path: `${base}/install-url`,
    summary: 'A pending connector for ?shop= and the URL that installs the app there: {url, connectorId, state}; the sixth connector → 422; a shop active in another store → 409',
    operation: INSTALL,
    upstream: true,
    extraResponses: INSTALL_REFUSALS,
  }),
  route({
    method: 'GET',
    path: `${base}/install`,
    summary: 'The same as install-url, answered as a 302 to the url',
    operation: INSTALL,
    operationId: 'installPlatformConnectorRedirect',
    upstream: true,
    reply: (value: { url: string }) => ({ status: 302, headers: { location: value.url, 'cache-control': 'no-store' } }),
    extraResponses: { '302': { description: "Redirect to the shop's app install page" }, ...INSTALL_REFUSALS },
  }),
  route({
    method: 'GET',
    path: '/v1/integrations/connectors/platform/callback',
    summary:
      "OAuth callback of Meta (ads platform) and of shop app installs, told apart by state. Shop installs: hmac (hex HMAC-SHA256 of the other parameters, sorted), state (single-use, bound to the shop, 10 min) and timestamp (≤ 24 h) are checked; the flow goes on only in the browser that started it (its state cookie) or with the starting member's own bearer token; 302 to the return URL with ?status=active|denied|error (Meta: connected|denied|error); anything unverifiable → 401",
    operationId: 'platformCallback',
    ingress: (req, deps) => platformCallback(deps, req),
    extraResponses: {
      '302': { description: 'Back to the return URL with ?status=' },
      '400': problem('Neither a code nor an error (the state stays usable)'),
      '403': problem('The member who started the flow may no longer manage the store\'s integrations'),
      '409': problem('The shop is already active in another store'),
    },
  }),
  route({
    method: 'POST',
    path: '/v1/integrations/connectors/platform/webhook/{storeId}/{connectorId}',
    summary: "Shop webhooks: X-Shopify-Hmac-Sha256 (base64 HMAC-SHA256 of the raw body), X-Shopify-Shop-Domain the connector's shop, deduplicated by X-Shopify-Event-Id; answers {received, duplicates}",
    operationId: 'receivePlatformWebhook',
    ingress: (req, deps) => platformWebhook(deps, req),
    responseSchema: { type: 'object', required: ['received', 'duplicates'], properties: { received: { type: 'integer' }, duplicates: { type: 'integer' } } },
  }),
]);
