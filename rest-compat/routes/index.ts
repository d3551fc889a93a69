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
import integrations from './integrations.js';
import carrier from './carrier.js';
import ads from './ads.js';
import connectors from './connectors.js';
import payments from './payments.js';
import templateComponents from './template-components.js';
import shipping from './shipping.js';
import storeTemplates from './store-templates.js';
import pages from './pages.js';
import options from './options.js';
import ai from './ai.js';
import landingPages from './landing-pages.js';
import analytics from './analytics.js';
import storefront from './storefront.js';
import geo from './geo.js';
import storefrontAdmin from './storefront-admin.js';

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
  ...integrations,
  ...carrier,
  ...ads,
  ...connectors,
  ...payments,
  ...templateComponents,
  ...shipping,
  ...storeTemplates,
  ...pages,
  ...options,
  ...ai,
  ...landingPages,
  ...analytics,
  ...inventory,
  ...promos,
  ...purchaseOrders,
  ...storefront,
  ...geo,
  ...storefrontAdmin,
];
