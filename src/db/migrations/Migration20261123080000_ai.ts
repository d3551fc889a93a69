import { Migration } from '@mikro-orm/migrations';

/**
 * AI brand studios (CONTRACT-2 §16): image prompt templates (platform-wide or a store's own),
 * brand studios, their generations (queue jobs) and the generated assets, whose bytes live in
 * the database; a per-store, per-day usage counter enforces the daily quota without a lock.
 */
export class Migration20261123080000_ai extends Migration {
  async up(): Promise<void> {
    this.addSql(`create table ai_prompt_templates (
      id text primary key,
      store_id text null references stores(id) on delete cascade deferrable initially deferred,
      name text not null,
      description text null,
      prompt text not null,
      tags text[] not null default '{}',
      props_schema jsonb not null default '{}',
      props jsonb not null default '{}',
      preview_image_url text null,
      created_at timestamptz not null,
      updated_at timestamptz not null)`);
    this.addSql(`create index ai_prompt_templates_store_idx on ai_prompt_templates (store_id, id)`);
    this.addSql(`create table ai_brand_studios (
      id text primary key,
      store_id text not null references stores(id) on delete cascade deferrable initially deferred,
      name text not null,
      brief jsonb not null,
      primaries jsonb not null,
      status text not null check (status in ('draft','ready')),
      created_at timestamptz not null,
      updated_at timestamptz not null)`);
    this.addSql(`create index ai_brand_studios_store_idx on ai_brand_studios (store_id, id)`);
    this.addSql(`create table ai_generations (
      id text primary key,
      store_id text not null references stores(id) on delete cascade deferrable initially deferred,
      studio_id text not null references ai_brand_studios(id) on delete cascade deferrable initially deferred,
      kind text not null check (kind in ('logo','icon','cover','palette')),
      status text not null check (status in ('pending','processing','completed','failed')),
      progress real not null default 0 check (progress >= 0 and progress <= 1),
      prompt text not null,
      provider text not null,
      model text not null,
      seed integer not null check (seed >= 0),
      n integer not null check (n between 1 and 4),
      width integer not null,
      height integer not null,
      colors jsonb null,
      error text null,
      attempts integer not null default 0,
      job_id uuid null,
      lease_until timestamptz null,
      created_at timestamptz not null,
      updated_at timestamptz not null)`);
    this.addSql(`create index ai_generations_studio_idx on ai_generations (studio_id, id)`);
    this.addSql(`create index ai_generations_unfinished_idx on ai_generations (store_id) where status in ('pending','processing')`);
    this.addSql(`create index ai_generations_lease_idx on ai_generations (lease_until) where status = 'processing'`);
    this.addSql(`create table ai_assets (
      id text primary key,
      store_id text not null references stores(id) on delete cascade deferrable initially deferred,
      studio_id text not null references ai_brand_studios(id) on delete cascade deferrable initially deferred,
      generation_id text not null references ai_generations(id) on delete cascade deferrable initially deferred,
      position integer not null,
      kind text not null,
      mime text not null,
      bytes bytea not null check (octet_length(bytes) <= 8388608),
      sha256 text not null,
      width integer not null,
      height integer not null,
      colors jsonb null,
      created_at timestamptz not null,
      unique (generation_id, position))`);
    this.addSql(`create index ai_assets_studio_idx on ai_assets (studio_id)`);
    this.addSql(`create table ai_usage (
      store_id text not null references stores(id) on delete cascade deferrable initially deferred,
      day date not null,
      generations integer not null,
      primary key (store_id, day))`);
  }
}
