import { Migration } from '@mikro-orm/migrations';

/**
 * Idempotency-Key answers of every create and trigger outside payments, per caller (the user,
 * and the app for app tokens), kept 24 h. `answer` is null while the first request runs.
 */
export class Migration20261126140000_idempotency_keys extends Migration {
  async up(): Promise<void> {
    this.addSql(`create table idempotency_keys (
      caller text not null,
      key text not null,
      request_hash text not null,
      answer text,
      created_at timestamptz not null,
      primary key (caller, key))`);
    this.addSql('create index idempotency_keys_created_at on idempotency_keys (created_at)');
  }
}
