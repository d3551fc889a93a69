import { Migration } from '@mikro-orm/migrations';

/**
 * The ads platform and the platform connector (CONTRACT-2 §14): single-use OAuth states shared by
 * both flows, each store's Meta connection (token encrypted), Conversions API events (one row per
 * `{orderId}:{trigger}`, so an event is queued once whatever the retries), connectors to remote
 * shops, which remote record each local one mirrors, and the provider events already applied.
 */
export class Migration20261124000000_ads extends Migration {
  async up(): Promise<void> {
    this.addSql(`create table oauth_states (
      state_hash text primary key,
      provider text not null check (provider in ('meta','shopify')),
      store_id text not null references stores(id) on delete cascade deferrable initially deferred,
      user_id text null,
      connector_id text null,
      shop text null,
      return_url text not null,
      expires_at timestamptz not null,
      used_at timestamptz null,
      created_at timestamptz not null)`);
    this.addSql(`create index oauth_states_expires_idx on oauth_states (expires_at)`);
    this.addSql(`create table ads_connections (
      store_id text primary key references stores(id) on delete cascade deferrable initially deferred,
      provider text not null,
      status text not null check (status in ('connected','expired')),
      account jsonb null,
      granted_scopes text[] not null default '{}',
      token_enc text not null,
      token_expires_at timestamptz null,
      connected_by text null,
      connected_at timestamptz not null,
      updated_at timestamptz not null)`);
    this.addSql(`create table ads_conversions (
      store_id text not null references stores(id) on delete cascade deferrable initially deferred,
      event_id text not null,
      order_id text not null,
      trigger text not null check (trigger in ('created','confirmed','paid','delivered')),
      event_name text not null,
      event jsonb not null,
      status text not null check (status in ('queued','retrying','sent','failed')),
      attempts integer not null default 0,
      last_error text null,
      last_attempt_at timestamptz null,
      sent_at timestamptz null,
      created_at timestamptz not null,
      primary key (store_id, event_id))`);
    this.addSql(`create index ads_conversions_recent_idx on ads_conversions (store_id, last_attempt_at)`);
    this.addSql(`create table connectors (
      id text primary key,
      store_id text not null references stores(id) on delete cascade deferrable initially deferred,
      provider text not null,
      shop_domain text not null,
      status text not null check (status in ('pending','active','uninstalled','error')),
      sync jsonb not null,
      token_enc text null,
      scopes text[] not null default '{}',
      last_error text null,
      last_event_at timestamptz null,
      imported_at timestamptz null,
      created_at timestamptz not null,
      updated_at timestamptz not null)`);
    this.addSql(`create unique index connectors_store_shop_idx on connectors (store_id, shop_domain)`);
    // A shop feeds one store at a time.
    this.addSql(`create unique index connectors_active_shop_idx on connectors (shop_domain) where status = 'active'`);
    this.addSql(`create table connector_links (
      connector_id text not null references connectors(id) on delete cascade deferrable initially deferred,
      resource text not null check (resource in ('product','order')),
      remote_id text not null,
      local_id text not null,
      remote_updated_at timestamptz null,
      primary key (connector_id, resource, remote_id))`);
    this.addSql(`create table inbound_events (
      id text primary key,
      provider text not null,
      event_id text not null,
      connector_id text not null references connectors(id) on delete cascade deferrable initially deferred,
      store_id text not null,
      topic text not null,
      received_at timestamptz not null,
      unique (provider, event_id))`);
    this.addSql(`create index inbound_events_received_idx on inbound_events (received_at)`);
  }
}
