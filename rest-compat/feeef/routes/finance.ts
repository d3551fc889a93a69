import { invalid } from '../../../src/core/errors.js';
import { BATCH_SELECTION } from '../../replies.js';
import { deleteRoute, findRoute, onResource, pageArgs, pageList } from '../pages.js';
import { PAGE_PARAMS, type Call, type FeeefRoute } from '../route.js';
import { anyObj, arr, bool, input, int, nobj, nstr, ntime, num, obj, oneOf, pageOf, str, strs, time } from '../schema.js';
import { mapInput, type FieldMap } from '../shapes.js';
import { batchAnswer, batchIds, batchSchema, PROJECT, storeOf } from './inventory.js';

/**
 * Feeef's suppliers and purchase receipts (feeef.js `finance.suppliers`, `finance.purchaseReceipts`).
 * A receipt is received against a purchase order: it is a draft until `post`, which receives its
 * lines through the order's receiving (stock, movements, the order's status) in one transaction.
 * Received stock is final on Souk, so a posted receipt cannot be voided or deleted (409).
 */

type Row = Record<string, any>;

const SUPPLIER = 'id storeId name code email phone taxId address paymentTerms notes metadata createdAt updatedAt';
const toSupplier = (s: Row) => ({ ...s, projectId: s.storeId, deletedAt: null });
const supplierSchema = obj({ id: str, projectId: str, name: str, code: nstr, phone: nstr, email: nstr, taxId: nstr, address: nobj, paymentTerms: nstr, metadata: anyObj, createdAt: time, updatedAt: time });
const supplierInput: FieldMap = {
  projectId: null,
  name: 'name',
  code: 'code',
  phone: 'phone',
  email: 'email',
  taxId: 'taxId',
  address: 'address',
  paymentTerms: 'paymentTerms',
  notes: 'notes',
  metadata: 'metadata',
};
const supplierBody = (required: string[]) =>
  input({ projectId: str, name: str, code: nstr, phone: nstr, email: nstr, taxId: nstr, address: nobj, paymentTerms: nstr, notes: nstr, metadata: anyObj }, required);

const RECEIPT = `id storeId purchaseOrderId supplierId warehouseId status reference notes currency totalCost
  lines { lineNo itemId poLineIndex productId sku qtyReceived unitCost lineTotal } receivedAt postedAt voidedAt poReceiptId createdAt updatedAt`;
const RECEIPT_ONE = (field: string) => `mutation($storeId: ID!, $id: ID!) { ${field}(storeId: $storeId, id: $id) { ${RECEIPT} } }`;

/** Feeef's receipt: lines carry their receipt, the stock object they fill, and Souk's item id. */
const toReceipt = (r: Row) => ({
  id: r.id,
  projectId: r.storeId,
  supplierId: r.supplierId,
  purchaseOrderId: r.purchaseOrderId,
  warehouseId: r.warehouseId,
  status: r.status,
  reference: r.reference,
  receivedAt: r.receivedAt,
  postedAt: r.postedAt,
  voidedAt: r.voidedAt,
  notes: r.notes,
  totalCost: r.totalCost,
  isPosted: r.status === 'posted',
  createdByUserId: null,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
  currency: r.currency,
  poReceiptId: r.poReceiptId,
  lines: (r.lines as Row[]).map((l) => ({
    id: `${r.id}~${l.lineNo}`,
    purchaseReceiptId: r.id,
    lineNo: l.lineNo,
    sku: l.sku,
    productId: l.productId,
    variantPath: '',
    batch: 'default',
    inventoryObjectId: r.warehouseId && l.productId ? `${r.warehouseId}~${l.productId}` : null,
    qtyReceived: l.qtyReceived,
    unitCost: l.unitCost,
    lineTotal: l.lineTotal,
    poLineIndex: l.poLineIndex,
    itemId: l.itemId,
    createdAt: r.createdAt,
  })),
});
const receiptSchema = obj({
  id: str,
  projectId: str,
  supplierId: nstr,
  purchaseOrderId: str,
  warehouseId: nstr,
  status: oneOf('draft', 'posted', 'voided'),
  receivedAt: time,
  postedAt: ntime,
  voidedAt: ntime,
  totalCost: num,
  isPosted: bool,
  lines: arr(obj({ lineNo: int, sku: nstr, productId: nstr, qtyReceived: int, unitCost: num, lineTotal: num, poLineIndex: int })),
});

