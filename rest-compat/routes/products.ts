import { group, route } from '../route.js';
import { PRODUCT } from './fragments.js';

const base = '/v1/stores/{storeId}/products';

export default group('products', [
  route({
    method: 'GET',
    path: base,
    summary: "A store's products, newest first",
    operation: `query($storeId: ID!, $limit: Int, $cursor: String, $status: ProductStatus) { products(storeId: $storeId, limit: $limit, cursor: $cursor, status: $status) { data { ${PRODUCT} } nextCursor } }`,
  }),
  route({
    method: 'POST',
    path: base,
    summary: 'Create a product (emits productCreated)',
    status: 201,
    operation: `mutation($storeId: ID!, $input: ProductCreateInput!) { createProduct(storeId: $storeId, input: $input) { ${PRODUCT} } }`,
  }),
  route({
    method: 'GET',
    path: `${base}/{productId}`,
    summary: 'Show a product',
    operation: `query($storeId: ID!, $productId: ID!) { product(storeId: $storeId, id: $productId) { ${PRODUCT} } }`,
  }),
  route({
    method: 'PATCH',
    path: `${base}/{productId}`,
    summary: 'Update a product (emits productUpdated with previous_data)',
    operation: `mutation($storeId: ID!, $productId: ID!, $input: ProductUpdateInput!) { updateProduct(storeId: $storeId, id: $productId, input: $input) { ${PRODUCT} } }`,
  }),
  route({
    method: 'DELETE',
    path: `${base}/{productId}`,
    summary: 'Delete a product (emits productDeleted)',
    status: 204,
    operation: `mutation($storeId: ID!, $productId: ID!) { deleteProduct(storeId: $storeId, id: $productId) }`,
  }),
]);
