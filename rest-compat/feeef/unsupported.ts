/**
 * Feeef products Souk does not have. Each path the SDK calls in them, and everything under
 * their prefixes, answers 501 NOT_IMPLEMENTED problem+json naming the group, whatever the
 * method or body, so such a call fails clearly instead of looking like a missing resource.
 * A method the face serves on the same path (POST /inventory/public/availability) keeps its route.
 */
export interface Unsupported {
  group: string;
  why: string;
  /** The SDK's paths in the group, below the prefix (documented one by one). */
  paths: string[];
  /** Everything below these answers 501 too (the documented paths stand for them). */
  prefixes?: string[];
}

export const UNSUPPORTED: Unsupported[] = [
  {
    group: 'wallet',
    why: 'Souk users have no wallet: no deposits, transfers, PayPal top-ups or user-to-user money',
    paths: ['/users/auth/transfer', '/deposits', '/deposits/{id}', '/deposits/send', '/deposits/paypal/create-order', '/deposits/paypal/capture-order', '/deposits/paypal/order/{orderId}', '/transfers', '/transfers/{id}'],
    prefixes: ['/deposits', '/transfers'],
  },
  {
    group: 'social sign-in',
    why: 'Souk signs in with email and password, session transfer codes and OAuth apps',
    paths: ['/social/google/callback', '/social/github/callback', '/social/apple/callback', '/social/{provider}/link/callback', '/social/unlink'],
    prefixes: ['/social'],
  },
  {
    group: 'passkeys',
    why: 'Souk has no WebAuthn credentials',
    paths: ['/passkeys', '/passkeys/{id}', '/passkeys/register/start', '/passkeys/register/finish', '/passkeys/authenticate/start', '/passkeys/authenticate/finish'],
  },
  { group: 'push notifications', why: 'Souk sends no push notifications and keeps no FCM tokens', paths: ['/users/auth/fcm-token', '/notifications/send'] },
  {
    group: 'store subscriptions',
    why: 'Souk stores have no paid plans, points or dues',
    paths: ['/stores/{id}/subscription/upgrade', '/stores/{id}/subscription/charge', '/stores/{id}/subscription/payDue'],
  },
  { group: 'theme previews', why: 'Souk serves no storefront, so it keeps no draft theme previews', paths: ['/stores/{id}/template-preview'] },
  {
    group: 'marketplace',
    why: 'Souk has no cross-store product listing, and store templates have no releases, licences, installs, forks, reviews or earnings',
    paths: [
      '/products/random',
      '/store_templates/default',
      '/store_templates/{id}/fork',
      '/store_templates/{id}/install',
      '/store_templates/{id}/purchase',
      '/store_templates/{id}/releases',
      '/store_templates/{id}/releases/{releaseId}',
      '/store_templates/{id}/releases/{releaseId}/render',
      '/store_templates/{id}/reviews',
      '/store_templates_earnings',
    ],
  },
  { group: 'order assignment', why: 'Souk does not assign orders to confirmers', paths: ['/orders/assign', '/orders/assignMany'] },
  { group: 'categories', why: 'Souk products have no categories', paths: ['/categories', '/categories/{id}'], prefixes: ['/categories'] },
  {
    group: 'geo',
    why: "Souk's states, cities and currencies are read-only lists (GET /countries/{countryCode}/states, /states, /cities, /currencies answer); it keeps no country registry, no edits and no city search",
    paths: [
      '/countries',
      '/countries/{id}',
      '/countries/{countryCode}/states',
      '/countries/{countryCode}/states/{stateCode}',
      '/countries/{countryCode}/states/{stateCode}/cities',
      '/countries/{countryCode}/states/{stateCode}/cities/{cityName}',
      '/states',
      '/states/{id}',
      '/cities',
      '/cities/{id}',
      '/cities/search',
      '/currencies',
      '/currencies/{id}',
    ],
  },
  { group: 'feedbacks', why: 'Souk has no feedback tracker', paths: ['/feedbacks', '/feedbacks/{id}', '/feedbacks/{id}/comments'] },
  { group: 'storage', why: 'Souk stores no uploaded files', paths: ['/services/storage/upload', '/actions/uploadCustomFieldFile'] },
  {
    group: 'image generations',
    why: "Souk generates images inside brand studios (/v1/ai/brand-studios), not Feeef's prompt-template generations",
    paths: ['/image_generations', '/image_generations/gallery', '/image_generations/generate', '/image_generations/{id}', '/image_generations/{id}/generate'],
  },
  {
    group: 'landing page templates',
    why: 'Souk landing pages carry their own content; there is no template library for them',
    paths: ['/product_landing_page_templates', '/product_landing_page_templates/{id}'],
  },
  {
    group: 'inventory aliases and reservations',
    why: "Souk counts stock per product and warehouse (levels, served here as stock objects, and movements), not in Feeef's SKU buckets: it keeps no SKU aliases, holds stock by moving it rather than reserving it, and each store is its own inventory project",
    paths: [
      '/inventory/aliases',
      '/inventory/aliases/{id}',
      '/inventory/aliases:batchDelete',
      '/inventory/reservations',
      '/inventory/reservations/{id}',
      '/inventory/reservations:batchRelease',
      '/inventory/projects',
      '/inventory/public/availability',
    ],
    // Reservations are released at `/inventory/reservations/{id}:release`.
    prefixes: ['/inventory/reservations'],
  },
  {
    group: 'general ledger',
    why: 'Souk keeps procurement only (suppliers, purchase orders, purchase receipts): no accounts, bills, payments, expenses, receivables or accounting reports',
    paths: [
      '/finance/financial-accounts',
      '/finance/financial-accounts/{id}',
      '/finance/financial-accounts:batchDelete',
      '/finance/supplier-bills',
      '/finance/supplier-bills/{id}',
      '/finance/supplier-bills/{id}/pay',
      '/finance/supplier-payments',
      '/finance/supplier-payments/{id}',
      '/finance/supplier-payments/{id}/void',
      '/finance/customer-payments',
      '/finance/customer-payments/{id}',
      '/finance/customer-payments/{id}/void',
      '/finance/expenses',
      '/finance/expenses/{id}',
      '/finance/expenses:batchDelete',
      '/finance/expense-categories',
      '/finance/expense-categories/{id}',
      '/finance/reports/overview',
      '/finance/reports/cash-position',
      '/finance/reports/ap-aging',
      '/finance/reports/ar-aging',
      '/finance/reports/pnl',
      '/finance/reports/trial-balance',
      '/finance/reports/balance-sheet',
      '/finance/gl-accounts',
      '/finance/journal-entries',
      '/finance/receivables',
      '/finance/orders/{orderId}/collect',
    ],
  },
  {
    group: 'purchase order deletion',
    why: 'Souk keeps every purchase order: cancel one instead (POST /finance/purchase-orders/{id}/cancel)',
    paths: ['/finance/purchase-orders/{id}'],
  },
  {
    group: 'carrier providers',
    why: "Souk ships with the store's carrier integration (fees, send, parcels); Ecotrack's finance and order-sync routes, EcoManager (its order and fee APIs are not publicly documented) and Google Sheets are not Souk features",
    paths: [
      '/stores/{id}/integrations/ecotrack/finance',
      '/stores/{id}/integrations/ecotrack/sync/status',
      '/stores/{id}/integrations/ecotrack/sync',
      '/stores/{id}/integrations/ecotrack/sync/cashin',
      '/stores/{id}/integrations/ecomanager/fees',
      '/stores/{id}/integrations/ecomanager/send',
      '/stores/{id}/integrations/google-sheets/append-row',
      '/stores/{id}/integrations/google-sheets/create-spreadsheet',
    ],
  },
];
