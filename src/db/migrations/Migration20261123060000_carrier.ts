import { Migration } from '@mikro-orm/migrations';

/**
 * Carrier parcels, the provider events already applied (deduplication), and each store's end
 * of the carrier webhook. An order has at most one live parcel: a second `creating` row for it
 * cannot exist, so a double click or a retry never ships twice.
 */
export class Migration20261123060000_carrier extends Migration {
  async up(): Promise<void> {
    this.addSql(`create table parcels (
      id text primary key,
      store_id text not null references stores(id) on delete cascade deferrable initially deferred,
      order_id text not null references orders(id) on delete cascade deferrable initially deferred,
      provider text not null,
      tracking text null,
      status text not null check (status in ('creating','pending','picked_up','in_transit','out_for_delivery','on_hold','delivered','failed','returning','returned','cancelled')),
      raw_status text null,
      label_url text null,
      delivery_type text not null check (delivery_type in ('home','stopdesk')),
      stop_desk_id text null,
      recipient jsonb not null,
      cod_amount bigint not null check (cod_amount >= 0),
      delivery_fee bigint null,
      currency text not null,
      payment_status text null,
      history jsonb not null default '[]',
      last_event_at timestamptz null,
      checked_at timestamptz not null,
      claimed_until timestamptz null,
      created_at timestamptz not null,
      updated_at timestamptz not null)`);
    this.addSql(`create unique index parcels_live_order_idx on parcels (order_id) where status not in ('cancelled','returned')`);
    this.addSql(`create unique index parcels_tracking_idx on parcels (provider, tracking) where tracking is not null`);
    this.addSql(`create index parcels_store_created_idx on parcels (store_id, created_at)`);
    this.addSql(`create index parcels_quiet_idx on parcels (checked_at) where status not in ('delivered','returned','cancelled')`);
    this.addSql(`create table carrier_events (
      provider text not null,
      event_id text not null,
      store_id text not null references stores(id) on delete cascade deferrable initially deferred,
      type text not null,
      occurred_at timestamptz null,
      received_at timestamptz not null,
      primary key (provider, event_id))`);
    this.addSql(`create table carrier_webhooks (
      store_id text primary key references stores(id) on delete cascade deferrable initially deferred,
      active boolean not null default true,
      secret_enc text null,
      last_event_at timestamptz null,
      created_at timestamptz not null,
      updated_at timestamptz not null)`);
  }
}
