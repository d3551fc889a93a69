import { Migration } from '@mikro-orm/migrations';
import { freeSlugOf, slugBase } from '../../domains/stores/store.storefront.js';

/**
 * The storefront (CONTRACT-3 §17): every store gets a handle (`slug`, unique across stores; existing
 * stores one derived from their name, oldest store first), its storefront settings (defaults kept
 * implicit: `{}`) and a logo; products what a shop front shows (description, compare-at price,
 * photo, images). Orders learn where they came from (`source`), the buyer's address,
 * email and note, and the storefront's risk score; storefront orders keep their status history.
 */
export class Migration20261128090000_storefront extends Migration {
  async up(): Promise<void> {
    await this.execute(`alter table stores add column slug text, add column storefront jsonb not null default '{}', add column logo_url text`);
    const stores = (await this.execute('select id, name from stores order by created_at, id')) as Array<{ id: string; name: string }>;
    const taken = new Set<string>();
    const slugs = stores.map((s) => {
      const slug = freeSlugOf(slugBase(s.name), taken);
      taken.add(slug);
      return slug;
    });
    for (let i = 0; i < stores.length; i += 1000) {
      await this.execute('update stores s set slug = v.slug from unnest(array[?]::text[], array[?]::text[]) as v(id, slug) where s.id = v.id', [
        stores.slice(i, i + 1000).map((s) => s.id),
        slugs.slice(i, i + 1000),
      ]);
    }
    this.addSql('alter table stores alter column slug set not null');
    this.addSql('create unique index stores_slug_unique on stores (slug)');
    this.addSql(`alter table products add column description text, add column compare_at_price bigint check (compare_at_price >= 0),
      add column photo_url text, add column images jsonb not null default '[]'`);
    // The storefront's three sorts of a store's active products.
    this.addSql(`create index products_active_newest on products (store_id, id desc) where status = 'active'`);
    this.addSql(`create index products_active_price on products (store_id, price, id) where status = 'active'`);
    this.addSql(`create index products_active_name on products (store_id, lower(name), id) where status = 'active'`);
    this.addSql(`alter table orders add column source text not null default 'api', add column customer_ip text, add column customer_email text,
      add column note text, add column risk jsonb`);
    // The store's own history of a phone (risk, duplicates, per-phone caps), by store.
    this.addSql('create index orders_store_phone on orders (store_id, customer_phone) where customer_phone is not null');
    this.addSql('create index orders_store_ip on orders (store_id, customer_ip, created_at) where customer_ip is not null');
    this.addSql(`create table order_status_history (
      id bigserial primary key,
      order_id text not null references orders (id) on delete cascade deferrable initially deferred,
      at timestamptz not null,
      status_id text not null,
      name text not null,
      kind text not null)`);
    this.addSql('create index order_status_history_order on order_status_history (order_id, id)');
  }
}