/** Feeef's receipt body; Souk receives against a purchase order, so purchaseOrderId is required. */
function receiptInput(body: Row): Row {
  const out = mapInput(body, {
    projectId: null,
    supplierId: 'supplierId',
    purchaseOrderId: 'purchaseOrderId',
    warehouseId: 'warehouseId',
    reference: 'reference',
    receivedAt: 'receivedAt',
    notes: 'notes',
    lines: (value, o) => {
      if (!Array.isArray(value)) throw invalid('lines', 'must be an array');
      o.lines = value.map((line, i) => {
        if (!line || typeof line !== 'object') throw invalid(`lines.${i}`, 'must be an object');
        // variantPath and batch name Feeef's stock buckets; Souk's stock is per product and warehouse.
        return mapInput(line as Row, { sku: 'sku', productId: 'productId', variantPath: null, batch: null, qtyReceived: 'qtyReceived', unitCost: 'unitCost', poLineIndex: 'poLineIndex', itemId: 'itemId' });
      });
    },
  });
  if (!out.purchaseOrderId) throw invalid('purchaseOrderId', 'is required: Souk receives goods against a purchase order');
  return out;
}

const listOf = (call: Call, vars: Row, map: (row: Row) => unknown) => pageList(pageArgs(call.query), (cursor, limit) => call.run({ ...vars, cursor, limit }), { map });

