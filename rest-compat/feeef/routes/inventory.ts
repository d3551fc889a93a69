import { AppError, invalid } from '../../../src/core/errors.js';
import { BATCH_SELECTION } from '../../replies.js';
import { WAREHOUSE } from '../../routes/inventory.js';
import { PURCHASE_ORDER } from '../../routes/purchase-orders.js';
import { missing, requireStore, storeFor } from '../locate.js';
import { located, pageArgs, pageList, scan, SCAN_LIMIT, findRoute, deleteRoute, onResource } from '../pages.js';
import { assertById, PAGE_PARAMS, Reply, type Call, type FeeefRoute, type Param } from '../route.js';
import { anyObj, arr, bool, input, int, nstr, num, obj, oneOf, pageOf, str, strs, time } from '../schema.js';
import { mapInput, type FieldMap } from '../shapes.js';

/**
 * Warehouses, stock movements and purchase orders. Feeef scopes inventory and finance by an
 * inventory `projectId`; on Souk a store is its own project, so `projectId` is the store id.
 * Batches take Feeef's `names` (ids, or resource names ending in the id) and answer its batch
 * envelope; a batch that fails with `returnPartialSuccess: false` is a 400 ABORTED and changes
 * nothing.
 */

type Row = Record<string, any>;

export const PROJECT: Record<string, Param> = { projectId: { type: 'string', description: 'The store id' }, storeId: { type: 'string' }, store_id: { type: 'string' } };
export const storeOf = (call: Call) => requireStore(call, 'projectId');

const PUBLIC_PRODUCTS = 'query($store: String!, $cursor: String, $limit: Int) { storefront(store: $store) { products(limit: $limit, cursor: $cursor) { data { sku inStock available } nextCursor } } }';
/** Pages of 100 the public availability reads at most: the storefront's read limit counts each. */
const PUBLIC_PAGES = 20;

const toWarehouse = (w: Row) => ({ ...w, projectId: w.storeId });
const warehouseSchema = obj({ id: str, projectId: str, name: str, code: str, metadata: anyObj, createdAt: time, updatedAt: time });
const warehouseInput: FieldMap = {
  name: 'name',
  code: 'code',
  metadata: 'metadata',
  email: 'email',
  address: 'address',
  active: 'active',
  isDefault: 'isDefault',
  projectId: null,
  namespacePrefix: null,
};

export const batchSchema = obj({
  resources: arr(anyObj),
  failedRequests: { type: 'object', additionalProperties: obj({ code: str, message: str }) },
  summary: obj({ total: int, succeeded: int, failed: int }),
});

/** Feeef's batch body: `names` are ids or resource names (`…/warehouses/{id}`). */
export function batchIds(call: Call): { ids: string[]; returnPartialSuccess: boolean } {
  const { names, returnPartialSuccess } = mapInput(call.body, { projectId: null, names: 'names', returnPartialSuccess: 'returnPartialSuccess', requestId: null });
  if (!Array.isArray(names) || names.some((n) => typeof n !== 'string')) throw invalid('names', 'must be an array of ids');
  if (returnPartialSuccess !== undefined && typeof returnPartialSuccess !== 'boolean') throw invalid('returnPartialSuccess', 'must be true or false');
  return { ids: (names as string[]).map((n) => n.split('/').pop()!), returnPartialSuccess: returnPartialSuccess ?? true };
}

/** Souk's batch answer in Feeef's envelope; an aborted batch is Feeef's 400 `{code: ABORTED, message, …}`. */
export function batchAnswer(v: Row, map: (r: Row) => unknown) {
  const failedRequests = Object.fromEntries((v.failures as Row[]).map((f) => [String(f.index), { code: f.code, message: f.message }]));
  if (v.aborted) {
    const message = `${v.summary.failed} of ${v.summary.total} requests failed; returnPartialSuccess is false, so nothing was changed`;
    return new Reply(400, { type: 'about:blank', title: 'Batch Aborted', status: 400, detail: message, code: 'ABORTED', message, failedRequests, summary: v.summary }, { 'content-type': 'application/problem+json' });
  }
  return { resources: (v.resources as Row[]).map(map), failedRequests, summary: v.summary };
}

