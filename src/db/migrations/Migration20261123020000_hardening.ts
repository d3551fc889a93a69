import { Migration } from '@mikro-orm/migrations';

/**
 * Credentials follow what they came from (issue 10): transfer and OAuth authorization codes
 * remember the session that made them and die with it; reset codes are bound to the address
 * they were mailed to; sessions get an expiry (slid forward on use); custom webhook header
 * values move to an encrypted column (the service seals the existing ones at start, since the
 * key is not the database's to know).
 */
export class Migration20261123020000_hardening extends Migration {
  async up(): Promise<void> {
    this.addSql(`alter table user_codes add column session_id text null references auth_tokens(id) on delete cascade deferrable initially deferred`);
    this.addSql(`alter table oauth_codes add column session_id text null references auth_tokens(id) on delete cascade deferrable initially deferred`);
    // Codes made before this have no session to follow: outstanding ones end now.
    this.addSql(`update user_codes set used_at = now() where purpose = 'transfer' and used_at is null`);
    this.addSql(`update oauth_codes set expires_at = least(expires_at, now()) where consumed_at is null`);
    this.addSql(`update user_codes c set email = u.email from users u where c.user_id = u.id and c.purpose = 'reset_password' and c.email is null`);
    this.addSql(`update auth_tokens set expires_at = coalesce(last_used_at, created_at) + interval '30 days' where kind = 'session' and expires_at is null`);
    this.addSql(`alter table webhooks add column headers_enc text null`);
  }
}
