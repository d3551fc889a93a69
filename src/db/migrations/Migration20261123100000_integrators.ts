import { Migration } from '@mikro-orm/migrations';

/** History entries keep per-phase timings, the payload they sent (for redelivery) and what they redeliver. */
export class Migration20261123100000_integrators extends Migration {
  async up(): Promise<void> {
    this.addSql(`alter table webhook_deliveries
      add column timings jsonb null,
      add column payload jsonb null,
      add column redelivery_of uuid null`);
  }
}