const MOVEMENT = 'id productId warehouseId delta reason refId createdAt';
const toMovement = (storeId: string) => (m: Row) => ({
  id: m.id,
  projectId: storeId,
  objectId: m.productId,
  type: m.reason === 'adjustment' ? 'adjust' : m.delta >= 0 ? 'in' : 'out',
  quantityDelta: m.delta,
  balanceAfter: null,
  reason: m.reason,
  correlationRef: m.refId,
  metadata: {},
  createdAt: m.createdAt,
  productId: m.productId,
  warehouseId: m.warehouseId,
});
/**
 * Feeef's stock object from a Souk inventory level (a product's stock in a warehouse): the id is
 * `{warehouseId}~{productId}`; Souk keeps no SKU buckets, batches or reservations, so the bucket
 * fields are the defaults and all stock on hand is available.
 */
const LEVEL = 'warehouseId productId onHand updatedAt';
const LEVELS = `query($storeId: ID!, $productId: ID, $warehouseId: ID, $limit: Int, $cursor: String) { inventoryLevels(storeId: $storeId, productId: $productId, warehouseId: $warehouseId, limit: $limit, cursor: $cursor) { data { ${LEVEL} } nextCursor } }`;
const SKUS = 'query($storeId: ID!, $limit: Int, $cursor: String) { products(storeId: $storeId, limit: $limit, cursor: $cursor) { data { id sku } nextCursor } }';
const toObject = (storeId: string, skus: Map<string, string | null>) => (l: Row) => ({
  id: `${l.warehouseId}~${l.productId}`,
  projectId: storeId,
  namespace: 'default',
  sku: skus.get(l.productId) ?? null,
  batch: 'default',
  warehouseId: l.warehouseId,
  storageClass: 'default',
  key: l.productId,
  quantityOnHand: l.onHand,
  quantityReserved: 0,
  quantityAvailable: l.onHand,
  receivedAt: null,
  metadata: {},
  createdAt: l.updatedAt,
  updatedAt: l.updatedAt,
  productId: l.productId,
});
const objectSchema = obj({ id: str, projectId: str, sku: nstr, warehouseId: str, quantityOnHand: int, quantityReserved: int, quantityAvailable: int, updatedAt: time });

async function skusOf(call: Call, storeId: string, productIds: string[]): Promise<Map<string, string | null>> {
  const wanted = new Set(productIds);
  const { rows } = await scan<Row>((cursor, limit) => call.run({ storeId, cursor, limit }, { operation: SKUS }), SCAN_LIMIT);
  return new Map(rows.filter((p) => wanted.has(p.id)).map((p) => [p.id, p.sku]));
}


const OBJECT_WRITE = 'Souk keeps one stock object per product and warehouse';
/** Feeef bucket fields Souk has one value of: the default is accepted, another is refused rather than merged away. */
const onlyDefault = (field: string) => (v: unknown) => {
  if (v !== null && v !== 'default') throw invalid(field, `must be "default" (or absent): ${OBJECT_WRITE}, without batches or storage classes`);
};
/** `{warehouseId}~{productId}`, or NOT_FOUND. */
function objectKey(id: string): { warehouseId: string; productId: string } {
  const [warehouseId, productId, more] = id.split('~');
  if (!warehouseId || !productId || more !== undefined) throw new AppError('NOT_FOUND', 'No such stock object');
  return { warehouseId, productId };
}
/** The caller's store for a stock object: the named one, else its warehouse's. */
async function objectStore(call: Call): Promise<{ storeId: string; warehouseId: string; productId: string }> {
  const key = objectKey(call.params.id);
  return { storeId: await storeFor(call, key.warehouseId, ['whs']), ...key };
}
async function toObjects(call: Call, storeId: string, levels: Row[]) {
  const skus = await skusOf(call, storeId, levels.map((l) => l.productId));
  return levels.map(toObject(storeId, skus));
}
const COUNT_FIELDS = ['quantityOnHand', 'quantity'];
/** The count a PUT or batch update sets; the fields Souk cannot change are refused by name. */
function countOf(fields: Row, mask: string[] | null): number {
  let count: unknown;
  for (const [key, value] of Object.entries(fields)) {
    if (mask && !mask.includes(key)) continue;
    if (COUNT_FIELDS.includes(key)) count = value;
    else if (key === 'batch' || key === 'storageClass') onlyDefault(key)(value);
    else if (key !== 'namespace' && key !== 'metadata') {
      throw invalid(mask ? 'updateMask' : key, `${key}: ${OBJECT_WRITE}; only its count (quantityOnHand) changes${key === 'warehouseId' ? ' (move units between warehouses with POST /inventory/objects/apply-deltas)' : ''}`);
    }
  }
  if (count === undefined) throw invalid(mask ? 'updateMask' : 'quantityOnHand', 'must name quantityOnHand: the count is what a Souk stock object changes');
  if (typeof count !== 'number' || !Number.isInteger(count)) throw invalid('quantityOnHand', 'must be an integer');
  return count;
}
const RECEIVE = `mutation($storeId: ID!, $input: InventoryReceiveInput!) { receiveInventory(storeId: $storeId, input: $input) { ${LEVEL} } }`;
const SET_LEVEL = `mutation($storeId: ID!, $input: InventoryLevelSetInput!) { setInventoryLevel(storeId: $storeId, input: $input) { ${LEVEL} } }`;
const DELTAS = `mutation($storeId: ID!, $input: InventoryDeltasInput!) { applyInventoryDeltas(storeId: $storeId, input: $input) { levels { ${LEVEL} } replayed } }`;
const AVAILABILITY = 'query($storeId: ID!, $skus: [String!]!) { inventoryAvailability(storeId: $storeId, skus: $skus) { sku available } }';

