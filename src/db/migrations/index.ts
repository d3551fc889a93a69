import { Migration20261122000000_foundation } from './Migration20261122000000_foundation.js';
import { Migration20261122010000_identity } from './Migration20261122010000_identity.js';

/** Committed migrations, in order; each runs once, at start. */
export const MIGRATIONS = [
  { name: 'Migration20261122000000_foundation', class: Migration20261122000000_foundation },
  { name: 'Migration20261122010000_identity', class: Migration20261122010000_identity },
];
