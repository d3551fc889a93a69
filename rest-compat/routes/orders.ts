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
    operation: `mutation($storeId: ID!, $input: OrderCreateInput!) { createOrder(storeId: $storeId, input: $input) { ${ORDER} paymentToken } }`,
  }),
  route({
    method: 'GET',
    path: `${base}/counts`,
    summary: 'How many orders each status holds, by position, and in all',
    operation: `query($storeId: ID!) { orderCounts(storeId: $storeId) { data { statusId slug name count } total } }`,
  }),
  route({
    method: 'POST',
    path: `${base}/applyMany`,
    summary: 'Give up to 500 orders one status in one transaction; missing or refused ids are listed in failed',
    operation: `mutation($storeId: ID!, $input: OrderApplyManyInput!) { applyOrderStatusMany(storeId: $storeId, input: $input) { data { id status } failed { id code } } }`,
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
  route({
    method: 'POST',
    path: `${base}/{id}/apply`,
    summary: 'Give the order one of the store statuses (emits orderUpdated)',
    operation: `mutation($storeId: ID!, $id: ID!, $input: OrderApplyInput!) { applyOrderStatus(storeId: $storeId, id: $id, input: $input) { ${ORDER} } }`,
  }),
  route({
    method: 'POST',
    path: `${base}/{id}/confirm`,
    summary: 'Move the order to the first status of kind confirmed; 409 for a rejected or cancelled order',
    operation: `mutation($storeId: ID!, $id: ID!) { confirmOrder(storeId: $storeId, id: $id) { ${ORDER} } }`,
  }),
  route({
    method: 'POST',
    path: `${base}/{id}/reject`,
    summary: 'Move the order to the first status of kind rejected, keeping the reason given',
    operation: `mutation($storeId: ID!, $id: ID!, $input: OrderRejectInput) { rejectOrder(storeId: $storeId, id: $id, input: $input) { ${ORDER} } }`,
  }),
]);