export const routes: FeeefRoute[] = [
  // Suppliers.
  {
    method: 'GET',
    path: '/finance/suppliers',
    summary: "A store's suppliers (projectId), newest first; q (or search) matches the name, code, email or phone",
    operation: `query($storeId: ID!, $limit: Int, $cursor: String, $q: String) { suppliers(storeId: $storeId, limit: $limit, cursor: $cursor, q: $q) { data { ${SUPPLIER} } nextCursor } }`,
    query: { ...PAGE_PARAMS, ...PROJECT, q: { type: 'string' }, search: { type: 'string', description: 'Same as q' } },
    response: pageOf(supplierSchema),
    handle: async (call) => listOf(call, { storeId: storeOf(call), q: call.query.first('q', 'search') }, toSupplier),
  },
  {
    method: 'POST',
    path: '/finance/suppliers',
    summary: "Create a supplier in the body's projectId",
    operation: `mutation($storeId: ID!, $input: SupplierCreateInput!) { createSupplier(storeId: $storeId, input: $input) { ${SUPPLIER} } }`,
    status: 201,
    body: supplierBody(['projectId', 'name']),
    response: supplierSchema,
    handle: async (call) => toSupplier(await call.run({ storeId: storeOf(call), input: mapInput(call.body, supplierInput) })),
  },
  {
    method: 'POST',
    path: '/finance/suppliers:batchDelete',
    summary: 'Delete up to 100 suppliers by name in one transaction (purchase orders keep their copy of the supplier)',
    operation: `mutation($storeId: ID!, $input: SupplierBatchDeleteInput!) { batchDeleteSuppliers(storeId: $storeId, input: $input) { ${BATCH_SELECTION(SUPPLIER)} } }`,
    body: input({ projectId: str, names: strs, returnPartialSuccess: bool, requestId: str }, ['projectId', 'names']),
    response: batchSchema,
    handle: async (call) => batchAnswer(await call.run({ storeId: storeOf(call), input: batchIds(call) }), toSupplier),
  },
  findRoute({
    path: '/finance/suppliers/{id}',
    summary: 'Show a supplier',
    operation: `query($storeId: ID!, $id: ID!) { supplier(storeId: $storeId, id: $id) { ${SUPPLIER} } }`,
    query: { ...PROJECT, by: { type: 'string', description: 'Only id' } },
    prefixes: ['sup'],
    map: toSupplier,
    response: supplierSchema,
  }),
  {
    method: 'PUT',
    path: '/finance/suppliers/{id}',
    summary: "Change the given fields of a supplier (null clears one); purchase orders keep their copy",
    operation: `mutation($storeId: ID!, $id: ID!, $input: SupplierUpdateInput!) { updateSupplier(storeId: $storeId, id: $id, input: $input) { ${SUPPLIER} } }`,
    query: PROJECT,
    body: supplierBody([]),
    response: supplierSchema,
    handle: async (call) => toSupplier(await onResource(call, ['sup'], () => ({ input: mapInput(call.body, supplierInput) }))),
  },
  deleteRoute({
    path: '/finance/suppliers/{id}',
    summary: 'Delete a supplier; purchase orders keep their copy',
    operation: 'mutation($storeId: ID!, $id: ID!) { deleteSupplier(storeId: $storeId, id: $id) }',
    query: { ...PROJECT, by: { type: 'string', description: 'Only id' } },
    prefixes: ['sup'],
  }),
  // Purchase receipts.
  {
    method: 'GET',
    path: '/finance/purchase-receipts',
    summary: "A store's purchase receipts (projectId), newest first; purchaseOrderId, supplierId, status",
    operation: `query($storeId: ID!, $limit: Int, $cursor: String, $purchaseOrderId: ID, $supplierId: ID, $status: PurchaseReceiptStatus) {
      purchaseReceipts(storeId: $storeId, limit: $limit, cursor: $cursor, purchaseOrderId: $purchaseOrderId, supplierId: $supplierId, status: $status) { data { ${RECEIPT} } nextCursor } }`,
    query: { ...PAGE_PARAMS, ...PROJECT, purchaseOrderId: { type: 'string' }, supplierId: { type: 'string' }, status: { type: 'string' } },
    response: pageOf(receiptSchema),
    handle: async (call) =>
      listOf(call, { storeId: storeOf(call), purchaseOrderId: call.query.string('purchaseOrderId'), supplierId: call.query.string('supplierId'), status: call.query.string('status') }, toReceipt),
  },
  {
    method: 'POST',
    path: '/finance/purchase-receipts',
    summary: "A draft receipt against purchaseOrderId in the body's projectId; lines name the order's items (poLineIndex, productId or sku); nothing moves until post",
    operation: `mutation($storeId: ID!, $input: PurchaseReceiptCreateInput!) { createPurchaseReceipt(storeId: $storeId, input: $input) { ${RECEIPT} } }`,
    status: 201,
    body: input({ projectId: str, supplierId: nstr, purchaseOrderId: nstr, warehouseId: nstr, reference: str, receivedAt: str, notes: str, lines: arr(anyObj) }, ['projectId', 'lines']),
    response: receiptSchema,
    handle: async (call) => toReceipt(await call.run({ storeId: storeOf(call), input: receiptInput(call.body) })),
  },
  findRoute({
    path: '/finance/purchase-receipts/{id}',
    summary: 'Show a purchase receipt with its lines',
    operation: `query($storeId: ID!, $id: ID!) { purchaseReceipt(storeId: $storeId, id: $id) { ${RECEIPT} } }`,
    query: { ...PROJECT, by: { type: 'string', description: 'Only id' } },
    prefixes: ['prc'],
    map: toReceipt,
    response: receiptSchema,
  }),
  deleteRoute({
    path: '/finance/purchase-receipts/{id}',
    summary: 'Delete a draft receipt; posted or voided → 409',
    operation: 'mutation($storeId: ID!, $id: ID!) { deletePurchaseReceipt(storeId: $storeId, id: $id) }',
    query: { ...PROJECT, by: { type: 'string', description: 'Only id' } },
    prefixes: ['prc'],
  }),
  {
    method: 'POST',
    path: '/finance/purchase-receipts/{id}/post',
    summary: "Post a draft: its lines are received into the order (warehouse levels, movements, the order's status) in one transaction; over-receipt → 400; posted again: unchanged",
    operation: RECEIPT_ONE('postPurchaseReceipt'),
    query: PROJECT,
    response: receiptSchema,
    handle: async (call) => toReceipt(await onResource(call, ['prc'])),
  },
  {
    method: 'POST',
    path: '/finance/purchase-receipts/{id}/void',
    summary: 'Void a draft (it moved no stock); voided again: unchanged; posted → 409 (received stock is final: adjust stock instead)',
    operation: RECEIPT_ONE('voidPurchaseReceipt'),
    query: PROJECT,
    response: receiptSchema,
    handle: async (call) => toReceipt(await onResource(call, ['prc'])),
  },
];
