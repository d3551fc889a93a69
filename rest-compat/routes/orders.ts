import { group, route } from '../route.js';
import { ORDER } from './fragments.js';

const base = '/v1/stores/{storeId}/orders';

export default group('orders', [
  route({
    method: 'GET',
    path: base,
    summary: "A store's orders, newest first; filter by status slug, customer text and creation time",
    operation: `query($storeId: ID!, $limit: Int, $cursor: String, $status: String, $q: String, $createdAfter: String, $createdBefore: String) {
      orders(storeId: $storeId, limit: $limit, cursor: $cursor, status: $status, q: $q, createdAfter: $createdAfter, createdBefore: $createdBefore) { data { ${ORDER} } nextCursor } }`,
  }),
  route({
    method: 'POST',
    path: base,
    summary: "Create an order; it takes the store's first status (emits orderCreated)",
    status: 201,
    operation: `mutation($storeId: ID!, $input: OrderCreateInput!) { createOrder(storeId: $storeId, input: $input) { ${ORDER} } }`,
  }),
  route({
    method: 'GET',
    path: `${base}/{orderId}`,
    summary: 'Show an order',
    operation: `query($storeId: ID!, $orderId: ID!) { order(storeId: $storeId, id: $orderId) { ${ORDER} } }`,
  }),
  route({
    method: 'PATCH',
    path: `${base}/{orderId}`,
    summary: 'Update an order (emits orderUpdated with previous_data)',
    operation: `mutation($storeId: ID!, $orderId: ID!, $input: OrderUpdateInput!) { updateOrder(storeId: $storeId, id: $orderId, input: $input) { ${ORDER} } }`,
  }),
  route({
    method: 'DELETE',
    path: `${base}/{orderId}`,
    summary: 'Delete an order (emits orderDeleted)',
    status: 204,
    operation: `mutation($storeId: ID!, $orderId: ID!) { deleteOrder(storeId: $storeId, id: $orderId) }`,
  }),
]);
