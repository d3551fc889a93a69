import { group, route } from '../route.js';
import { busyResponses } from '../replies.js';

export const TEMPLATE_COMPONENT = `id storeId title subtitle body category tags imageUrl code propsSchema slotsSchema propsDefault slotsDefault policy
  parentId parentVersion version updateAvailable createdAt updatedAt`;

const base = '/v1/template_components';

export default group('template components', [
  route({
    method: 'GET',
    path: base,
    summary: "A store's component library (?storeId=), or without storeId the public marketplace",
    operation: `query($storeId: ID, $limit: Int, $cursor: String, $policy: ComponentPolicy, $category: String, $q: String) {
      templateComponents(storeId: $storeId, limit: $limit, cursor: $cursor, policy: $policy, category: $category, q: $q) { data { ${TEMPLATE_COMPONENT} } nextCursor } }`,
  }),
  route({
    method: 'POST',
    path: base,
    extraResponses: busyResponses,
    summary: 'Create a template component (propsSchema compiled, propsDefault validated)',
    status: 201,
    operation: `mutation($storeId: ID!, $input: TemplateComponentInput!) { createTemplateComponent(storeId: $storeId, input: $input) { ${TEMPLATE_COMPONENT} } }`,
  }),
  route({
    method: 'GET',
    path: `${base}/{id}`,
    summary: "Show a store's component (?storeId=), or without storeId a shared one (no token needed)",
    operation: `query($id: ID!, $storeId: ID) { templateComponent(id: $id, storeId: $storeId) { ${TEMPLATE_COMPONENT} } }`,
  }),
  route({
    method: 'PATCH',
    path: `${base}/{id}`,
    extraResponses: busyResponses,
    summary: 'Change the given fields (version increases when code or a schema changes)',
    operation: `mutation($storeId: ID!, $id: ID!, $input: TemplateComponentUpdateInput!) { updateTemplateComponent(storeId: $storeId, id: $id, input: $input) { ${TEMPLATE_COMPONENT} } }`,
  }),
  route({
    method: 'PUT',
    path: `${base}/{id}`,
    extraResponses: busyResponses,
    summary: 'Replace the component (omitted fields take their defaults)',
    operation: `mutation($storeId: ID!, $id: ID!, $input: TemplateComponentInput!) { replaceTemplateComponent(storeId: $storeId, id: $id, input: $input) { ${TEMPLATE_COMPONENT} } }`,
  }),
  route({
    method: 'DELETE',
    path: `${base}/{id}`,
    summary: 'Delete a component',
    status: 204,
    operation: `mutation($storeId: ID!, $id: ID!) { deleteTemplateComponent(storeId: $storeId, id: $id) }`,
  }),
  route({
    method: 'POST',
    path: `${base}/{id}/fork`,
    summary: 'Fork a component into the store ?storeId= (a private copy with parentId)',
    status: 201,
    operation: `mutation($storeId: ID!, $id: ID!, $input: ForkInput) { forkTemplateComponent(storeId: $storeId, id: $id, input: $input) { ${TEMPLATE_COMPONENT} } }`,
    location: (body, req) => `${base}/${encodeURIComponent(body.id)}?storeId=${encodeURIComponent(String(req.query.storeId))}`,
  }),
]);
