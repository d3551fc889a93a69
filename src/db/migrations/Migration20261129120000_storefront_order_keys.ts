import { Migration } from '@mikro-orm/migrations';

/**
 * The storefront's duplicate check as keyed rows: one per store, phone and cart (its products and
 * quantities), written with every storefront order. A checkout written in one statement (no
 * transaction to hold a lock across a read and a write) claims its row there: a concurrent twin
 * finds it taken, committed or not, whatever its snapshot saw.
 *
 * `souk_undo_unless` undoes a whole statement whose guarded write did not happen (its other
 * CTEs, such as the checkout's limit counts, ran anyway), saying why in the error's detail.
 */
export class Migration20261129120000_storefront_order_keys extends Migration {
  async up(): Promise<void> {
    this.addSql(`create table storefront_order_keys (
      store_id text not null references stores(id) on delete cascade deferrable initially deferred,
      phone text not null,
      items_key text not null,
      placed_at timestamptz not null,
      primary key (store_id, phone, items_key))`);
    this.addSql('create index storefront_order_keys_placed on storefront_order_keys (placed_at)');
    this.addSql(`create function souk_undo_unless(done boolean, why jsonb) returns boolean language plpgsql volatile as $$
      begin
        if not done then raise exception using errcode = 'SK001', message = 'the guarded write did not happen: the statement is undone', detail = why::text; end if;
        return true;
      end $$`);
  }
}
