import { Migration } from '@mikro-orm/migrations';

/**
 * The storefront's defences (CONTRACT-3 §17.2, §17.7): server keys (only their SHA-256 kept;
 * a deleted key NOTIFYs every replica's cache), the per-store blocklist of phones and IP ranges
 * (`inet`, matched with `>>=`), and the limit counters every replica shares: a log of checkout
 * times per subject (one row, locked by the order's transaction) and per-address read counts in
 * two fixed windows (no foreign key: a batch of counts must not fail for one deleted store;
 * pruning removes them).
 */
export class Migration20261128100000_storefront_defences extends Migration {
  async up(): Promise<void> {
    this.addSql(`create table storefront_keys (
      id text primary key,
      store_id text not null references stores(id) on delete cascade deferrable initially deferred,
      name text not null,
      key_hash text not null unique,
      created_at timestamptz not null)`);
    this.addSql('create index storefront_keys_store on storefront_keys (store_id, id)');
    this.addSql(`create function souk_storefront_key_notify() returns trigger language plpgsql as $$
      begin perform pg_notify('souk_storefront_keys', old.key_hash); return null; end $$`);
    this.addSql('create trigger storefront_keys_notify_delete after delete on storefront_keys for each row execute function souk_storefront_key_notify()');

    this.addSql(`create table storefront_blocklist (
      id text primary key,
      store_id text not null references stores(id) on delete cascade deferrable initially deferred,
      kind text not null check (kind in ('phone', 'ip')),
      value text not null,
      net inet check ((kind = 'ip') = (net is not null)),
      note text,
      created_at timestamptz not null,
      unique (store_id, kind, value))`);
    this.addSql("create index storefront_blocklist_nets on storefront_blocklist using gist (net inet_ops) where kind = 'ip'");

    this.addSql(`create table storefront_checkout_hits (
      store_id text not null references stores(id) on delete cascade deferrable initially deferred,
      kind text not null,
      subject text not null,
      hits bigint[] not null,
      expires_at timestamptz not null,
      primary key (store_id, kind, subject))`);
    this.addSql('create index storefront_checkout_hits_expiry on storefront_checkout_hits (expires_at)');

    this.addSql(`create table storefront_read_counts (
      store_id text not null,
      subject text not null,
      window_ms integer not null,
      window_start bigint not null,
      count integer not null,
      prev_count integer not null,
      expires_at timestamptz not null,
      primary key (store_id, subject))`);
    this.addSql('create index storefront_read_counts_expiry on storefront_read_counts (expires_at)');
  }
}
