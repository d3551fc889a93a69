import type { Order } from './order.entity.js';
import type { OrderType } from './order.types.js';
import { toMajor } from '../../core/money.js';

/** The order as REST, GraphQL and event payloads show it: amounts in major units of its currency. */
export function orderView(o: Order): OrderType {
  const major = (minor: number) => toMajor(minor, o.currency);
  return {
    id: o.id,
    storeId: o.storeId,
    customerName: o.customerName,
    customerPhone: o.customerPhone,
    customerEmail: o.customerEmail,
    source: o.source,
    customerIp: o.customerIp,
    note: o.note,
    risk: o.risk,
    items: o.items.map((i) => ({ productId: i.productId, name: i.name, quantity: i.quantity, price: major(i.price) })),
    total: major(o.total),
    currency: o.currency,
    status: o.status,
    statusId: o.statusId,
    rejectReason: o.rejectReason,
    shippingAddress: o.shippingAddress,
    shippingMethodId: o.shippingMethodId,
    shippingType: o.shippingType,
    shippingCost: major(o.shippingCost),
    promoCode: o.promoCode,
    discount: major(o.discount),
    fulfillment: o.fulfillment,
    paymentStatus: o.paymentStatus,
    paymentMethod: o.paymentMethod,
    confirmedAt: o.confirmedAt ? o.confirmedAt.toISOString() : null,
    landingPageId: o.landingPageId,
    metadata: o.metadata,
    createdAt: o.createdAt.toISOString(),
    updatedAt: o.updatedAt.toISOString(),
  };
}
