import { group, route } from '../route.js';

export const LANDING_PAGE = 'id storeId productId name slug status content createdAt updatedAt';

const base = '/v1/stores/{storeId}/product_landing_pages';

export default group('product landing pages', [
  route({
    method: 'GET',
    path: base,
    summary: "A store's product landing pages, newest first; filter by product and status",
    operation: `query($storeId: ID!, $limit: Int, $cursor: String, $productId: ID, $status: LandingPageStatus) {
      productLandingPages(storeId: $storeId, limit: $limit, cursor: $cursor, productId: $productId, status: $status) { data { ${LANDING_PAGE} } nextCursor } }`,
  }),
  route({
    method: 'POST',
    path: base,
    summary: 'Create a product landing page; the slug is derived from the name when omitted and is unique per store',
    status: 201,
    operation: `mutation($storeId: ID!, $input: ProductLandingPageCreateInput!) { createProductLandingPage(storeId: $storeId, input: $input) { ${LANDING_PAGE} } }`,
  }),
  route({
    method: 'GET',
    path: `${base}/{landingPageId}`,
    summary: 'Show a product landing page',
    operation: `query($storeId: ID!, $landingPageId: ID!) { productLandingPage(storeId: $storeId, id: $landingPageId) { ${LANDING_PAGE} } }`,
  }),
  route({
    method: 'PATCH',
    path: `${base}/{landingPageId}`,
    summary: 'Change a product landing page',
    operation: `mutation($storeId: ID!, $landingPageId: ID!, $input: ProductLandingPageUpdateInput!) {
      updateProductLandingPage(storeId: $storeId, id: $landingPageId, input: $input) { ${LANDING_PAGE} } }`,
  }),
  route({
    method: 'DELETE',
    path: `${base}/{landingPageId}`,
    summary: 'Delete a product landing page; its orders keep their landingPageId',
    status: 204,
    operation: `mutation($storeId: ID!, $landingPageId: ID!) { deleteProductLandingPage(storeId: $storeId, id: $landingPageId) }`,
  }),
]);