const movementSchema = obj({ id: str, projectId: str, objectId: str, type: oneOf('in', 'out', 'adjust'), quantityDelta: int, reason: str, createdAt: time });

// ── purchase orders ────────────────────────────────────────────────────────

/** The /v1 selection plus the supplier record the order was created from. */
const PO = `${PURCHASE_ORDER} supplierId`;
const GET_PO = `query($storeId: ID!, $id: ID!) { purchaseOrder(storeId: $storeId, id: $id) { ${PO} } }`;
const SET_STATUS = `mutation($storeId: ID!, $id: ID!, $input: PurchaseOrderStatusInput!) { setPurchaseOrderStatus(storeId: $storeId, id: $id, input: $input) { ${PO} } }`;
const CANCEL = `mutation($storeId: ID!, $id: ID!, $input: PurchaseOrderCancelInput) { cancelPurchaseOrder(storeId: $storeId, id: $id, input: $input) { ${PO} } }`;

/** Feeef's purchase order: the supplier block is the order's own copy; supplierId the record it came from, if any. */
const toPurchaseOrder = (p: Row) => ({
  id: p.id,
  projectId: p.storeId,
  supplierId: p.supplierId,
  status: p.status,
  reference: p.reference,
  expectedAt: p.expectedAt,
  notes: p.notes,
  items: (p.items as Row[]).map((i) => ({ sku: i.sku, productId: i.productId, qtyOrdered: i.qtyOrdered, qtyReceived: i.qtyReceived, unitCost: i.unitCost, warehouseId: p.warehouseId, batch: null, name: i.name, id: i.id })),
  currency: p.currency,
  subtotal: p.subtotal,
  createdByUserId: null,
  createdAt: p.createdAt,
  updatedAt: p.updatedAt,
  ...Object.fromEntries(['storeId', 'number', 'supplier', 'warehouseId', 'shippingCost', 'tax', 'total', 'sentAt', 'receivedAt', 'cancelledAt', 'cancelReason', 'receipts', 'sends'].map((k) => [k, p[k]])),
});
const poSchema = obj({ id: str, projectId: str, supplierId: nstr, status: oneOf('draft', 'sent', 'partial', 'received', 'cancelled'), items: arr(obj({ qtyOrdered: int, qtyReceived: int, unitCost: num })), subtotal: num, createdAt: time });

/** Feeef items carry a warehouse each; a Souk purchase order has one ship-to warehouse. */
function poItemsInto(value: unknown, out: Row) {
  if (!Array.isArray(value)) throw invalid('items', 'must be an array');
  const warehouses = new Set<string>();
  out.items = value.map((item, i) => {
    if (!item || typeof item !== 'object') throw invalid(`items.${i}`, 'must be an object');
    return mapInput(item as Row, {
      sku: 'sku',
      productId: 'productId',
      qtyOrdered: 'qtyOrdered',
      unitCost: 'unitCost',
      name: 'name',
      variantPath: null,
      batch: null,
      warehouseId: (v) => {
        if (v !== null) warehouses.add(String(v));
      },
      qtyReceived: (v) => {
        if (v !== 0) throw invalid(`items.${i}.qtyReceived`, 'is set by receiving (POST /finance/purchase-orders/{id}/status)');
      },
    });
  });
  if (warehouses.size > 1) throw invalid('items', 'must all go to one warehouse: a Souk purchase order has one ship-to warehouse');
  if (warehouses.size === 1) out.warehouseId = [...warehouses][0];
}

const poInput: FieldMap = {
  supplier: 'supplier',
  supplierId: 'supplierId',
  reference: 'reference',
  expectedAt: 'expectedAt',
  notes: 'notes',
  items: poItemsInto,
  currency: 'currency',
  warehouseId: 'warehouseId',
  shippingCost: 'shippingCost',
  tax: 'tax',
  projectId: null,
};

