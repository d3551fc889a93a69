import { Migration } from '@mikro-orm/migrations';

/**
 * Catalog and configuration (CONTRACT-2 §10): template components, shipping prices and
 * methods, store templates with their locales, pages with the slugs they left behind, and the
 * platform options with the version every replica's cache follows.
 */
export class Migration20261123030000_catalog extends Migration {
  async up(): Promise<void> {
    this.addSql(`create table template_components (
      id text primary key,
      store_id text not null references stores(id) on delete cascade deferrable initially deferred,
      title text not null,
      subtitle text null,
      body text null,
      category text null,
      tags jsonb not null default '[]',
      image_url text null,
      code text not null,
      props_schema jsonb not null default '{}',
      slots_schema jsonb null,
      props_default jsonb not null default '{}',
      slots_default jsonb null,
      policy text not null check (policy in ('private','unlisted','public','deprecated')),
      parent_id text null,
      parent_version integer null,
      version integer not null default 1,
      created_at timestamptz not null,
      updated_at timestamptz not null)`);
    this.addSql(`create index template_components_store_idx on template_components (store_id, id desc)`);
    this.addSql(`create index template_components_market_idx on template_components (id desc) where policy in ('public','deprecated')`);
    this.addSql(`create table shipping_prices (
      id text primary key,
      store_id text not null references stores(id) on delete cascade deferrable initially deferred,
      name text not null,
      logo_url text null,
      currency text not null,
      status text not null check (status in ('draft','published')),
      prices jsonb not null default '{}',
      created_at timestamptz not null,
      updated_at timestamptz not null)`);
    this.addSql(`create index shipping_prices_store_idx on shipping_prices (store_id, id desc)`);
    this.addSql(`create table shipping_methods (
      id text primary key,
      store_id text not null references stores(id) on delete cascade deferrable initially deferred,
      name text not null,
      description text null,
      logo_url text null,
      price bigint not null default 0,
      shipping_price_id text null references shipping_prices(id) deferrable initially deferred,
      status text not null check (status in ('draft','published','archived')),
      policy text not null check (policy in ('private','public')),
      source_id text null,
      created_at timestamptz not null,
      updated_at timestamptz not null)`);
    this.addSql(`create index shipping_methods_store_idx on shipping_methods (store_id, id desc)`);
    this.addSql(`create index shipping_methods_price_idx on shipping_methods (shipping_price_id)`);
    this.addSql(`create index shipping_methods_source_idx on shipping_methods (source_id)`);
    this.addSql(`create table store_templates (
      id text primary key,
      store_id text not null references stores(id) on delete cascade deferrable initially deferred,
      name text not null,
      default_locale text null,
      created_at timestamptz not null,
      updated_at timestamptz not null)`);
    this.addSql(`create index store_templates_store_idx on store_templates (store_id, id desc)`);
    this.addSql(`create table store_template_locales (
      template_id text not null references store_templates(id) on delete cascade deferrable initially deferred,
      locale text not null,
      messages jsonb not null default '{}',
      created_at timestamptz not null,
      updated_at timestamptz not null,
      primary key (template_id, locale))`);
    this.addSql(`create table pages (
      id text primary key,
      store_id text not null references stores(id) on delete cascade deferrable initially deferred,
      title text not null,
      slug text not null,
      body text not null default '',
      status text not null check (status in ('draft','published')),
      published_at timestamptz null,
      seo jsonb not null default '{}',
      created_at timestamptz not null,
      updated_at timestamptz not null,
      unique (store_id, slug))`);
    this.addSql(`create table page_redirects (
      store_id text not null references stores(id) on delete cascade deferrable initially deferred,
      slug text not null,
      page_id text not null references pages(id) on delete cascade deferrable initially deferred,
      created_at timestamptz not null,
      primary key (store_id, slug))`);
    this.addSql(`create table platform_options (
      key text primary key,
      value jsonb null,
      public boolean not null default false,
      created_at timestamptz not null,
      updated_at timestamptz not null)`);
    this.addSql(`create table platform_options_version (
      id integer primary key check (id = 1),
      version bigint not null)`);
    this.addSql(`insert into platform_options_version (id, version) values (1, 1)`);
  }
}
