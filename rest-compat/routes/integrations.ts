import { group, route } from '../route.js';
import { INTEGRATION } from './fragments.js';

/** The seed names the store `{id}` on these paths. */
const base = '/v1/stores/{id}/integrations';

export default group('integrations', [
  route({
    method: 'GET',
    path: base,
    summary: "The store's integrations, secrets masked as {set, last4, updatedAt}",
    operation: `query($id: ID!) { storeIntegrations(storeId: $id) { data { ${INTEGRATION} } } }`,
  }),
  route({
    method: 'GET',
    path: `${base}/{key}`,
    summary: 'One integration, secrets masked',
    operation: `query($id: ID!, $key: String!) { storeIntegration(storeId: $id, key: $key) { ${INTEGRATION} } }`,
  }),
  route({
    method: 'PUT',
    path: `${base}/{key}`,
    summary: 'Create (201) or replace (200) the integration under a key; never calls the provider (status unverified)',
    operation: `mutation($id: ID!, $key: String!, $input: IntegrationPutInput!) { putStoreIntegration(storeId: $id, key: $key, input: $input) { created integration { ${INTEGRATION} } } }`,
    reply: (value: { created: boolean; integration: unknown }) => ({ status: value.created ? 201 : 200, body: value.integration }),
    responseSchema: { $ref: '#/components/schemas/Integration' },
    extraResponses: { '201': { description: 'Created', content: { 'application/json': { schema: { $ref: '#/components/schemas/Integration' } } } } },
  }),
  route({
    method: 'PATCH',
    path: `${base}/{key}`,
    summary: 'Merge-patch the config (RFC 7396); in secrets a string sets, null removes',
    operation: `mutation($id: ID!, $key: String!, $input: IntegrationPatchInput!) { updateStoreIntegration(storeId: $id, key: $key, input: $input) { ${INTEGRATION} } }`,
  }),
  route({
    method: 'DELETE',
    path: `${base}/{key}`,
    summary: 'Revoke at the provider where it can, then delete the integration',
    status: 204,
    operation: `mutation($id: ID!, $key: String!) { deleteStoreIntegration(storeId: $id, key: $key) }`,
  }),
]);
