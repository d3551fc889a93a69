import { Migration20261122000000_foundation } from './Migration20261122000000_foundation.js';
import { Migration20261122010000_identity } from './Migration20261122010000_identity.js';
import { Migration20261122020000_commerce } from './Migration20261122020000_commerce.js';
import { Migration20261123000000_money } from './Migration20261123000000_money.js';
import { Migration20261123020000_hardening } from './Migration20261123020000_hardening.js';
import { Migration20261123030000_catalog } from './Migration20261123030000_catalog.js';
import { Migration20261123040000_inventory } from './Migration20261123040000_inventory.js';
import { Migration20261123050000_analytics } from './Migration20261123050000_analytics.js';
import { Migration20261123060000_carrier } from './Migration20261123060000_carrier.js';
import { Migration20261123070000_payments } from './Migration20261123070000_payments.js';
import { Migration20261123080000_ai } from './Migration20261123080000_ai.js';
import { Migration20261123100000_integrators } from './Migration20261123100000_integrators.js';
import { Migration20261124000000_ads } from './Migration20261124000000_ads.js';
import { Migration20261124100000_auth_notify } from './Migration20261124100000_auth_notify.js';
import { Migration20261124110000_event_seqs } from './Migration20261124110000_event_seqs.js';
import { Migration20261126100000_order_money } from './Migration20261126100000_order_money.js';
import { Migration20261126120000_page_html } from './Migration20261126120000_page_html.js';
import { Migration20261126140000_idempotency_keys } from './Migration20261126140000_idempotency_keys.js';
import { Migration20261126161000_ingress_dedup } from './Migration20261126161000_ingress_dedup.js';
import { Migration20261126162000_promo_customer_keys } from './Migration20261126162000_promo_customer_keys.js';
import { Migration20261128090000_storefront } from './Migration20261128090000_storefront.js';
import { Migration20261128100000_storefront_defences } from './Migration20261128100000_storefront_defences.js';

/** Committed migrations, in order; each runs once, at start. */
export const MIGRATIONS = [
  { name: 'Migration20261122000000_foundation', class: Migration20261122000000_foundation },
  { name: 'Migration20261122010000_identity', class: Migration20261122010000_identity },
  { name: 'Migration20261122020000_commerce', class: Migration20261122020000_commerce },
  { name: 'Migration20261123000000_money', class: Migration20261123000000_money },
  { name: 'Migration20261123020000_hardening', class: Migration20261123020000_hardening },
  { name: 'Migration20261123030000_catalog', class: Migration20261123030000_catalog },
  { name: 'Migration20261123040000_inventory', class: Migration20261123040000_inventory },
  { name: 'Migration20261123050000_analytics', class: Migration20261123050000_analytics },
  { name: 'Migration20261123060000_carrier', class: Migration20261123060000_carrier },
  { name: 'Migration20261123070000_payments', class: Migration20261123070000_payments },
  { name: 'Migration20261123080000_ai', class: Migration20261123080000_ai },
  { name: 'Migration20261123100000_integrators', class: Migration20261123100000_integrators },
  { name: 'Migration20261124000000_ads', class: Migration20261124000000_ads },
  { name: 'Migration20261124100000_auth_notify', class: Migration20261124100000_auth_notify },
  { name: 'Migration20261124110000_event_seqs', class: Migration20261124110000_event_seqs },
  { name: 'Migration20261126100000_order_money', class: Migration20261126100000_order_money },
  { name: 'Migration20261126120000_page_html', class: Migration20261126120000_page_html },
  { name: 'Migration20261126140000_idempotency_keys', class: Migration20261126140000_idempotency_keys },
  { name: 'Migration20261126161000_ingress_dedup', class: Migration20261126161000_ingress_dedup },
  { name: 'Migration20261126162000_promo_customer_keys', class: Migration20261126162000_promo_customer_keys },
  { name: 'Migration20261128090000_storefront', class: Migration20261128090000_storefront },
  { name: 'Migration20261128100000_storefront_defences', class: Migration20261128100000_storefront_defences },
];
