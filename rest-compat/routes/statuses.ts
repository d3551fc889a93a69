import { dataEnvelope, group, route } from '../route.js';
import { STATUS } from './fragments.js';

const base = '/v1/stores/{storeId}/statuses';

export default group('statuses', [
  route({
    method: 'GET',
    path: base,
    summary: "A store's order statuses, by position",
    operation: `query($storeId: ID!) { statuses(storeId: $storeId) { ${STATUS} } }`,
    ...dataEnvelope,
  }),
  route({
    method: 'POST',
    path: base,
    summary: 'Append a status; the slug is derived from the name when omitted and is unique per store',
    status: 201,
    operation: `mutation($storeId: ID!, $input: StatusCreateInput!) { createStatus(storeId: $storeId, input: $input) { ${STATUS} } }`,
  }),
  route({
    method: 'PUT',
    path: `${base}/reorder`,
    summary: 'Put the statuses in the order of `ids`, which lists every status id once',
    operation: `mutation($storeId: ID!, $input: StatusReorderInput!) { reorderStatuses(storeId: $storeId, input: $input) { ${STATUS} } }`,
    ...dataEnvelope,
  }),
  route({
    method: 'POST',
    path: `${base}/reset`,
    summary: 'Restore the default statuses; orders on removed ones move to the default of the same kind',
    operation: `mutation($storeId: ID!) { resetStatuses(storeId: $storeId) { ${STATUS} } }`,
    ...dataEnvelope,
  }),
  route({
    method: 'PUT',
    path: `${base}/{statusId}`,
    summary: "Change a status's name, slug, color or kind; a new slug is carried to its orders",
    operation: `mutation($storeId: ID!, $statusId: ID!, $input: StatusUpdateInput!) { updateStatus(storeId: $storeId, id: $statusId, input: $input) { ${STATUS} } }`,
  }),
  route({
    method: 'DELETE',
    path: `${base}/{statusId}`,
    summary: 'Delete a status; one in use needs ?moveTo={statusId} for its orders',
    status: 204,
    operation: `mutation($storeId: ID!, $statusId: ID!, $moveTo: ID) { deleteStatus(storeId: $storeId, id: $statusId, moveTo: $moveTo) }`,
  }),
]);
