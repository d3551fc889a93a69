import { Migration } from '@mikro-orm/migrations';

/**
 * Warehouses with per-product levels and a movement ledger; store coupons with their
 * redemptions; purchase orders with items, receipts and mail sends (CONTRACT-2 §10, §11).
 */
export class Migration20261123040000_inventory extends Migration {
  async up(): Promise<void> {
    this.addSql(`create table warehouses (
      id text primary key,
      store_id text not null references stores(id) on delete cascade deferrable initially deferred,
      name text not null,
      code text not null,
      email text null,
      address jsonb null,
      active boolean not null default true,
      is_default boolean not null default false,
      metadata jsonb not null default '{}',
      created_at timestamptz not null,
      updated_at timestamptz not null,
      unique (store_id, code))`);
    this.addSql(`create unique index warehouses_default_idx on warehouses (store_id) where is_default`);
    this.addSql(`create table inventory_levels (
      warehouse_id text not null references warehouses(id) on delete cascade deferrable initially deferred,
      product_id text not null references products(id) on delete cascade deferrable initially deferred,
      store_id text not null,
      on_hand integer not null,
      updated_at timestamptz not null,
      primary key (warehouse_id, product_id))`);
    this.addSql(`create index inventory_levels_product_idx on inventory_levels (store_id, product_id)`);
    // The ledger outlives the warehouses and products it names.
    this.addSql(`create table inventory_movements (
      id text primary key,
      store_id text not null references stores(id) on delete cascade deferrable initially deferred,
      product_id text not null,
      warehouse_id text null,
      delta integer not null,
      reason text not null check (reason in ('order','purchase_order','adjustment')),
      ref_id text null,
      created_at timestamptz not null)`);
    this.addSql(`create index inventory_movements_product_idx on inventory_movements (store_id, product_id, id desc)`);
    this.addSql(`create index inventory_movements_store_idx on inventory_movements (store_id, id desc)`);

    this.addSql(`create table promos (
      id text primary key,
      store_id text not null references stores(id) on delete cascade deferrable initially deferred,
      code text not null,
      type text not null check (type in ('percentage','fixed','free_shipping')),
      value double precision not null default 0,
      min_subtotal bigint null,
      max_uses integer null,
      uses integer not null default 0,
      max_uses_per_customer integer null,
      product_ids jsonb not null default '[]',
      starts_at timestamptz null,
      ends_at timestamptz null,
      active boolean not null default true,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      unique (store_id, code))`);
    this.addSql(`create table promo_redemptions (
      promo_id text not null references promos(id) on delete cascade deferrable initially deferred,
      order_id text not null,
      customer_key text null,
      created_at timestamptz not null,
      primary key (promo_id, order_id))`);
    this.addSql(`create index promo_redemptions_customer_idx on promo_redemptions (promo_id, customer_key)`);

    this.addSql(`create table purchase_order_counters (
      store_id text primary key references stores(id) on delete cascade deferrable initially deferred,
      last integer not null)`);
    this.addSql(`create table purchase_orders (
      id text primary key,
      store_id text not null references stores(id) on delete cascade deferrable initially deferred,
      number integer not null,
      status text not null check (status in ('draft','sent','partial','received','cancelled')),
      supplier jsonb not null,
      warehouse_id text null references warehouses(id) on delete set null deferrable initially deferred,
      currency text not null,
      subtotal bigint not null,
      shipping_cost bigint not null default 0,
      tax bigint not null default 0,
      total bigint not null,
      reference text null,
      notes text null,
      expected_at timestamptz null,
      sent_at timestamptz null,
      received_at timestamptz null,
      cancelled_at timestamptz null,
      cancel_reason text null,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      unique (store_id, number))`);
    this.addSql(`create index purchase_orders_store_idx on purchase_orders (store_id, id desc)`);
    this.addSql(`create index purchase_orders_warehouse_idx on purchase_orders (warehouse_id) where status in ('draft','sent','partial')`);
    this.addSql(`create table purchase_order_items (
      id text primary key,
      purchase_order_id text not null references purchase_orders(id) on delete cascade deferrable initially deferred,
      position integer not null,
      product_id text null,
      sku text null,
      name text not null,
      qty_ordered integer not null check (qty_ordered between 1 and 1000000),
      qty_received integer not null default 0 check (qty_received >= 0 and qty_received <= qty_ordered),
      unit_cost bigint not null check (unit_cost >= 0),
      line_total bigint not null)`);
    this.addSql(`create index purchase_order_items_po_idx on purchase_order_items (purchase_order_id, position)`);
    this.addSql(`create table purchase_order_receipts (
      id text primary key,
      purchase_order_id text not null references purchase_orders(id) on delete cascade deferrable initially deferred,
      warehouse_id text null,
      items jsonb not null,
      at timestamptz not null)`);
    this.addSql(`create index purchase_order_receipts_po_idx on purchase_order_receipts (purchase_order_id, at)`);
    this.addSql(`create table purchase_order_sends (
      id text primary key,
      purchase_order_id text not null references purchase_orders(id) on delete cascade deferrable initially deferred,
      recipients text[] not null,
      cc text[] not null default '{}',
      subject text null,
      message text null,
      status text not null check (status in ('queued','sent','failed')),
      error text null,
      at timestamptz not null,
      finished_at timestamptz null)`);
    this.addSql(`create index purchase_order_sends_po_idx on purchase_order_sends (purchase_order_id, at)`);
  }
}
