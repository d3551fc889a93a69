import { Migration } from '@mikro-orm/migrations';

/** What the items of an order hold per product: units and minor-unit amount, custom lines left out. */
const ORDER_PRODUCT_ROWS = (source: string) => `
  select n.id, i->>'productId', n.created_at, n.status_id, n.confirmed_at,
         sum(round((i->>'quantity')::numeric))::bigint,
         sum(round((i->>'quantity')::numeric * (i->>'price')::numeric))::bigint
    from ${source}
    cross join lateral jsonb_array_elements(case when jsonb_typeof(n.items) = 'array' then n.items else '[]'::jsonb end) as i
   where i->>'productId' is not null
   group by n.id, i->>'productId', n.created_at, n.status_id, n.confirmed_at`;

const ORDER_PRODUCT_COLUMNS = 'order_id, product_id, created_at, status_id, confirmed_at, quantity, amount';

/**
 * Product landing pages, and what the order analytics (lor) read: `order_products` holds one
 * row per order and product it contains, kept by statement-level triggers on `orders` (so
 * every write path, bulk status moves included, keeps it exact), indexed by product and time
 * so a product's report never reads the orders' jsonb items. Orders gain a covering
 * index per landing page, and the store index covers what the report reads.
 */
export class Migration20261123050000_analytics extends Migration {
  async up(): Promise<void> {
    this.addSql(`create table product_landing_pages (
      id text primary key,
      store_id text not null references stores(id) on delete cascade deferrable initially deferred,
      product_id text null references products(id) on delete set null deferrable initially deferred,
      name text not null,
      slug text not null,
      status text not null check (status in ('draft','published','archived')),
      content jsonb not null default '{}',
      created_at timestamptz not null,
      updated_at timestamptz not null,
      unique (store_id, slug))`);
    this.addSql(`create index product_landing_pages_product_idx on product_landing_pages (product_id)`);

    this.addSql(`drop index if exists orders_created_idx`);
    this.addSql(`create index orders_created_idx on orders (store_id, created_at) include (status_id, confirmed_at, total)`);
    this.addSql(`create index orders_landing_page_idx on orders (store_id, landing_page_id, created_at) include (status_id, confirmed_at, total)
      where landing_page_id is not null`);

    this.addSql(`create table order_products (
      order_id text not null,
      product_id text not null,
      created_at timestamptz not null,
      status_id text not null,
      confirmed_at timestamptz null,
      quantity bigint not null,
      amount bigint not null,
      primary key (order_id, product_id))`);
    // Product ids are unique across stores and the report checks the product's store first,
    // so the store stays out of this index: it is read a million entries at a time.
    this.addSql(`create index order_products_lor_idx on order_products (product_id, created_at)
      include (status_id, confirmed_at, quantity, amount)`);
    this.addSql(`insert into order_products (${ORDER_PRODUCT_COLUMNS}) ${ORDER_PRODUCT_ROWS('orders n')}`);

    this.addSql(`create function order_products_inserted() returns trigger language plpgsql as $fn$
      begin
        insert into order_products (${ORDER_PRODUCT_COLUMNS}) ${ORDER_PRODUCT_ROWS('new_rows n')};
        return null;
      end $fn$`);
    // Status moves only rewrite the columns the report reads; changed items rebuild the order's rows.
    this.addSql(`create function order_products_updated() returns trigger language plpgsql as $fn$
      begin
        update order_products op
           set status_id = n.status_id, confirmed_at = n.confirmed_at, created_at = n.created_at
          from old_rows o join new_rows n on n.id = o.id
         where op.order_id = n.id and o.items = n.items
           and (o.status_id, o.confirmed_at, o.created_at) is distinct from (n.status_id, n.confirmed_at, n.created_at);
        delete from order_products op using old_rows o join new_rows n on n.id = o.id
         where op.order_id = o.id and o.items is distinct from n.items;
        insert into order_products (${ORDER_PRODUCT_COLUMNS}) ${ORDER_PRODUCT_ROWS('new_rows n join old_rows o on o.id = n.id and o.items is distinct from n.items')};
        return null;
      end $fn$`);
    this.addSql(`create function order_products_deleted() returns trigger language plpgsql as $fn$
      begin
        delete from order_products op using old_rows o where op.order_id = o.id;
        return null;
      end $fn$`);
    this.addSql(`create trigger orders_products_inserted after insert on orders
      referencing new table as new_rows for each statement execute function order_products_inserted()`);
    this.addSql(`create trigger orders_products_updated after update on orders
      referencing old table as old_rows new table as new_rows for each statement execute function order_products_updated()`);
    this.addSql(`create trigger orders_products_deleted after delete on orders
      referencing old table as old_rows for each statement execute function order_products_deleted()`);
  }
}
