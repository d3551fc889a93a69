import { Migration } from '@mikro-orm/migrations';

export class Migration20261122000000_foundation extends Migration {
  async up(): Promise<void> {
    this.addSql(`create table users (
      id text primary key,
      email text not null unique,
      name text not null,
      password_hash text not null,
      platform_role text not null default 'user' check (platform_role in ('user','admin')),
      email_verified_at timestamptz null,
      created_at timestamptz not null,
      updated_at timestamptz not null)`);
    this.addSql(`create table auth_tokens (
      id text primary key,
      user_id text not null references users(id) on delete cascade deferrable initially deferred,
      token_hash text not null unique,
      kind text not null check (kind in ('session','oauth')),
      name text null,
      scopes text[] null,
      app_id text null,
      last4 text not null,
      created_at timestamptz not null,
      last_used_at timestamptz null,
      expires_at timestamptz null,
      revoked_at timestamptz null)`);
    this.addSql(`create index auth_tokens_user_idx on auth_tokens (user_id)`);
    this.addSql(`create table stores (
      id text primary key,
      name text not null,
      created_at timestamptz not null,
      updated_at timestamptz not null)`);
    this.addSql(`create table store_members (
      store_id text not null references stores(id) on delete cascade deferrable initially deferred,
      user_id text not null references users(id) on delete cascade deferrable initially deferred,
      role text not null check (role in ('owner','admin','editor','viewer')),
      created_at timestamptz not null,
      primary key (store_id, user_id))`);
    this.addSql(`create index store_members_user_idx on store_members (user_id)`);
  }
}
