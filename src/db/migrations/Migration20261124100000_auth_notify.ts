import { Migration } from '@mikro-orm/migrations';

/**
 * Every replica caches who a token is and which role a user has in a store (src/core/auth-cache.ts).
 * These triggers tell them, at commit, whose entries changed: a revoked or deleted token, a
 * platform role change or a deleted user, a membership added, changed or removed. Triggers
 * rather than calls in the services, so no write path can forget one.
 */
export class Migration20261124100000_auth_notify extends Migration {
  async up(): Promise<void> {
    this.addSql(`create function souk_auth_notify() returns trigger language plpgsql as $$
      declare
        field text := case when tg_table_name = 'users' then 'id' else 'user_id' end;
        before_id text := to_jsonb(old) ->> field;
        after_id text := to_jsonb(new) ->> field;
      begin
        if after_id is not null then perform pg_notify('souk_auth', after_id); end if;
        if before_id is not null and before_id is distinct from after_id then perform pg_notify('souk_auth', before_id); end if;
        return null;
      end $$`);
    this.addSql(`create trigger auth_tokens_notify after update of revoked_at, expires_at, scopes, user_id on auth_tokens
      for each row when (old.revoked_at is distinct from new.revoked_at or new.expires_at < old.expires_at
                         or old.scopes is distinct from new.scopes or old.user_id is distinct from new.user_id)
      execute function souk_auth_notify()`);
    this.addSql(`create trigger auth_tokens_notify_delete after delete on auth_tokens for each row execute function souk_auth_notify()`);
    this.addSql(`create trigger users_notify after update of platform_role on users
      for each row when (old.platform_role is distinct from new.platform_role) execute function souk_auth_notify()`);
    this.addSql(`create trigger users_notify_delete after delete on users for each row execute function souk_auth_notify()`);
    this.addSql(`create trigger store_members_notify after insert or update or delete on store_members for each row execute function souk_auth_notify()`);
  }
}
