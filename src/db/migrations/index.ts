import { Migration20261122000000_foundation } from './Migration20261122000000_foundation.js';
import { Migration20261122010000_identity } from './Migration20261122010000_identity.js';
import { Migration20261122020000_commerce } from './Migration20261122020000_commerce.js';
import { Migration20261123000000_money } from './Migration20261123000000_money.js';
import { Migration20261123020000_hardening } from './Migration20261123020000_hardening.js';

/** Committed migrations, in order; each runs once, at start. */
export const MIGRATIONS = [
  { name: 'Migration20261122000000_foundation', class: Migration20261122000000_foundation },
  { name: 'Migration20261122010000_identity', class: Migration20261122010000_identity },
  { name: 'Migration20261122020000_commerce', class: Migration20261122020000_commerce },
  { name: 'Migration20261123000000_money', class: Migration20261123000000_money },
  { name: 'Migration20261123020000_hardening', class: Migration20261123020000_hardening },
];
