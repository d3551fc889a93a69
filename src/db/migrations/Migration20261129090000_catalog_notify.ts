import { Migration } from '@mikro-orm/migrations';

/**
 * The storefront's catalogue tables NOTIFY `souk_catalog` with the store id at commit, so every
 * replica knows which stores' public answers moved (storefront.freshness: 304s from memory).
 * PostgreSQL folds identical payloads of one transaction into one notification.
 */
export class Migration20261129090000_catalog_notify extends Migration {
  async up(): Promise<void> {
    // TG_ARGV[0]: the column that holds the store id.
    this.addSql(`create function souk_catalog_notify() returns trigger language plpgsql as $$
      declare sid text;
      begin
        if tg_op = 'DELETE' then sid := to_jsonb(old) ->> tg_argv[0]; else sid := to_jsonb(new) ->> tg_argv[0]; end if;
        if tg_op = 'UPDATE' and (to_jsonb(old) ->> tg_argv[0]) is distinct from sid then
          perform pg_notify('souk_catalog', to_jsonb(old) ->> tg_argv[0]);
        end if;
        if sid is not null then perform pg_notify('souk_catalog', sid); end if;
        return null;
      end $$`);
    // A template's locales name the store through their template (gone already when the template's delete cascades: its own trigger spoke).
    this.addSql(`create function souk_catalog_notify_locale() returns trigger language plpgsql as $$
      declare sid text;
      begin
        select store_id into sid from store_templates where id = (case when tg_op = 'DELETE' then old.template_id else new.template_id end);
        if sid is not null then perform pg_notify('souk_catalog', sid); end if;
        return null;
      end $$`);
    for (const table of ['products', 'pages', 'page_redirects', 'product_landing_pages', 'shipping_methods', 'shipping_prices', 'store_templates']) {
      this.addSql(`create trigger ${table}_catalog_notify after insert or update or delete on ${table} for each row execute function souk_catalog_notify('store_id')`);
    }
    // Only what the storefront shows of a store (its order counters move with every order).
    this.addSql(`create trigger stores_catalog_notify after update of slug, name, currency, logo_url, storefront or delete on stores
      for each row execute function souk_catalog_notify('id')`);
    this.addSql('create trigger store_template_locales_catalog_notify after insert or update or delete on store_template_locales for each row execute function souk_catalog_notify_locale()');
  }
}
