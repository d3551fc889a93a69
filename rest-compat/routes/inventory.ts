import { group, route } from '../route.js';
import { BATCH_SELECTION, batchReply, batchResponseSchema } from '../replies.js';

export const WAREHOUSE = 'id storeId name code email address active isDefault metadata createdAt updatedAt';
const LEVEL = 'warehouseId productId onHand updatedAt';
const MOVEMENT = 'id productId warehouseId delta reason refId createdAt';
const base = '/v1/inventory/warehouses';

export default group('inventory', [
  route({
    method: 'GET',
    path: base,
    summary: "A store's warehouses (?storeId=), newest first",
    operation: `query($storeId: ID!, $limit: Int, $cursor: String, $active: Boolean) {
      warehouses(storeId: $storeId, limit: $limit, cursor: $cursor, active: $active) { data { ${WAREHOUSE} } nextCursor } }`,
  }),
  route({
    method: 'POST',
    path: base,
    summary: "Create a warehouse; a store's first becomes its default and takes the products' current stock",
    status: 201,
    operation: `mutation($storeId: ID!, $input: WarehouseCreateInput!) { createWarehouse(storeId: $storeId, input: $input) { ${WAREHOUSE} } }`,
  }),
  route({
    method: 'POST',
    path: `${base}:batchDelete`,
    summary: 'Delete up to 100 warehouses in one transaction (batch envelope; 409 per warehouse holding stock or awaited by an open PO)',
    operation: `mutation($storeId: ID!, $input: WarehouseBatchDeleteInput!) { batchDeleteWarehouses(storeId: $storeId, input: $input) { ${BATCH_SELECTION(WAREHOUSE)} } }`,
    reply: batchReply(200),
    responseSchema: batchResponseSchema('Warehouse'),
  }),
  route({
    method: 'GET',
    path: `${base}/{id}`,
    summary: 'Show a warehouse',
    operation: `query($storeId: ID!, $id: ID!) { warehouse(storeId: $storeId, id: $id) { ${WAREHOUSE} } }`,
  }),
  route({
    method: 'PUT',
    path: `${base}/{id}`,
    summary: 'Update a warehouse (partial); isDefault: true makes it the default',
    operation: `mutation($storeId: ID!, $id: ID!, $input: WarehouseUpdateInput!) { updateWarehouse(storeId: $storeId, id: $id, input: $input) { ${WAREHOUSE} } }`,
  }),
  route({
    method: 'DELETE',
    path: `${base}/{id}`,
    summary: 'Delete a warehouse; 409 while it holds stock or an open purchase order awaits it',
    status: 204,
    operation: `mutation($storeId: ID!, $id: ID!) { deleteWarehouse(storeId: $storeId, id: $id) }`,
  }),
  route({
    method: 'GET',
    path: '/v1/inventory/levels',
    summary: 'Stock per warehouse and product (?storeId=&productId=&warehouseId=)',
    operation: `query($storeId: ID!, $productId: ID, $warehouseId: ID, $limit: Int, $cursor: String) {
      inventoryLevels(storeId: $storeId, productId: $productId, warehouseId: $warehouseId, limit: $limit, cursor: $cursor) { data { ${LEVEL} } nextCursor } }`,
  }),
  route({
    method: 'POST',
    path: '/v1/inventory/levels:adjust',
    summary: 'Count a product in a warehouse: {productId, warehouseId?, delta | onHand} (an adjustment movement, productUpdated)',
    operation: `mutation($storeId: ID!, $input: InventoryAdjustInput!) { adjustInventory(storeId: $storeId, input: $input) { ${LEVEL} } }`,
  }),
  route({
    method: 'GET',
    path: '/v1/inventory/movements',
    summary: 'The stock ledger, newest first (?storeId=&productId=&warehouseId=)',
    operation: `query($storeId: ID!, $productId: ID, $warehouseId: ID, $limit: Int, $cursor: String) {
      inventoryMovements(storeId: $storeId, productId: $productId, warehouseId: $warehouseId, limit: $limit, cursor: $cursor) { data { ${MOVEMENT} } nextCursor } }`,
  }),
]);
