import { entityOf, isUpdated, type EventName } from '../events/names.js';

/** Sample records for test deliveries: the shape real events carry, with obviously fake values. */
export function sampleData(storeId: string, event: EventName): Record<string, unknown> {
  const now = new Date().toISOString();
  const order = {
    id: 'ord_sample',
    storeId,
    customerName: 'Sample Customer',
    customerPhone: '+10000000000',
    items: [{ productId: 'prod_sample', name: 'Sample Product', quantity: 2, price: 9.5 }],
    total: 19,
    status: 'pending',
    statusId: 'sts_sample',
    rejectReason: null,
    metadata: {},
    createdAt: now,
    updatedAt: now,
  };
  const product = {
    id: 'prod_sample',
    storeId,
    name: 'Sample Product',
    slug: 'sample-product',
    price: 9.5,
    stock: 10,
    status: 'active',
    metadata: {},
    createdAt: now,
    updatedAt: now,
  };
  const kind = entityOf(event);
  const record = kind === 'order' ? order : product;
  const previous = kind === 'order' ? { ...order, status: 'pending', customerName: 'Sample Customer (before)' } : { ...product, price: 11, stock: 12 };
  return { store_id: storeId, [kind]: record, ...(isUpdated(event) ? { previous_data: previous } : {}) };
}
