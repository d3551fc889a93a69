import { group, route } from '../route.js';

export const PROMO = 'id storeId code type value minSubtotal maxUses uses maxUsesPerCustomer productIds startsAt endsAt active createdAt updatedAt';
const base = '/v1/promos';

export default group('promos', [
  route({
    method: 'GET',
    path: base,
    summary: "A store's promo codes (?storeId=), newest first",
    operation: `query($storeId: ID!, $limit: Int, $cursor: String, $active: Boolean, $q: String) {
      promos(storeId: $storeId, limit: $limit, cursor: $cursor, active: $active, q: $q) { data { ${PROMO} } nextCursor } }`,
  }),
  route({
    method: 'POST',
    path: base,
    summary: 'Create a promo code (upper-cased, unique per store)',
    status: 201,
    operation: `mutation($storeId: ID!, $input: PromoCreateInput!) { createPromo(storeId: $storeId, input: $input) { ${PROMO} } }`,
  }),
  route({
    method: 'POST',
    path: `${base}/validate`,
    errors: [429],
    summary: 'Public, 60 calls a minute per IP: what a code does to a cart or an order; always 200 {valid, reason, ...}',
    operation: `query($storeId: ID!, $input: PromoValidateInput!) { validatePromo(storeId: $storeId, input: $input) { valid reason subtotal discount total freeShipping } }`,
  }),
  route({
    method: 'GET',
    path: `${base}/{id}`,
    summary: 'Show a promo code',
    operation: `query($storeId: ID!, $id: ID!) { promo(storeId: $storeId, id: $id) { ${PROMO} } }`,
  }),
  route({
    method: 'PUT',
    path: `${base}/{id}`,
    summary: 'Update a promo code (partial)',
    operation: `mutation($storeId: ID!, $id: ID!, $input: PromoUpdateInput!) { updatePromo(storeId: $storeId, id: $id, input: $input) { ${PROMO} } }`,
  }),
  route({
    method: 'DELETE',
    path: `${base}/{id}`,
    summary: 'Delete a promo code',
    status: 204,
    operation: `mutation($storeId: ID!, $id: ID!) { deletePromo(storeId: $storeId, id: $id) }`,
  }),
]);
