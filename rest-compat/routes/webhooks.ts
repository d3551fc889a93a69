import { dataEnvelope, group, route } from '../route.js';
import { DELIVERY, WEBHOOK } from './fragments.js';

const base = '/v1/stores/{storeId}/integrations/webhooks';

/** `secret` appears only when there is one to show. */
const withoutNullSecret = (value: Record<string, unknown>) => {
  if (value.secret !== null) return value;
  const { secret: _secret, ...rest } = value;
  return rest;
};

export default group('webhooks', [
  route({
    method: 'GET',
    path: base,
    summary: 'List webhooks; secrets masked (hasSecret)',
    operation: `query($storeId: ID!) { webhooks(storeId: $storeId) { ${WEBHOOK} } }`,
    ...dataEnvelope,
  }),
  route({
    method: 'POST',
    path: base,
    summary: 'Create a webhook; the response carries the plaintext secret, once',
    status: 201,
    operation: `mutation($storeId: ID!, $input: WebhookCreateInput!) { createWebhook(storeId: $storeId, input: $input) { ${WEBHOOK} secret } }`,
  }),
  route({
    method: 'POST',
    path: `${base}/test`,
    summary: 'Send a sample delivery to a url before saving it (not recorded)',
    operation: `mutation($storeId: ID!, $input: WebhookUrlTestInput!) { testWebhookUrl(storeId: $storeId, input: $input) { ${DELIVERY} secret } }`,
    result: withoutNullSecret,
  }),
  route({
    method: 'POST',
    path: `${base}/send`,
    summary: 'Queue an event for delivery by hand',
    status: 202,
    operation: `mutation($storeId: ID!, $input: WebhookSendInput!) { sendWebhookEvent(storeId: $storeId, input: $input) { webhookId deliveryId } }`,
    ...dataEnvelope,
  }),
  route({
    method: 'GET',
    path: `${base}/{webhookId}`,
    summary: 'Show a webhook',
    operation: `query($storeId: ID!, $webhookId: ID!) { webhook(storeId: $storeId, id: $webhookId) { ${WEBHOOK} } }`,
  }),
  route({
    method: 'PATCH',
    path: `${base}/{webhookId}`,
    summary: 'Update a webhook; with rotateSecret the response carries the new secret',
    operation: `mutation($storeId: ID!, $webhookId: ID!, $input: WebhookUpdateInput!) { updateWebhook(storeId: $storeId, id: $webhookId, input: $input) { ${WEBHOOK} secret } }`,
    result: withoutNullSecret,
  }),
  route({
    method: 'DELETE',
    path: `${base}/{webhookId}`,
    summary: 'Delete a webhook and its delivery history',
    status: 204,
    operation: `mutation($storeId: ID!, $webhookId: ID!) { deleteWebhook(storeId: $storeId, id: $webhookId) }`,
  }),
  route({
    method: 'POST',
    path: `${base}/{webhookId}/test`,
    summary: 'Send a sample delivery with the saved configuration (recorded with test: true)',
    operation: `mutation($storeId: ID!, $webhookId: ID!, $input: WebhookTestInput) { testWebhook(storeId: $storeId, id: $webhookId, input: $input) { ${DELIVERY} } }`,
  }),
  route({
    method: 'GET',
    path: `${base}/{webhookId}/history`,
    summary: 'Delivery history, newest first, last 50 kept',
    operation: `query($storeId: ID!, $webhookId: ID!) { webhookHistory(storeId: $storeId, webhookId: $webhookId) { ${DELIVERY} } }`,
    ...dataEnvelope,
  }),
  route({
    method: 'POST',
    path: `${base}/{webhookId}/history/{deliveryId}/redeliver`,
    errors: [429],
    summary: "Send a history entry's payload again as a new delivery (recorded with redeliveryOf); 30 a minute per store",
    status: 202,
    operation: `mutation($storeId: ID!, $webhookId: ID!, $deliveryId: ID!) { redeliverWebhookDelivery(storeId: $storeId, webhookId: $webhookId, deliveryId: $deliveryId) { webhookId deliveryId redeliveryOf } }`,
  }),
]);
