import { group, route } from '../route.js';

/** The lor body, every field (CONTRACT-2 §12). */
export const LOR = `scope from to interval tz lastSync lastItemDate totalOrders data
  buckets { start orders completed cancelled returned rest confirmed revenue units }
  totals { orders completed cancelled returned rest confirmed revenue units }
  rates { confirmation completion cancellation return }`;

const WINDOW = '$from: String, $to: String, $interval: String, $tz: String';
const WINDOW_ARGS = 'from: $from, to: $to, interval: $interval, tz: $tz';

export default group('analytics', [
  route({
    method: 'GET',
    path: '/v1/stores/{storeId}/analytics/lor',
    summary: 'The lite orders report of the store: orders per day, ISO week or month in a time zone, by status kind',
    operation: `query($storeId: ID!, ${WINDOW}) { storeLor(storeId: $storeId, ${WINDOW_ARGS}) { lor { ${LOR} } } }`,
  }),
  route({
    method: 'GET',
    path: '/v1/stores/{storeId}/products/{productId}/analytics/lor',
    summary: 'The lite orders report of the orders containing the product; revenue and units from its lines only',
    operation: `query($storeId: ID!, $productId: ID!, ${WINDOW}) { productLor(storeId: $storeId, productId: $productId, ${WINDOW_ARGS}) { lor { ${LOR} } } }`,
  }),
  route({
    method: 'GET',
    path: '/v1/stores/{storeId}/product_landing_pages/{landingPageId}/analytics/lor',
    summary: 'The lite orders report of the orders with this landingPageId',
    operation: `query($storeId: ID!, $landingPageId: ID!, ${WINDOW}) { landingPageLor(storeId: $storeId, landingPageId: $landingPageId, ${WINDOW_ARGS}) { lor { ${LOR} } } }`,
  }),
  route({
    method: 'POST',
    path: '/v1/stores/{storeId}/products/analytics/lor/batch',
    summary: 'The lite orders report of 1 to 100 products in one statement; unknown products are listed in failed',
    operation: `query($storeId: ID!, $input: ProductLorBatchInput!) { productLorBatch(storeId: $storeId, input: $input) {
      data { productId lor { ${LOR} } } failed { productId code } } }`,
  }),
  route({
    method: 'POST',
    path: '/v1/stores/analytics/lor/batch',
    summary: 'The lite orders report of 1 to 50 stores in one statement; stores the caller is not a member of fail as NOT_FOUND',
    operation: `query($input: StoreLorBatchInput!) { storeLorBatch(input: $input) { data { storeId lor { ${LOR} } } failed { storeId code } } }`,
  }),
]);
