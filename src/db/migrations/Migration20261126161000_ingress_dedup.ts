import { Migration } from '@mikro-orm/migrations';

/**
 * Provider ingress hardening. Provider events are recorded once per store, provider and event id: two stores may hear the
 * same event id from one provider (a provider's ids are unique per account, not across accounts),
 * and each must apply its own. An event that can never apply is kept with the reason.
 */
export class Migration20261126161000_ingress_dedup extends Migration {
  async up(): Promise<void> {
    this.addSql('alter table payment_events drop constraint payment_events_pkey');
    this.addSql('alter table payment_events add primary key (store_id, provider, event_id)');
    this.addSql('alter table carrier_events drop constraint carrier_events_pkey');
    this.addSql('alter table carrier_events add primary key (store_id, provider, event_id)');
    this.addSql('alter table inbound_events drop constraint inbound_events_provider_event_id_key');
    this.addSql('alter table inbound_events add constraint inbound_events_store_provider_event_key unique (store_id, provider, event_id)');
    // Why a verified event was recorded but not applied (it can never apply: a redelivery would fail again).
    for (const table of ['payment_events', 'carrier_events', 'inbound_events']) this.addSql(`alter table ${table} add column rejected text null`);
    // When `?refresh=1` last asked the provider about a payment or refund (one ask per interval).
    this.addSql('alter table payments add column refreshed_at timestamptz null');
    this.addSql('alter table payment_refunds add column refreshed_at timestamptz null');
  }
}
