import { Migration } from '@mikro-orm/migrations';

/**
 * Supplier records per store, the supplier a purchase order was created from (its `supplier`
 * block stays the order's own copy), and goods receipts against a purchase order: drafts that
 * posting receives through the order's receiving.
 */
export class Migration20261129060000_suppliers extends Migration {
  async up(): Promise<void> {
    this.addSql(`create table suppliers (
      id text primary key,
      store_id text not null references stores(id) on delete cascade deferrable initially deferred,
      name text not null,
      code text null,
      email text null,
      phone text null,
      tax_id text null,
      address jsonb null,
      payment_terms text null,
      notes text null,
      metadata jsonb not null default '{}',
      created_at timestamptz not null,
      updated_at timestamptz not null)`);
    this.addSql('create index suppliers_store_idx on suppliers (store_id, id desc)');
    this.addSql('alter table purchase_orders add column supplier_id text null');
    this.addSql(`create table purchase_receipts (
      id text primary key,
      store_id text not null references stores(id) on delete cascade deferrable initially deferred,
      purchase_order_id text not null references purchase_orders(id) on delete cascade deferrable initially deferred,
      supplier_id text null,
      warehouse_id text null,
      status text not null check (status in ('draft','posted','voided')),
      reference text null,
      notes text null,
      lines jsonb not null,
      currency text not null,
      total_cost bigint not null,
      received_at timestamptz not null,
      posted_at timestamptz null,
      voided_at timestamptz null,
      po_receipt_id text null,
      created_at timestamptz not null,
      updated_at timestamptz not null)`);
    this.addSql('create index purchase_receipts_store_idx on purchase_receipts (store_id, id desc)');
    this.addSql('create index purchase_receipts_po_idx on purchase_receipts (purchase_order_id)');
  }
}
