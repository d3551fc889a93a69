import { Migration } from '@mikro-orm/migrations';

export class Migration20261122010000_identity extends Migration {
  async up(): Promise<void> {
    this.addSql(`create table user_codes (
      id text primary key,
      user_id text not null references users(id) on delete cascade deferrable initially deferred,
      purpose text not null check (purpose in ('verify_email','reset_password','transfer')),
      code_hash text not null unique,
      email text null,
      expires_at timestamptz not null,
      used_at timestamptz null,
      created_at timestamptz not null)`);
    this.addSql(`create index user_codes_user_idx on user_codes (user_id)`);
    this.addSql(`create table oauth_apps (
      id text primary key,
      owner_id text not null references users(id) on delete cascade deferrable initially deferred,
      name text not null,
      description text null,
      homepage_url text null,
      redirect_uris text[] not null,
      scopes text[] not null,
      secret_hash text not null,
      public_data jsonb not null default '{}',
      private_data jsonb not null default '{}',
      created_at timestamptz not null,
      updated_at timestamptz not null)`);
    this.addSql(`create index oauth_apps_owner_idx on oauth_apps (owner_id)`);
    // Deleting an app cuts off every token it holds.
    this.addSql(`alter table auth_tokens add constraint auth_tokens_app_fk foreign key (app_id) references oauth_apps(id) on delete cascade deferrable initially deferred`);
    this.addSql(`create index auth_tokens_app_idx on auth_tokens (app_id) where app_id is not null`);
    this.addSql(`create table oauth_codes (
      id text primary key,
      code_hash text not null unique,
      app_id text not null references oauth_apps(id) on delete cascade deferrable initially deferred,
      user_id text not null references users(id) on delete cascade deferrable initially deferred,
      redirect_uri text not null,
      scopes text[] not null,
      state text null,
      code_challenge text not null,
      code_challenge_method text not null check (code_challenge_method = 'S256'),
      expires_at timestamptz not null,
      consumed_at timestamptz null,
      token_id text null references auth_tokens(id) on delete cascade deferrable initially deferred,
      created_at timestamptz not null)`);
    this.addSql(`create table app_user_data (
      app_id text not null references oauth_apps(id) on delete cascade deferrable initially deferred,
      user_id text not null references users(id) on delete cascade deferrable initially deferred,
      data jsonb not null,
      updated_at timestamptz not null,
      primary key (app_id, user_id))`);
    this.addSql(`create table mail_outbox (
      id text primary key,
      to_address text not null,
      subject text not null,
      body text not null,
      created_at timestamptz not null)`);
  }
}
