import { Migration } from '@mikro-orm/migrations';

export class Migration20261121224045_Initial extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "groups" ("id" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "kind" text check ("kind" in ('organization', 'category')) not null, "name" varchar(100) not null, "title" varchar(300) not null, "description" text null, "image_url" varchar(2000) null, "state" text check ("state" in ('active', 'deleted')) not null default 'active', "deleted_at" timestamptz null, constraint "groups_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "groups" add constraint "groups_kind_name_unique" unique ("kind", "name");`);

    this.addSql(
      `create table "login_throttle" ("key" varchar(400) not null, "window_start" timestamptz not null, "failures" int not null, constraint "login_throttle_pkey" primary key ("key"));`,
    );

    this.addSql(
      `create table "tags" ("id" uuid not null, "name" varchar(100) not null, "created_at" timestamptz not null, constraint "tags_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "tags" add constraint "tags_name_unique" unique ("name");`);

    this.addSql(
      `create table "users" ("id" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "username" varchar(100) not null, "email" varchar(320) not null, "display_name" varchar(200) null, "password_hash" varchar(300) not null, "sysadmin" boolean not null default false, "state" text check ("state" in ('active', 'deleted')) not null default 'active', "deleted_at" timestamptz null, constraint "users_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "users" add constraint "users_username_unique" unique ("username");`);
    this.addSql(`alter table "users" add constraint "users_email_unique" unique ("email");`);

    this.addSql(
      `create table "sessions" ("id" uuid not null, "user_id" uuid not null, "secret_hash" varchar(64) not null, "created_at" timestamptz not null, "expires_at" timestamptz not null, constraint "sessions_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "sessions_user_id_index" on "sessions" ("user_id");`);
    this.addSql(`alter table "sessions" add constraint "sessions_secret_hash_unique" unique ("secret_hash");`);

    this.addSql(
      `create table "memberships" ("group_id" uuid not null, "user_id" uuid not null, "role" text check ("role" in ('member', 'editor', 'admin')) not null, "created_at" timestamptz not null, constraint "memberships_pkey" primary key ("group_id", "user_id"));`,
    );
    this.addSql(`create index "memberships_user_id_index" on "memberships" ("user_id");`);

    this.addSql(
      `create table "api_tokens" ("id" varchar(40) not null, "user_id" uuid not null, "name" varchar(200) not null, "secret_hash" varchar(64) not null, "created_at" timestamptz not null, "expires_at" timestamptz not null, "last_used_at" timestamptz null, "revoked_at" timestamptz null, constraint "api_tokens_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "api_tokens_user_id_index" on "api_tokens" ("user_id");`);
    this.addSql(`alter table "api_tokens" add constraint "api_tokens_secret_hash_unique" unique ("secret_hash");`);

    this.addSql(
      `alter table "sessions" add constraint "sessions_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "memberships" add constraint "memberships_group_id_foreign" foreign key ("group_id") references "groups" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "memberships" add constraint "memberships_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "api_tokens" add constraint "api_tokens_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`,
    );
  }
}
