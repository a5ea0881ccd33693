import { Migration } from '@mikro-orm/migrations';

export class Migration20261125170000_AuthNotify extends Migration {
  override async up(): Promise<void> {
    // API processes cache token and session lookups (src/domain/auth/credential-cache.ts); any change
    // that could refuse a credential tells them which entries to drop. The payload is the cache key:
    // `token:<secret_hash>`, `session:<secret_hash>` or `user:<id>`. Notifications go out at commit.
    this.addSql(`create function "auth_notify"() returns trigger language plpgsql as $$
      begin
        -- One statement per table: each is planned only when run, against that table's row type.
        if tg_table_name = 'api_tokens' then
          perform pg_notify('almanac_auth', 'token:' || old.secret_hash);
        elsif tg_table_name = 'sessions' then
          perform pg_notify('almanac_auth', 'session:' || old.secret_hash);
        else
          perform pg_notify('almanac_auth', 'user:' || old.id);
        end if;
        return null;
      end $$;`);
    // Only changes that matter: stamping last_used_at (once a minute per token) must not empty every cache.
    this.addSql(`create trigger "api_tokens_auth_notify" after update on "api_tokens" for each row
      when (old.revoked_at is distinct from new.revoked_at or old.expires_at is distinct from new.expires_at
        or old.user_id is distinct from new.user_id or old.secret_hash is distinct from new.secret_hash)
      execute function "auth_notify"();`);
    this.addSql(`create trigger "api_tokens_auth_notify_delete" after delete on "api_tokens" for each row
      execute function "auth_notify"();`);
    this.addSql(`create trigger "sessions_auth_notify" after update on "sessions" for each row
      when (old.expires_at is distinct from new.expires_at or old.user_id is distinct from new.user_id
        or old.secret_hash is distinct from new.secret_hash)
      execute function "auth_notify"();`);
    this.addSql(`create trigger "sessions_auth_notify_delete" after delete on "sessions" for each row
      execute function "auth_notify"();`);
    this.addSql(`create trigger "users_auth_notify" after update on "users" for each row
      when (old.state is distinct from new.state or old.sysadmin is distinct from new.sysadmin)
      execute function "auth_notify"();`);
    this.addSql(`create trigger "users_auth_notify_delete" after delete on "users" for each row
      execute function "auth_notify"();`);
  }

  override async down(): Promise<void> {
    for (const [trigger, table] of [
      ['api_tokens_auth_notify', 'api_tokens'],
      ['api_tokens_auth_notify_delete', 'api_tokens'],
      ['sessions_auth_notify', 'sessions'],
      ['sessions_auth_notify_delete', 'sessions'],
      ['users_auth_notify', 'users'],
      ['users_auth_notify_delete', 'users'],
    ]) {
      this.addSql(`drop trigger if exists "${trigger}" on "${table}";`);
    }
    this.addSql(`drop function if exists "auth_notify"();`);
  }
}
