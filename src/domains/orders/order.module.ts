import type { Module } from '../../core/module.js';
import { Order } from './order.entity.js';
import { createDefaultStatuses } from './statuses.js';

/** The order domain's part in others' seams: a new store's default statuses, orders as promo checks price them. */
export const ordersModule: Module = {
  name: 'orders',
  onStoreCreated: async (ctx, storeId) => {
    createDefaultStatuses(ctx, storeId);
    await ctx.em.flush();
  },
  orderForPromo: async (ctx, storeId, orderId) => {
    const order = await ctx.em.findOne(Order, { id: orderId, storeId });
    return order ? { items: order.items, customerPhone: order.customerPhone, country: order.shippingAddress?.country ?? null } : null;
  },
};
