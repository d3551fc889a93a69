import { group, route } from '../route.js';
import { PARCEL } from './fragments.js';
import { carrierWebhookGet, carrierWebhookPost } from '../../src/domains/carrier/carrier.ingress.js';

const base = '/v1/stores/{storeId}/integrations/carrier';

const WILAYAS = `query($storeId: ID!) { carrierWilayas(storeId: $storeId) { data { code name deliverable } } }`;
const COMMUNES = `query($storeId: ID!, $wilaya: String) { carrierCommunes(storeId: $storeId, wilaya: $wilaya) { data { id name wilayaCode deliverable stopDesks { id name address } } } }`;
const WEBHOOK = 'url active hasSecret lastEventAt';

const webhookSettings = {
  type: 'object',
  required: ['url', 'active', 'hasSecret', 'lastEventAt'],
  properties: { url: { type: 'string' }, active: { type: 'boolean' }, hasSecret: { type: 'boolean' }, lastEventAt: { type: ['string', 'null'], format: 'date-time' } },
};
const problem = (description: string) => ({ description, content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } });

export default group('carrier', [
  route({ method: 'GET', path: `${base}/wilayas`, summary: "The carrier's wilayas (cached 24 h)", operation: WILAYAS, upstream: true }),
  route({ method: 'GET', path: `${base}/states`, summary: 'Same as /wilayas', operation: WILAYAS, operationId: 'carrierStates', upstream: true }),
  route({ method: 'GET', path: `${base}/communes`, summary: 'Communes of a wilaya (?wilaya=16) with their stop desks', operation: COMMUNES, upstream: true }),
  route({ method: 'GET', path: `${base}/cities`, summary: 'Same as /communes', operation: COMMUNES, operationId: 'carrierCities', upstream: true }),
  route({
    method: 'GET',
    path: `${base}/fees`,
    upstream: true,
    summary: "Delivery fees from the integration's fromWilaya to ?to=; with ?commune= a quote for ?weightKg=",
    operation: `query($storeId: ID!, $to: String, $commune: String, $weightKg: Float) { carrierFees(storeId: $storeId, to: $to, commune: $commune, weightKg: $weightKg) {
      data { communeId home stopDesk } quote { communeId home stopDesk weightKg oversizeFee } } }`,
  }),
  route({
    method: 'GET',
    path: `${base}/statistics`,
    summary: "The store's parcels by status and wilaya, delivery and return rates, cash collected",
    operation: `query($storeId: ID!, $createdAfter: String, $createdBefore: String) { carrierStatistics(storeId: $storeId, createdAfter: $createdAfter, createdBefore: $createdBefore) {
      byStatus deliveredRate returnRate codCollected byWilaya } }`,
  }),
  route({
    method: 'POST',
    path: `${base}/send`,
    summary: 'Ship an order; 409 when it has a live parcel or is rejected; a retry after a lost answer finds the parcel',
    status: 201,
    operation: `mutation($storeId: ID!, $input: CarrierSendInput!) { carrierSend(storeId: $storeId, input: $input) { ${PARCEL} } }`,
    location: (body, req) => `/v1/stores/${encodeURIComponent(req.params.storeId)}/integrations/carrier/parcels/${encodeURIComponent(body.id)}`,
  }),
  route({
    method: 'POST',
    path: `${base}/sendMany`,
    summary: 'Ship up to 100 orders in one carrier call; failures per order',
    operation: `mutation($storeId: ID!, $input: CarrierSendManyInput!) { carrierSendMany(storeId: $storeId, input: $input) { data { ${PARCEL} } failed { orderId code message } } }`,
  }),
  route({
    method: 'POST',
    path: `${base}/testConnection`,
    summary: 'Call the carrier with the saved (or given) credentials; the integration becomes active or error',
    operation: `mutation($storeId: ID!, $input: CarrierTestInput) { carrierTestConnection(storeId: $storeId, input: $input) { ok latencyMs quota { second minute hour day } error } }`,
  }),
  route({
    method: 'GET',
    path: `${base}/webhook`,
    summary:
      "With ?crc_token: Yalidine's endpoint check, answered {crc_token} without a bearer. Without it: the webhook's settings (bearer, admin+ with store.integrations), as GraphQL carrierWebhook",
    operationId: 'carrierWebhookCheck',
    ingress: (req, deps) => carrierWebhookGet(deps, { storeId: req.params.storeId, query: req.query, headers: req.headers, rawBody: req.rawBody, ip: req.ip }),
    responseSchema: { oneOf: [{ type: 'object', required: ['crc_token'], properties: { crc_token: { type: 'string' } } }, webhookSettings] },
    // The settings read is a member's call: its role and store answer like any other route's.
    extraResponses: { '403': problem('The role or token scope does not allow the action'), '404': problem('A store the caller is not a member of'), '429': problem('Too many requests') },
  }),
  route({
    method: 'POST',
    path: `${base}/webhook`,
    summary: 'Yalidine webhook batches: X-YALIDINE-SIGNATURE = hex HMAC-SHA256 of the raw body; answers {received, duplicates}',
    operationId: 'receiveCarrierWebhook',
    ingress: (req, deps) => carrierWebhookPost(deps, { storeId: req.params.storeId, query: req.query, headers: req.headers, rawBody: req.rawBody, ip: req.ip }),
    responseSchema: { type: 'object', required: ['received', 'duplicates'], properties: { received: { type: 'integer' }, duplicates: { type: 'integer' } } },
  }),
  route({
    method: 'PUT',
    path: `${base}/webhook`,
    summary: 'Set the webhook secret (from the carrier dashboard) and active (default true); an omitted secret stays',
    operation: `mutation($storeId: ID!, $input: CarrierWebhookInput!) { putCarrierWebhook(storeId: $storeId, input: $input) { ${WEBHOOK} } }`,
  }),
  route({
    method: 'PATCH',
    path: `${base}/webhook`,
    summary: 'Change the secret or active flag; secret null removes it',
    operation: `mutation($storeId: ID!, $input: CarrierWebhookInput!) { updateCarrierWebhook(storeId: $storeId, input: $input) { ${WEBHOOK} } }`,
  }),
  route({
    method: 'DELETE',
    path: `${base}/webhook`,
    summary: 'Forget the webhook secret and settings',
    status: 204,
    operation: `mutation($storeId: ID!) { deleteCarrierWebhook(storeId: $storeId) }`,
  }),
  route({
    method: 'GET',
    path: `${base}/parcels`,
    summary: "The store's parcels, newest first (?orderId=, ?status=)",
    operation: `query($storeId: ID!, $orderId: ID, $status: ParcelStatus, $limit: Int, $cursor: String) { parcels(storeId: $storeId, orderId: $orderId, status: $status, limit: $limit, cursor: $cursor) { data { ${PARCEL} } nextCursor } }`,
  }),
  route({
    method: 'GET',
    path: `${base}/parcels/{parcelId}`,
    summary: 'One parcel with its history',
    operation: `query($storeId: ID!, $parcelId: ID!) { parcel(storeId: $storeId, id: $parcelId) { ${PARCEL} } }`,
  }),
  route({
    method: 'GET',
    path: `${base}/parcels/{parcelId}/label`,
    summary: "The parcel's label from the carrier: {url} (Yalidine, Zimou) or {contentType: application/pdf, data: base64} (Ecotrack, Noest); 501 where the carrier has no label API",
    operation: 'query($storeId: ID!, $parcelId: ID!) { parcelLabel(storeId: $storeId, id: $parcelId) { url contentType data } }',
    upstream: true,
    extraResponses: { '409': problem('The parcel has no tracking yet, or another carrier sent it'), '501': problem('The carrier has no label API') },
  }),
  route({
    method: 'GET',
    path: `${base}/wilayaFees`,
    summary: "Fees to every deliverable wilaya from the integration's fromWilaya: the carrier's table, or each wilaya's lowest commune fee",
    operation: 'query($storeId: ID!) { carrierWilayaFees(storeId: $storeId) { data { wilayaCode home stopDesk } } }',
    upstream: true,
  }),
  route({
    method: 'POST',
    path: `${base}/parcels/{parcelId}/cancel`,
    summary: 'Cancel at the carrier a parcel not yet picked up (or, for a carrier that cannot be asked, a creation whose answer was lost); the order may be sent again',
    operation: `mutation($storeId: ID!, $parcelId: ID!) { cancelParcel(storeId: $storeId, id: $parcelId) { ${PARCEL} } }`,
    extraResponses: { '501': problem('The carrier has no cancellation API') },
  }),
]);
