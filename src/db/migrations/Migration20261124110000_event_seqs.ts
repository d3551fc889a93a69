import { Migration } from '@mikro-orm/migrations';

/**
 * A store's event sequence moves off the store row into a row of its own. The outbox's upsert
 * locks it from the event's insert to commit, so sequence order stays commit order, while
 * writers that need no store-wide lock (a new order) no longer queue on the store row for
 * their whole transaction. Taken last in every transaction, it never closes a lock cycle.
 */
export class Migration20261124110000_event_seqs extends Migration {
  async up(): Promise<void> {
    this.addSql(`create table store_event_seqs (
      store_id text primary key references stores(id) on delete cascade,
      seq bigint not null)`);
    this.addSql(`insert into store_event_seqs (store_id, seq) select id, event_seq from stores where event_seq > 0`);
    this.addSql(`alter table stores drop column event_seq`);
  }
}
