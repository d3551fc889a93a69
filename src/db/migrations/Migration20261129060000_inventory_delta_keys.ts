import { Migration } from '@mikro-orm/migrations';

/**
 * applyInventoryDeltas looks up its idempotency key among a store's adjustment movements
 * (`ref_id`) before applying: an index keeps that a lookup instead of a walk of the ledger.
 */
export class Migration20261129060000_inventory_delta_keys extends Migration {
  async up(): Promise<void> {
    this.addSql(`create index inventory_movements_delta_key_idx on inventory_movements (store_id, ref_id) where reason = 'adjustment' and ref_id is not null`);
  }
}
