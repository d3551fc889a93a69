import type { RestRoute } from '../route.js';
import auth from './auth.js';
import users from './users.js';
import apps from './apps.js';
import stores from './stores.js';
import products from './products.js';
import orders from './orders.js';
import statuses from './statuses.js';
import webhooks from './webhooks.js';
import events from './events.js';
import inventory from './inventory.js';
import promos from './promos.js';
import purchaseOrders from './purchase-orders.js';
import payments from './payments.js';

/** The whole REST table: one entry per /v1 route. */
export const ROUTES: RestRoute[] = [
  ...auth,
  ...users,
  ...apps,
  ...stores,
  ...products,
  ...orders,
  ...statuses,
  ...webhooks,
  ...events,
  ...payments,
  ...inventory,
  ...promos,
  ...purchaseOrders,
];
