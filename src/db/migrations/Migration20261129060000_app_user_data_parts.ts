import { Migration } from '@mikro-orm/migrations';

/**
 * An app's data about one of its users in three parts by visibility: `data` stays the public
 * part (the user and the app), `private_data` is the app's own, `protected_data` the app writes
 * and the user only reads. Each defaults to `{}` so a write of one part inserts the row.
 */
export class Migration20261129060000_app_user_data_parts extends Migration {
  async up(): Promise<void> {
    this.addSql(`alter table app_user_data
      alter column data set default '{}'::jsonb,
      add column private_data jsonb not null default '{}'::jsonb,
      add column protected_data jsonb not null default '{}'::jsonb`);
  }
}
