import { Migration } from '@mikro-orm/migrations';

/** Products, orders with store-defined statuses, the event outbox, webhooks and their history. */
export class Migration20261122020000_commerce extends Migration {
  async up(): Promise<void> {
    this.addSql(`alter table stores add column event_seq bigint not null default 0`);
    this.addSql(`create table products (
      id text primary key,
      store_id text not null references stores(id) on delete cascade deferrable initially deferred,
      name text not null,
      slug text not null,
      price double precision not null check (price >= 0),
      stock integer not null,
      status text not null check (status in ('draft','active','archived')),
      metadata jsonb not null default '{}',
      created_at timestamptz not null,
      updated_at timestamptz not null,
      unique (store_id, slug))`);
    this.addSql(`create table order_statuses (
      id text primary key,
      store_id text not null references stores(id) on delete cascade deferrable initially deferred,
      name text not null,
      slug text not null,
      color text not null,
      position integer not null,
      kind text not null check (kind in ('new','confirmed','rejected','fulfilled','cancelled','other')),
      created_at timestamptz not null,
      unique (store_id, slug) deferrable initially deferred)`);
    this.addSql(`create table orders (
      id text primary key,
      store_id text not null references stores(id) on delete cascade deferrable initially deferred,
      customer_name text not null,
      customer_phone text null,
      items jsonb not null,
      total double precision not null,
      status_id text not null references order_statuses(id) deferrable initially deferred,
      status text not null,
      reject_reason text null,
      metadata jsonb not null default '{}',
      created_at timestamptz not null,
      updated_at timestamptz not null)`);
    this.addSql(`create index orders_store_idx on orders (store_id, id desc)`);
    this.addSql(`create index orders_status_idx on orders (store_id, status_id)`);
    this.addSql(`create table store_events (
      store_id text not null references stores(id) on delete cascade deferrable initially deferred,
      seq bigint not null,
      event text not null,
      data jsonb not null,
      created_at timestamptz not null,
      primary key (store_id, seq))`);
    this.addSql(`create index store_events_created_idx on store_events (created_at)`);
    this.addSql(`create table webhooks (
      id text primary key,
      store_id text not null references stores(id) on delete cascade deferrable initially deferred,
      name text not null,
      url text not null,
      events text[] not null,
      headers jsonb not null default '{}',
      metadata jsonb not null default '{}',
      active boolean not null default true,
      secret_enc text not null,
      created_at timestamptz not null,
      updated_at timestamptz not null)`);
    this.addSql(`create index webhooks_store_idx on webhooks (store_id)`);
    this.addSql(`create table webhook_deliveries (
      id uuid primary key,
      seq bigserial not null,
      webhook_id text not null references webhooks(id) on delete cascade deferrable initially deferred,
      event text not null,
      test boolean not null,
      url text not null,
      status text not null check (status in ('success','failed')),
      status_code integer null,
      response_time_ms integer not null,
      response_body text null,
      error text null,
      created_at timestamptz not null)`);
    this.addSql(`create index webhook_deliveries_recent_idx on webhook_deliveries (webhook_id, created_at desc, seq desc)`);
  }
}
