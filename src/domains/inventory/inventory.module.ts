import type { Module } from '../../core/module.js';
import { lockProductsOfOrders, stockFollowsOrderChange, stockFollowsProductWrite, stockFollowsStatusKind } from './stock.service.js';

/**
 * Stock follows orders and product writes through the hooks their domains declare
 * (`orders/order.hooks.ts`, `products/product.hooks.ts`), inside each write's transaction.
 */
export const inventoryModule: Module = {
  name: 'inventory',
  beforeOrderChange: stockFollowsOrderChange,
  beforeOrderBatch: lockProductsOfOrders,
  beforeStatusKindMove: stockFollowsStatusKind,
  onProductStockSet: stockFollowsProductWrite,
};
