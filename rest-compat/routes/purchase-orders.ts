import { group, route } from '../route.js';
import { BATCH_SELECTION, batchReply, batchResponseSchema, FILE_SELECTION, fileReply, pdfResponses } from '../replies.js';

export const PURCHASE_ORDER = `id storeId number status supplier { name email phone address taxId } warehouseId currency
  items { id productId sku name qtyOrdered qtyReceived unitCost lineTotal } subtotal shippingCost tax total reference notes
  expectedAt sentAt receivedAt cancelledAt cancelReason receipts { id at warehouseId items { itemId quantity } } sends { id at to status error }
  createdAt updatedAt`;
const base = '/v1/finance/purchase-orders';

export default group('purchase-orders', [
  route({
    method: 'GET',
    path: base,
    summary: "A store's purchase orders (?storeId=), newest first; filter by status, q (number or supplier), warehouseId, creation time",
    operation: `query($storeId: ID!, $limit: Int, $cursor: String, $status: PurchaseOrderStatus, $q: String, $warehouseId: ID, $createdAfter: String, $createdBefore: String) {
      purchaseOrders(storeId: $storeId, limit: $limit, cursor: $cursor, status: $status, q: $q, warehouseId: $warehouseId, createdAfter: $createdAfter, createdBefore: $createdBefore) {
        data { ${PURCHASE_ORDER} } nextCursor } }`,
  }),
  route({
    method: 'POST',
    path: base,
    summary: 'Create a draft purchase order, numbered per store',
    status: 201,
    operation: `mutation($storeId: ID!, $input: PurchaseOrderCreateInput!) { createPurchaseOrder(storeId: $storeId, input: $input) { ${PURCHASE_ORDER} } }`,
  }),
  route({
    method: 'POST',
    path: `${base}:batchCancel`,
    summary: 'Cancel up to 100 purchase orders in one transaction (batch envelope)',
    operation: `mutation($storeId: ID!, $input: PurchaseOrderBatchCancelInput!) { batchCancelPurchaseOrders(storeId: $storeId, input: $input) { ${BATCH_SELECTION(PURCHASE_ORDER)} } }`,
    reply: batchReply(200),
    responseSchema: batchResponseSchema('PurchaseOrder'),
  }),
  route({
    method: 'POST',
    path: `${base}:batchPdf`,
    summary: 'One merged PDF of up to 100 purchase orders (a page group and outline entry each), all or nothing',
    operation: `query($storeId: ID!, $input: PurchaseOrderIdsInput!, $download: String) { purchaseOrdersPdf(storeId: $storeId, input: $input, download: $download) { ${FILE_SELECTION} } }`,
    reply: fileReply,
    extraResponses: pdfResponses,
  }),
  route({
    method: 'POST',
    path: `${base}:batchSend`,
    errors: [429],
    summary: 'Queue the mailing of up to 100 purchase orders (batch envelope, 202)',
    operation: `mutation($storeId: ID!, $input: PurchaseOrderBatchSendInput!) { batchSendPurchaseOrders(storeId: $storeId, input: $input) { ${BATCH_SELECTION(PURCHASE_ORDER)} } }`,
    reply: batchReply(202),
    responseSchema: batchResponseSchema('PurchaseOrder'),
    status: 202,
  }),
  route({
    method: 'GET',
    path: `${base}/{id}`,
    summary: 'Show a purchase order with its receipts and sends',
    operation: `query($storeId: ID!, $id: ID!) { purchaseOrder(storeId: $storeId, id: $id) { ${PURCHASE_ORDER} } }`,
  }),
  route({
    method: 'PUT',
    path: `${base}/{id}`,
    summary: 'Update a purchase order (partial); items and currency only in draft; received and cancelled are final (409)',
    operation: `mutation($storeId: ID!, $id: ID!, $input: PurchaseOrderUpdateInput!) { updatePurchaseOrder(storeId: $storeId, id: $id, input: $input) { ${PURCHASE_ORDER} } }`,
  }),
  route({
    method: 'POST',
    path: `${base}/{id}/cancel`,
    summary: 'Cancel a purchase order {reason?}; already cancelled: unchanged; received: 409',
    operation: `mutation($storeId: ID!, $id: ID!, $input: PurchaseOrderCancelInput) { cancelPurchaseOrder(storeId: $storeId, id: $id, input: $input) { ${PURCHASE_ORDER} } }`,
  }),
  route({
    method: 'POST',
    path: `${base}/{id}/send`,
    errors: [429],
    summary: 'Queue a mail of the PDF {to?, cc?, subject?, message?} (default to: the supplier email); a draft becomes sent',
    status: 202,
    operation: `mutation($storeId: ID!, $id: ID!, $input: PurchaseOrderSendInput) { sendPurchaseOrder(storeId: $storeId, id: $id, input: $input) { ${PURCHASE_ORDER} } }`,
  }),
  route({
    method: 'POST',
    path: `${base}/{id}/status`,
    summary: 'Move a purchase order: sent, draft, or receive items (partial/received) into a warehouse',
    operation: `mutation($storeId: ID!, $id: ID!, $input: PurchaseOrderStatusInput!) { setPurchaseOrderStatus(storeId: $storeId, id: $id, input: $input) { ${PURCHASE_ORDER} } }`,
  }),
  route({
    method: 'GET',
    path: `${base}/{id}/pdf`,
    summary: 'The purchase order as a PDF (inline; ?download=1 for an attachment), with a stable ETag',
    operation: `query($storeId: ID!, $id: ID!, $download: String) { purchaseOrderPdf(storeId: $storeId, id: $id, download: $download) { ${FILE_SELECTION} } }`,
    reply: fileReply,
    extraResponses: pdfResponses,
  }),
]);