/**
 * The supplier is a supplierId of the store (its fields are copied onto the order) or given
 * inline; supplierId is read at creation only (an update changes the order's block with supplier).
 */
function purchaseOrderInput(body: Row, creating: boolean): Row {
  const { supplierId, ...mapped } = mapInput(body, poInput);
  return creating && supplierId !== undefined ? { ...mapped, supplierId } : mapped;
}

const poBody = { ...input({ projectId: str, supplierId: str, supplier: anyObj, reference: str, expectedAt: str, notes: str, items: arr(anyObj), currency: str }), additionalProperties: true };

export const routes: FeeefRoute[] = [
  {
    method: 'GET',
    path: '/inventory/warehouses',
    summary: "A store's warehouses (projectId), newest first",
    operation: `query($storeId: ID!, $limit: Int, $cursor: String, $active: Boolean) { warehouses(storeId: $storeId, limit: $limit, cursor: $cursor, active: $active) { data { ${WAREHOUSE} } nextCursor } }`,
    query: { ...PAGE_PARAMS, ...PROJECT, active: { type: 'boolean' } },
    response: pageOf(warehouseSchema),
    handle: async (call) => {
      const storeId = storeOf(call);
      const active = call.query.boolean('active');
      return pageList(pageArgs(call.query), (cursor, limit) => call.run({ storeId, cursor, limit, active }), { map: toWarehouse });
    },
  },
  {
    method: 'POST',
    path: '/inventory/warehouses',
    summary: "Create a warehouse in the body's projectId; a store's first becomes its default",
    operation: `mutation($storeId: ID!, $input: WarehouseCreateInput!) { createWarehouse(storeId: $storeId, input: $input) { ${WAREHOUSE} } }`,
    status: 201,
    body: input({ projectId: str, name: str, code: str, namespacePrefix: str, metadata: anyObj, email: str, address: anyObj, active: bool, isDefault: bool }, ['projectId', 'name']),
    response: warehouseSchema,
    handle: async (call) => toWarehouse(await call.run({ storeId: storeOf(call), input: mapInput(call.body, warehouseInput) })),
  },
  {
    method: 'POST',
    path: '/inventory/warehouses:batchDelete',
    summary: 'Delete up to 100 warehouses by name in one transaction; 409 per warehouse holding stock or awaited by an open purchase order',
    operation: `mutation($storeId: ID!, $input: WarehouseBatchDeleteInput!) { batchDeleteWarehouses(storeId: $storeId, input: $input) { ${BATCH_SELECTION(WAREHOUSE)} } }`,
    body: input({ projectId: str, names: strs, returnPartialSuccess: bool, requestId: str }, ['projectId', 'names']),
    response: batchSchema,
    handle: async (call) => batchAnswer(await call.run({ storeId: storeOf(call), input: batchIds(call) }), toWarehouse),
  },
  findRoute({
    path: '/inventory/warehouses/{id}',
    summary: 'Show a warehouse',
    operation: `query($storeId: ID!, $id: ID!) { warehouse(storeId: $storeId, id: $id) { ${WAREHOUSE} } }`,
    query: { ...PROJECT, by: { type: 'string', description: 'Only id' } },
    prefixes: ['whs'],
    map: toWarehouse,
    response: warehouseSchema,
  }),
  {
    method: 'PUT',
    path: '/inventory/warehouses/{id}',
    summary: 'Change the given fields of a warehouse; isDefault: true makes it the default',
    operation: `mutation($storeId: ID!, $id: ID!, $input: WarehouseUpdateInput!) { updateWarehouse(storeId: $storeId, id: $id, input: $input) { ${WAREHOUSE} } }`,
    query: PROJECT,
    body: input({ projectId: str, name: str, code: str, namespacePrefix: str, metadata: anyObj, email: str, address: anyObj, active: bool, isDefault: bool }),
    response: warehouseSchema,
    handle: async (call) => {
      return toWarehouse(await onResource(call, ['whs'], () => ({ input: mapInput(call.body, warehouseInput) })));
    },
  },
  deleteRoute({
    path: '/inventory/warehouses/{id}',
    summary: 'Delete a warehouse; 409 while it holds stock or an open purchase order awaits it',
    operation: 'mutation($storeId: ID!, $id: ID!) { deleteWarehouse(storeId: $storeId, id: $id) }',
    query: { ...PROJECT, by: { type: 'string', description: 'Only id' } },
    prefixes: ['whs'],
  }),
  {
    method: 'GET',
    path: '/inventory/movements',
    summary: "The stock ledger of projectId, newest first (productId, warehouseId); objectId is the product",
    operation: `query($storeId: ID!, $productId: ID, $warehouseId: ID, $limit: Int, $cursor: String) { inventoryMovements(storeId: $storeId, productId: $productId, warehouseId: $warehouseId, limit: $limit, cursor: $cursor) { data { ${MOVEMENT} } nextCursor } }`,
    query: { ...PAGE_PARAMS, ...PROJECT, productId: { type: 'string' }, objectId: { type: 'string', description: 'Same as productId' }, warehouseId: { type: 'string' } },
    response: pageOf(movementSchema),
    handle: async (call) => {
      const storeId = storeOf(call);
      const vars = { storeId, productId: call.query.first('productId', 'objectId'), warehouseId: call.query.string('warehouseId') };
      return pageList(pageArgs(call.query), (cursor, limit) => call.run({ ...vars, cursor, limit }), { map: toMovement(storeId) });
    },
  },
  {
    method: 'GET',
    path: '/inventory/movements/{id}',
    summary: 'Show a movement of the stock ledger',
    operation: `query($storeId: ID!, $limit: Int, $cursor: String) { inventoryMovements(storeId: $storeId, limit: $limit, cursor: $cursor) { data { ${MOVEMENT} } nextCursor } }`,
    query: { ...PROJECT, by: { type: 'string', description: 'Only id' } },
    response: movementSchema,
    handle: async (call) => {
      assertById(call.query);
      const id = call.params.id;
      const storeId = await storeFor(call, id, ['ine']);
      const { rows } = await located(id, scan<Row>((cursor, limit) => call.run({ storeId, cursor, limit }), SCAN_LIMIT));
      const found = rows.find((m) => m.id === id);
      if (!found) throw missing(id);
      return toMovement(storeId)(found);
    },
  },
  {
    method: 'GET',
    path: '/inventory/objects',
    summary: "Stock of projectId per product and warehouse (Souk's inventory levels as Feeef stock objects); productId, warehouseId filter",
    operation: LEVELS,
    operations: [SKUS],
    query: { ...PAGE_PARAMS, ...PROJECT, productId: { type: 'string' }, warehouseId: { type: 'string' } },
    response: pageOf(objectSchema),
    handle: async (call) => {
      const storeId = storeOf(call);
      const vars = { storeId, productId: call.query.string('productId'), warehouseId: call.query.string('warehouseId') };
      const page = await pageList(pageArgs(call.query), (cursor, limit) => call.run({ ...vars, cursor, limit }), { map: (l: Row) => l });
      const levels = page.data as Row[];
      const skus = await skusOf(call, storeId, levels.map((l) => l.productId));
      return { ...page, data: levels.map(toObject(storeId, skus)) };
    },
  },
  {
    method: 'GET',
    path: '/inventory/objects/{id}',
    summary: 'Stock of one product in one warehouse; the id is {warehouseId}~{productId}',
    operation: LEVELS,
    operations: [SKUS],
    query: PROJECT,
    response: objectSchema,
    handle: async (call) => {
      const id = call.params.id;
      const [warehouseId, productId] = id.split('~');
      const none = new AppError('NOT_FOUND', 'No such stock object');
      if (!warehouseId || !productId) throw none;
      const storeId = await storeFor(call, warehouseId, ['whs']);
      const level = (await located(warehouseId, call.run({ storeId, warehouseId, productId, limit: 1 }))).data[0];
      if (!level) throw none;
      return toObject(storeId, await skusOf(call, storeId, [productId]))(level);
    },
  },
  {
    method: 'POST',
    path: '/inventory/objects',
    summary:
      "Receive quantity units of a product (sku, or productId) into a warehouse (default: the default one), opening its stock object there; an adjustment movement. namespace and metadata are not kept; batch and storageClass must be default",
    operation: RECEIVE,
    operations: [SKUS],
    status: 201,
    body: input({ projectId: str, namespace: str, sku: str, productId: str, batch: str, quantity: int, warehouseId: str, storageClass: str, metadata: anyObj }, ['projectId', 'quantity']),
    response: objectSchema,
    handle: async (call) => {
      const storeId = storeOf(call);
      const mapped = mapInput(call.body, { projectId: null, namespace: null, metadata: null, sku: 'sku', productId: 'productId', quantity: 'quantity', warehouseId: 'warehouseId', batch: onlyDefault('batch'), storageClass: onlyDefault('storageClass') });
      // A productId names the product outright; the sku then only documents it.
      if (mapped.productId !== undefined) delete mapped.sku;
      const level = await call.run({ storeId, input: mapped });
      return (await toObjects(call, storeId, [level]))[0];
    },
  },
  {
    method: 'PUT',
    path: '/inventory/objects/{id}',
    summary: 'Set the count of a stock object (quantityOnHand, or quantity); the difference is an adjustment movement. Other bucket fields cannot change (400)',
    operation: SET_LEVEL,
    operations: [SKUS],
    query: PROJECT,
    body: input({ projectId: str, quantityOnHand: int, quantity: int, namespace: str, batch: str, storageClass: str, metadata: anyObj }),
    response: objectSchema,
    handle: async (call) => {
      const { storeId, warehouseId, productId } = await objectStore(call);
      const { projectId, ...fields } = call.body;
      const onHand = countOf(fields, null);
      const level = await located(call.params.id, call.run({ storeId, input: { warehouseId, productId, onHand } }));
      return (await toObjects(call, storeId, [level]))[0];
    },
  },
  {
    method: 'DELETE',
    path: '/inventory/objects/{id}',
    summary: 'Remove a stock object that holds nothing; 409 while it holds units (set it to 0 first, an adjustment movement)',
    operation: 'mutation($storeId: ID!, $warehouseId: ID!, $productId: ID!) { deleteInventoryLevel(storeId: $storeId, warehouseId: $warehouseId, productId: $productId) }',
    query: PROJECT,
    status: 204,
    handle: async (call) => {
      const { storeId, warehouseId, productId } = await objectStore(call);
      await located(call.params.id, call.run({ storeId, warehouseId, productId }));
    },
  },
  {
    method: 'POST',
    path: '/inventory/objects:batchDelete',
    summary: 'Remove up to 100 empty stock objects by name in one transaction; 409 per object holding units',
    operation: `mutation($storeId: ID!, $input: InventoryLevelBatchDeleteInput!) { batchDeleteInventoryLevels(storeId: $storeId, input: $input) { ${BATCH_SELECTION(LEVEL)} } }`,
    operations: [SKUS],
    body: input({ projectId: str, names: strs, returnPartialSuccess: bool, requestId: str }, ['projectId', 'names']),
    response: batchSchema,
    handle: async (call) => {
      const storeId = storeOf(call);
      const v = await call.run({ storeId, input: batchIds(call) });
      const skus = await skusOf(call, storeId, (v.resources as Row[]).map((l) => l.productId));
      return batchAnswer(v, toObject(storeId, skus));
    },
  },
  {
    method: 'POST',
    path: '/inventory/objects:batchUpdate',
    summary: 'Set up to 100 stock objects to one count (updateMask: quantityOnHand) in one transaction; masks naming fields Souk has no counterpart for are 400',
    operation: `mutation($storeId: ID!, $input: InventoryLevelBatchSetInput!) { batchSetInventoryLevels(storeId: $storeId, input: $input) { ${BATCH_SELECTION(LEVEL)} } }`,
    operations: [SKUS],
    body: { ...input({ projectId: str, names: strs, updateMask: strs, returnPartialSuccess: bool, requestId: str, quantityOnHand: int }, ['projectId', 'names', 'updateMask']), additionalProperties: true },
    response: batchSchema,
    handle: async (call) => {
      const storeId = storeOf(call);
      const { projectId, names, updateMask, returnPartialSuccess, requestId, ...fields } = call.body;
      if (!Array.isArray(updateMask) || updateMask.some((m) => typeof m !== 'string')) throw invalid('updateMask', 'must be an array of field names');
      const onHand = countOf(fields, updateMask as string[]);
      const ids = batchIds({ ...call, body: { names, returnPartialSuccess } });
      const v = await call.run({ storeId, input: { ...ids, onHand } });
      const skus = await skusOf(call, storeId, (v.resources as Row[]).map((l) => l.productId));
      return batchAnswer(v, toObject(storeId, skus));
    },
  },
  {
    method: 'POST',
    path: '/inventory/objects/apply-deltas',
    summary:
      'Apply signed quantityDeltas to stock objects in one transaction, all or nothing; never below zero for a product without allowBackorder (409 at deltas.{i}); each an adjustment movement; a correlationRef applied before is not applied again',
    operation: DELTAS,
    operations: [SKUS],
    body: input({ projectId: str, deltas: arr(obj({ objectId: str, quantityDelta: int })), reason: str, correlationRef: str }, ['projectId', 'deltas']),
    response: obj({ data: arr(objectSchema), replayed: bool }),
    handle: async (call) => {
      const storeId = storeOf(call);
      const { deltas, correlationRef } = mapInput(call.body, {
        projectId: null,
        deltas: 'deltas',
        correlationRef: 'correlationRef',
        // Souk's ledger says why by kind (adjustment); Feeef's free-text reason is not kept.
        reason: (v) => {
          if (typeof v !== 'string') throw invalid('reason', 'must be a string');
        },
      });
      if (!Array.isArray(deltas)) throw invalid('deltas', 'must be an array');
      if (correlationRef !== undefined && correlationRef !== null && typeof correlationRef !== 'string') throw invalid('correlationRef', 'must be a string');
      const mapped = deltas.map((d, i) => {
        if (!d || typeof d !== 'object') throw invalid(`deltas.${i}`, 'must be an object');
        const { objectId, quantityDelta } = mapInput(d as Row, { objectId: 'objectId', quantityDelta: 'quantityDelta' });
        if (typeof objectId !== 'string' || !/^[^~]+~[^~]+$/.test(objectId)) throw invalid(`deltas.${i}.objectId`, 'must be a stock object id ({warehouseId}~{productId})');
        if (typeof quantityDelta !== 'number' || !Number.isInteger(quantityDelta)) throw invalid(`deltas.${i}.quantityDelta`, 'must be an integer');
        const [warehouseId, productId] = objectId.split('~');
        return { warehouseId, productId, delta: quantityDelta };
      });
      const v = await call.run({ storeId, input: { deltas: mapped, key: correlationRef || null } });
      return { data: await toObjects(call, storeId, v.levels), replayed: v.replayed };
    },
  },
  {
    method: 'GET',
    path: '/inventory/availability',
    summary: "What projectId holds of each SKU (skus, comma-separated, 1 to 200): its products' stock (the sum of their levels), never below 0; an unknown SKU is 0",
    operation: AVAILABILITY,
    query: { ...PROJECT, skus: { type: 'list', description: 'SKUs, comma-separated' } },
    response: obj({ data: { type: 'object', additionalProperties: int } }),
    handle: async (call) => {
      const rows = (await call.run({ storeId: storeOf(call), skus: call.query.list('skus') ?? [] })) as Row[];
      return { data: Object.fromEntries(rows.map((r) => [r.sku, r.available])) };
    },
  },
  {
    method: 'POST',
    path: '/inventory/public/availability',
    summary:
      "Anonymous: what shoppers may order of each SKU in storeId, from the storefront's active products: the count when the store shows stock levels, else 1 in stock and 0 not; an unknown SKU is 0",
    operation: PUBLIC_PRODUCTS,
    errors: [429],
    body: input({ storeId: str, skus: strs }, ['storeId', 'skus']),
    response: obj({ data: { type: 'object', additionalProperties: int } }),
    handle: async (call) => {
      const storeId = requireStore(call, 'storeId', ['storeId']);
      const skus = call.body.skus;
      if (!Array.isArray(skus) || skus.length === 0 || skus.length > 200 || skus.some((s) => typeof s !== 'string' || s === '')) throw invalid('skus', 'must hold 1 to 200 SKUs');
      const wanted = new Set(skus as string[]);
      const data: Record<string, number> = Object.fromEntries([...wanted].map((sku) => [sku, 0]));
      let found = 0;
      let cursor: string | null = null;
      // The storefront's list is the public view of stock; it is walked until every SKU is seen, a bounded number of pages.
      for (let page = 0; page < PUBLIC_PAGES && found < wanted.size; page++) {
        const list: { data: Row[]; nextCursor: string | null } = (await call.run({ store: storeId, cursor, limit: 100 })).products;
        for (const p of list.data) {
          if (!p.sku || !wanted.has(p.sku)) continue;
          found++;
          data[p.sku] = typeof p.available === 'number' ? Math.max(0, p.available) : p.inStock ? 1 : 0;
        }
        if (!list.nextCursor) break;
        cursor = list.nextCursor;
      }
      return { data };
    },
  },
  // Purchase orders.
  {
    method: 'GET',
    path: '/finance/purchase-orders',
    summary: "A store's purchase orders (projectId), newest first; status, q (number or supplier), warehouseId, createdAfter, createdBefore",
    operation: `query($storeId: ID!, $limit: Int, $cursor: String, $status: PurchaseOrderStatus, $q: String, $warehouseId: ID, $createdAfter: String, $createdBefore: String) {
      purchaseOrders(storeId: $storeId, limit: $limit, cursor: $cursor, status: $status, q: $q, warehouseId: $warehouseId, createdAfter: $createdAfter, createdBefore: $createdBefore) { data { ${PO} } nextCursor } }`,
    query: { ...PAGE_PARAMS, ...PROJECT, status: { type: 'string' }, q: { type: 'string' }, warehouseId: { type: 'string' }, createdAfter: { type: 'string' }, createdBefore: { type: 'string' } },
    response: pageOf(poSchema),
    handle: async (call) => {
      const storeId = storeOf(call);
      const vars = { storeId, status: call.query.string('status'), q: call.query.string('q'), warehouseId: call.query.string('warehouseId'), createdAfter: call.query.string('createdAfter'), createdBefore: call.query.string('createdBefore') };
      return pageList(pageArgs(call.query), (cursor, limit) => call.run({ ...vars, cursor, limit }), { map: toPurchaseOrder });
    },
  },
  {
    method: 'POST',
    path: '/finance/purchase-orders',
    summary: "Create a draft purchase order in the body's projectId; supplierId (a supplier of the store, copied onto the order) or an inline supplier {name, email?, …}",
    operation: `mutation($storeId: ID!, $input: PurchaseOrderCreateInput!) { createPurchaseOrder(storeId: $storeId, input: $input) { ${PO} } }`,
    status: 201,
    body: poBody,
    response: poSchema,
    handle: async (call) => toPurchaseOrder(await call.run({ storeId: storeOf(call), input: purchaseOrderInput(call.body, true) })),
  },
  findRoute({
    path: '/finance/purchase-orders/{id}',
    summary: 'Show a purchase order with its receipts and sends',
    operation: GET_PO,
    query: { ...PROJECT, by: { type: 'string', description: 'Only id' } },
    prefixes: ['po'],
    map: toPurchaseOrder,
    response: poSchema,
  }),
  {
    method: 'PUT',
    path: '/finance/purchase-orders/{id}',
    summary: 'Change the given fields of a purchase order; items and currency only in draft; received and cancelled are final (409)',
    operation: `mutation($storeId: ID!, $id: ID!, $input: PurchaseOrderUpdateInput!) { updatePurchaseOrder(storeId: $storeId, id: $id, input: $input) { ${PO} } }`,
    query: PROJECT,
    body: poBody,
    response: poSchema,
    handle: async (call) => {
      return toPurchaseOrder(await onResource(call, ['po'], () => ({ input: purchaseOrderInput(call.body, false) })));
    },
  },
  {
    method: 'POST',
    path: '/finance/purchase-orders/{id}/send',
    summary: 'Mark a purchase order sent (draft → sent); nothing is mailed (Souk mails it from POST /v1/finance/purchase-orders/{id}/send)',
    operation: SET_STATUS,
    query: PROJECT,
    response: poSchema,
    handle: async (call) => {
      return toPurchaseOrder(await onResource(call, ['po'], { input: { status: 'sent' } }));
    },
  },
  {
    method: 'POST',
    path: '/finance/purchase-orders/{id}/cancel',
    summary: 'Cancel a purchase order (already cancelled: unchanged; received: 409)',
    operation: CANCEL,
    query: PROJECT,
    body: input({ reason: str }),
    response: poSchema,
    handle: async (call) => {
      const { reason } = mapInput(call.body, { reason: 'reason' });
      return toPurchaseOrder(await onResource(call, ['po'], { input: reason === undefined ? {} : { reason } }));
    },
  },
  {
    method: 'POST',
    path: '/finance/purchase-orders/{id}/status',
    summary: 'Set the status: sent, draft, partial or received (everything outstanding is received into the order’s warehouse), or cancelled',
    operation: SET_STATUS,
    operations: [CANCEL],
    query: PROJECT,
    body: input({ status: oneOf('draft', 'sent', 'partial', 'received', 'cancelled'), warehouseId: nstr, items: arr(anyObj) }, ['status']),
    response: poSchema,
    handle: async (call) => {
      const id = call.params.id;
      const storeId = await storeFor(call, id, ['po']);
      const mapped = mapInput(call.body, { status: 'status', warehouseId: 'warehouseId', items: 'items' });
      if (mapped.status === 'cancelled') return toPurchaseOrder(await located(id, call.run({ storeId, id, input: {} }, { operation: CANCEL })));
      return toPurchaseOrder(await located(id, call.run({ storeId, id, input: mapped })));
    },
  },
];
