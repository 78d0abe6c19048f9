import type { Kysely } from 'kysely';

// Sign-in, two-factor, sessions, captcha replay guard, the vault and the URL shortener.
// Plain types only (text, integer, bigint) so the same migration runs on SQLite and PostgreSQL.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('accounts')
    .addColumn('totp_enabled', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('accounts').addColumn('totp_secret_sealed', 'text').execute();
  await db.schema.alterTable('accounts').addColumn('totp_last_step', 'bigint').execute();
  await db.schema
    .alterTable('accounts')
    .addColumn('failed_login_count', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('accounts').addColumn('login_locked_until', 'bigint').execute();

  await db.schema
    .createTable('sessions')
    .addColumn('token_digest', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sessions_account_idx').on('sessions').column('account_id').execute();

  await db.schema
    .createTable('captcha_uses')
    .addColumn('signature', 'text', (c) => c.primaryKey())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('captcha_uses_expires_idx').on('captcha_uses').column('expires_at').execute();

  await db.schema
    .createTable('vault_scripts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('code_sealed', 'text', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('vault_scripts_account_name_uq', ['account_id', 'name'])
    .execute();

  await db.schema
    .createTable('short_links')
    .addColumn('slug', 'text', (c) => c.primaryKey())
    .addColumn('service_id', 'text', (c) => c.notNull().references('services.id').onDelete('cascade'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('clicks', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('short_links_service_created_idx').on('short_links').columns(['service_id', 'created_at']).execute();
}
