import { dataEnvelope, group, route } from '../route.js';
import { MEMBER, STORE } from './fragments.js';

export default group('stores', [
  route({
    method: 'POST',
    path: '/v1/stores',
    summary: 'Create a store; the caller becomes its owner',
    status: 201,
    operation: `mutation($input: StoreCreateInput!) { createStore(input: $input) { ${STORE} } }`,
  }),
  route({
    method: 'GET',
    path: '/v1/stores',
    summary: 'Stores the caller belongs to',
    operation: `query($limit: Int, $cursor: String) { stores(limit: $limit, cursor: $cursor) { data { ${STORE} } nextCursor } }`,
  }),
  route({
    method: 'GET',
    path: '/v1/stores/{storeId}',
    summary: 'Show a store',
    operation: `query($storeId: ID!) { store(id: $storeId) { ${STORE} } }`,
  }),
  route({
    method: 'PATCH',
    path: '/v1/stores/{storeId}',
    summary: 'Update a store',
    operation: `mutation($storeId: ID!, $input: StoreUpdateInput!) { updateStore(id: $storeId, input: $input) { ${STORE} } }`,
  }),
  route({
    method: 'DELETE',
    path: '/v1/stores/{storeId}',
    summary: 'Delete a store and everything in it',
    status: 204,
    operation: `mutation($storeId: ID!) { deleteStore(id: $storeId) }`,
  }),
  route({
    method: 'GET',
    path: '/v1/stores/{storeId}/members',
    summary: 'Members of a store',
    operation: `query($storeId: ID!) { storeMembers(storeId: $storeId) { ${MEMBER} } }`,
    ...dataEnvelope,
  }),
  route({
    method: 'POST',
    path: '/v1/stores/{storeId}/members',
    summary: 'Add a member by email',
    status: 201,
    operation: `mutation($storeId: ID!, $input: MemberAddInput!) { addStoreMember(storeId: $storeId, input: $input) { ${MEMBER} } }`,
  }),
  route({
    method: 'PATCH',
    path: '/v1/stores/{storeId}/members/{userId}',
    summary: "Change a member's role",
    operation: `mutation($storeId: ID!, $userId: ID!, $input: MemberUpdateInput!) { updateStoreMember(storeId: $storeId, userId: $userId, input: $input) { ${MEMBER} } }`,
  }),
  route({
    method: 'DELETE',
    path: '/v1/stores/{storeId}/members/{userId}',
    summary: 'Remove a member',
    status: 204,
    operation: `mutation($storeId: ID!, $userId: ID!) { removeStoreMember(storeId: $storeId, userId: $userId) }`,
  }),
]);
