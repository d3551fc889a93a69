import { Migration } from '@mikro-orm/migrations';

/**
 * A page's HTML is rendered when the page is written and stored with its version: views serve
 * it as it is, and the version is their ETag. Pages written before have no HTML yet; their first
 * view renders it (in the CPU pool) and stores it.
 */
export class Migration20261126120000_page_html extends Migration {
  async up(): Promise<void> {
    this.addSql(`alter table pages add column html text, add column version integer not null default 1`);
  }
}
