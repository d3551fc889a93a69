import type { RestRoute } from '../route.js';
import auth from './auth.js';
import stores from './stores.js';
import products from './products.js';
import orders from './orders.js';
import webhooks from './webhooks.js';
import events from './events.js';

/** The whole REST table: one entry per /v1 route. */
export const ROUTES: RestRoute[] = [...auth, ...stores, ...products, ...orders, ...webhooks, ...events];
