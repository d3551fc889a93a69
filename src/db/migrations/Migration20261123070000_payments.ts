import { Migration } from '@mikro-orm/migrations';

/**
 * Order payments (CONTRACT-2 §15): payments and refunds, the provider events already applied
 * (one row per provider event id, so a replay changes nothing), stored answers for
 * `Idempotency-Key`, and a lookup index for order payment tokens.
 */
export class Migration20261123070000_payments extends Migration {
  async up(): Promise<void> {
    this.addSql(`create unique index orders_payment_token_idx on orders (payment_token_hash) where payment_token_hash is not null`);
    this.addSql(`create table payments (
      id text primary key,
      store_id text not null references stores(id) on delete cascade deferrable initially deferred,
      order_id text not null references orders(id) on delete cascade deferrable initially deferred,
      provider text not null check (provider in ('cod','chargily','stripe')),
      method text not null,
      amount bigint not null check (amount > 0),
      currency text not null,
      checkout_url text null,
      provider_ref text null,
      charge_ref text null,
      success_url text null,
      failure_url text null,
      status text not null check (status in ('requires_action','pending','paid','failed','canceled','expired')),
      paid_at timestamptz null,
      claimed_until timestamptz null,
      checked_at timestamptz null,
      created_at timestamptz not null,
      updated_at timestamptz not null)`);
    this.addSql(`create index payments_order_idx on payments (order_id, created_at desc)`);
    this.addSql(`create unique index payments_provider_ref_idx on payments (provider, provider_ref) where provider_ref is not null`);
    this.addSql(`create index payments_open_idx on payments (checked_at nulls first) where status in ('requires_action','pending') and provider <> 'cod'`);
    this.addSql(`create table payment_refunds (
      id text primary key,
      store_id text not null references stores(id) on delete cascade deferrable initially deferred,
      order_id text not null references orders(id) on delete cascade deferrable initially deferred,
      payment_id text not null references payments(id) on delete cascade deferrable initially deferred,
      amount bigint not null check (amount > 0),
      currency text not null,
      reason text null,
      manual boolean not null,
      status text not null check (status in ('pending','requires_action','succeeded','failed','canceled')),
      provider_ref text null,
      created_at timestamptz not null,
      updated_at timestamptz not null)`);
    this.addSql(`create index payment_refunds_payment_idx on payment_refunds (payment_id)`);
    this.addSql(`create index payment_refunds_order_idx on payment_refunds (order_id, created_at desc)`);
    this.addSql(`create unique index payment_refunds_provider_ref_idx on payment_refunds (provider_ref) where provider_ref is not null`);
    this.addSql(`create table payment_events (
      provider text not null,
      event_id text not null,
      store_id text not null references stores(id) on delete cascade deferrable initially deferred,
      type text not null,
      received_at timestamptz not null,
      primary key (provider, event_id))`);
    this.addSql(`create table payment_idempotency (
      order_id text not null references orders(id) on delete cascade deferrable initially deferred,
      route text not null,
      key text not null,
      request_hash text not null,
      response jsonb null,
      created_at timestamptz not null,
      primary key (order_id, route, key))`);
    this.addSql(`create index payment_idempotency_created_idx on payment_idempotency (created_at)`);
  }
}
