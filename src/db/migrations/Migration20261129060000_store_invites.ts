import { Migration } from '@mikro-orm/migrations';

/**
 * Store invitations: one row per mailed invite, the token kept only as its SHA-256. Invites go
 * with their store; listing reads a store's newest first.
 */
export class Migration20261129060000_store_invites extends Migration {
  async up(): Promise<void> {
    this.addSql(`create table store_invites (
      id text primary key,
      store_id text not null references stores(id) on delete cascade deferrable initially deferred,
      email text not null,
      role text not null,
      invited_by text not null,
      token_hash text not null unique,
      metadata jsonb not null default '{}',
      expires_at timestamptz not null,
      accepted_at timestamptz,
      accepted_by text,
      revoked_at timestamptz,
      created_at timestamptz not null,
      updated_at timestamptz not null)`);
    this.addSql('create index store_invites_store on store_invites (store_id, created_at desc, id desc)');
  }
}
