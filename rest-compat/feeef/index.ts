import type { FeeefRoute } from './route.js';
import { routes as users } from './routes/users.js';
import { routes as apps } from './routes/apps.js';
import { routes as stores } from './routes/stores.js';
import { routes as catalog } from './routes/catalog.js';
import { routes as orders } from './routes/orders.js';
import { routes as templates } from './routes/templates.js';
import { routes as shipping } from './routes/shipping.js';
import { routes as carriers } from './routes/carriers.js';
import { routes as inventory } from './routes/inventory.js';
import { routes as geo } from './routes/geo.js';
import { routes as finance } from './routes/finance.js';

/** The face's whole table: one entry per /feeef/v1 route, by group (docs/feeef.md lists each). */
const group = (tag: string, routes: FeeefRoute[]) => routes.map((route) => ({ tag, route }));

export const FEEEF_ROUTES: Array<{ tag: string; route: FeeefRoute }> = [
  ...group('users', users),
  ...group('apps', apps),
  ...group('stores', stores),
  ...group('catalog', catalog),
  ...group('orders', orders),
  ...group('templates', templates),
  ...group('shipping', shipping),
  ...group('shipping', carriers),
  ...group('inventory', inventory),
  ...group('finance', finance),
  ...group('geo', geo),
];
