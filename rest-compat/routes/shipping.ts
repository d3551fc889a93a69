import { group, route } from '../route.js';

export const SHIPPING_PRICE = 'id storeId name logoUrl currency status prices createdAt updatedAt';
export const SHIPPING_METHOD = 'id storeId name description logoUrl price shippingPriceId status policy sourceId forks createdAt updatedAt';

const prices = '/v1/shipping_prices';
const methods = '/v1/shipping_methods';

export default [
  ...group('shipping prices', [
    route({
      method: 'GET',
      path: prices,
      summary: "A store's shipping prices (?storeId=)",
      operation: `query($storeId: ID!, $limit: Int, $cursor: String, $status: ShippingPriceStatus) { shippingPrices(storeId: $storeId, limit: $limit, cursor: $cursor, status: $status) { data { ${SHIPPING_PRICE} } nextCursor } }`,
    }),
    route({
      method: 'POST',
      path: prices,
      summary: 'Create a shipping price: country → state → {home, desk, pickup}',
      status: 201,
      operation: `mutation($storeId: ID!, $input: ShippingPriceCreateInput!) { createShippingPrice(storeId: $storeId, input: $input) { ${SHIPPING_PRICE} } }`,
    }),
    route({
      method: 'GET',
      path: `${prices}/{id}`,
      summary: 'Show a shipping price',
      operation: `query($storeId: ID!, $id: ID!) { shippingPrice(storeId: $storeId, id: $id) { ${SHIPPING_PRICE} } }`,
    }),
    route({
      method: 'PATCH',
      path: `${prices}/{id}`,
      summary: 'Merge-patch a shipping price (RFC 7396: null removes a state or a delivery type)',
      body: 'patch',
      operation: `mutation($storeId: ID!, $id: ID!, $patch: JSONObject!) { patchShippingPrice(storeId: $storeId, id: $id, patch: $patch) { ${SHIPPING_PRICE} } }`,
    }),
    route({
      method: 'PUT',
      path: `${prices}/{id}`,
      summary: 'Replace the prices table (and set the other fields given)',
      operation: `mutation($storeId: ID!, $id: ID!, $input: ShippingPriceReplaceInput!) { replaceShippingPrice(storeId: $storeId, id: $id, input: $input) { ${SHIPPING_PRICE} } }`,
    }),
    route({
      method: 'DELETE',
      path: `${prices}/{id}`,
      summary: 'Delete a shipping price (409 while a shipping method uses it)',
      status: 204,
      operation: `mutation($storeId: ID!, $id: ID!) { deleteShippingPrice(storeId: $storeId, id: $id) }`,
    }),
  ]),
  ...group('shipping methods', [
    route({
      method: 'GET',
      path: methods,
      summary: "A store's shipping methods (?storeId= is required)",
      operation: `query($storeId: ID!, $limit: Int, $cursor: String, $status: ShippingMethodStatus) { shippingMethods(storeId: $storeId, limit: $limit, cursor: $cursor, status: $status) { data { ${SHIPPING_METHOD} } nextCursor } }`,
    }),
    route({
      method: 'POST',
      path: methods,
      summary: 'Create a shipping method (a flat price, or a linked shipping price)',
      status: 201,
      operation: `mutation($storeId: ID!, $input: ShippingMethodInput!) { createShippingMethod(storeId: $storeId, input: $input) { ${SHIPPING_METHOD} } }`,
    }),
    route({
      method: 'GET',
      path: `${methods}/{id}`,
      summary: 'Show a shipping method',
      operation: `query($storeId: ID!, $id: ID!) { shippingMethod(storeId: $storeId, id: $id) { ${SHIPPING_METHOD} } }`,
    }),
    route({
      method: 'PATCH',
      path: `${methods}/{id}`,
      summary: 'Change the given fields of a shipping method',
      operation: `mutation($storeId: ID!, $id: ID!, $input: ShippingMethodUpdateInput!) { updateShippingMethod(storeId: $storeId, id: $id, input: $input) { ${SHIPPING_METHOD} } }`,
    }),
    route({
      method: 'PUT',
      path: `${methods}/{id}`,
      summary: 'Replace a shipping method (omitted fields take their defaults)',
      operation: `mutation($storeId: ID!, $id: ID!, $input: ShippingMethodInput!) { replaceShippingMethod(storeId: $storeId, id: $id, input: $input) { ${SHIPPING_METHOD} } }`,
    }),
    route({
      method: 'DELETE',
      path: `${methods}/{id}`,
      summary: 'Delete a shipping method',
      status: 204,
      operation: `mutation($storeId: ID!, $id: ID!) { deleteShippingMethod(storeId: $storeId, id: $id) }`,
    }),
    route({
      method: 'POST',
      path: `${methods}/{id}/fork`,
      summary: 'Fork a shipping method into the store ?storeId= (a private copy with sourceId)',
      status: 201,
      operation: `mutation($storeId: ID!, $id: ID!, $input: ShippingMethodForkInput) { forkShippingMethod(storeId: $storeId, id: $id, input: $input) { ${SHIPPING_METHOD} } }`,
      location: (body, req) => `${methods}/${encodeURIComponent(body.id)}?storeId=${encodeURIComponent(String(req.query.storeId))}`,
    }),
  ]),
];
