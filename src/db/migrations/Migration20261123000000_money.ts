import { Migration } from '@mikro-orm/migrations';

/**
 * Exact money: amounts become bigint minor units of the store's currency (every existing store
 * is DZD, two decimals). Orders gain the shared fields of the new groups (CONTRACT-2 §9), status
 * kinds gain `returned`, and the store integrations registry appears.
 */
export class Migration20261123000000_money extends Migration {
  async up(): Promise<void> {
    this.addSql(`alter table stores add column currency text not null default 'DZD'`);
    this.addSql(`alter table products alter column price type bigint using round(price * 100)::bigint`);
    this.addSql(`alter table products add column allow_backorder boolean not null default false`);
    this.addSql(`alter table products add column sku text null`);
    this.addSql(`alter table orders alter column total type bigint using round(total * 100)::bigint`);
    this.addSql(`update orders set items = (
      select coalesce(jsonb_agg(jsonb_set(i, '{price}', to_jsonb(round((i->>'price')::numeric * 100)::bigint)) order by n), '[]'::jsonb)
        from jsonb_array_elements(items) with ordinality as e(i, n))`);
    this.addSql(`alter table orders
      add column currency text not null default 'DZD',
      add column shipping_address jsonb null,
      add column shipping_method_id text null,
      add column shipping_type text null check (shipping_type in ('home','desk','pickup')),
      add column shipping_cost bigint not null default 0,
      add column promo_code text null,
      add column discount bigint not null default 0,
      add column fulfillment jsonb null,
      add column payment_status text not null default 'unpaid' check (payment_status in ('unpaid','pending','paid','partially_refunded','refunded')),
      add column payment_method text null,
      add column confirmed_at timestamptz null,
      add column landing_page_id text null,
      add column payment_token_hash text null`);
    this.addSql(`create index orders_created_idx on orders (store_id, created_at)`);
    this.addSql(`alter table order_statuses drop constraint if exists order_statuses_kind_check`);
    this.addSql(`alter table order_statuses add constraint order_statuses_kind_check check (kind in ('new','confirmed','rejected','fulfilled','cancelled','returned','other'))`);
    // Existing stores get the eighth default status, after Delivered, where its slug is free.
    this.addSql(`update order_statuses s set position = position + 1
      where kind in ('cancelled','rejected') and not exists (select 1 from order_statuses r where r.store_id = s.store_id and r.slug = 'returned')
        and position > (select coalesce(max(position), -1) from order_statuses d where d.store_id = s.store_id and d.kind = 'fulfilled')`);
    this.addSql(`insert into order_statuses (id, store_id, name, slug, color, position, kind, created_at)
      select 'sts_' || substr(md5(random()::text || st.id), 1, 24), st.id, 'Returned', 'returned', '#f97316',
             (select coalesce(max(position), -1) + 1 from order_statuses d where d.store_id = st.id and d.kind = 'fulfilled'), 'returned', now()
        from stores st where not exists (select 1 from order_statuses r where r.store_id = st.id and r.slug = 'returned')`);
    this.addSql(`create table store_integrations (
      id text primary key,
      store_id text not null references stores(id) on delete cascade deferrable initially deferred,
      key text not null,
      kind text not null,
      provider text null,
      enabled boolean not null default true,
      status text not null default 'unverified' check (status in ('unverified','active','error','disconnected')),
      config jsonb not null default '{}',
      secrets_enc jsonb not null default '{}',
      last_error text null,
      last_success_at timestamptz null,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      unique (store_id, key))`);
  }
}
