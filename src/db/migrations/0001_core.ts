import type { Kysely } from 'kysely';

// Plain types only (text, integer, bigint) so the same migration runs on SQLite and PostgreSQL.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('accounts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('username', 'text', (c) => c.notNull().unique())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('disabled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('api_key_digest', 'text', (c) => c.unique())
    .addColumn('api_key_sealed', 'text')
    .addColumn('api_key_created_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('services')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('identifier', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('api_key_digest', 'text', (c) => c.notNull().unique())
    .addColumn('api_key_sealed', 'text', (c) => c.notNull())
    .addColumn('allow_url_shortener', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('allow_manage_keys', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('allow_vss', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('ip_allowlist', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('webhook_url', 'text')
    .addColumn('webhook_enabled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('hwid_reset_cooldown_free_hours', 'integer', (c) => c.notNull().defaultTo(24))
    .addColumn('hwid_reset_cooldown_premium_hours', 'integer', (c) => c.notNull().defaultTo(6))
    .addColumn('chat_interactions_public_key', 'text')
    .addColumn('chat_guild_id', 'text')
    .addColumn('chat_guild_name', 'text')
    .addColumn('executions', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('last_active_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('services_account_idx').on('services').column('account_id').execute();

  await db.schema
    .createTable('generated_keys')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('service_id', 'text', (c) => c.notNull().references('services.id').onDelete('cascade'))
    .addColumn('note', 'text')
    .addColumn('is_premium', 'integer', (c) => c.notNull())
    .addColumn('no_hwid_validation', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'bigint')
    .addColumn('chat_id', 'text')
    .addColumn('expiration_type', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('generated_keys_service_note_idx').on('generated_keys').columns(['service_id', 'note']).execute();
  await db.schema.createIndex('generated_keys_service_chat_idx').on('generated_keys').columns(['service_id', 'chat_id']).execute();

  await db.schema
    .createTable('active_keys')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('service_id', 'text', (c) => c.notNull().references('services.id').onDelete('cascade'))
    .addColumn('hwid', 'text')
    .addColumn('note', 'text')
    .addColumn('is_premium', 'integer', (c) => c.notNull())
    .addColumn('no_hwid_validation', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'bigint')
    .addColumn('chat_id', 'text')
    .addColumn('executions', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('activated_at', 'bigint', (c) => c.notNull())
    .addColumn('last_used_at', 'bigint')
    .addColumn('hwid_reset_at', 'bigint')
    .addColumn('hwid_reset_count', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('active_keys_service_hwid_idx').on('active_keys').columns(['service_id', 'hwid']).execute();
  await db.schema.createIndex('active_keys_service_note_idx').on('active_keys').columns(['service_id', 'note']).execute();
  await db.schema.createIndex('active_keys_service_chat_idx').on('active_keys').columns(['service_id', 'chat_id']).execute();

  await db.schema
    .createTable('keyless')
    .addColumn('service_id', 'text', (c) => c.notNull().references('services.id').onDelete('cascade'))
    .addColumn('hwid', 'text', (c) => c.notNull())
    .addColumn('is_premium', 'integer', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('keyless_pk', ['service_id', 'hwid'])
    .execute();

  await db.schema
    .createTable('blacklist')
    .addColumn('service_id', 'text', (c) => c.notNull().references('services.id').onDelete('cascade'))
    .addColumn('hwid', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('expires_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('blacklist_pk', ['service_id', 'hwid'])
    .execute();
  await db.schema.createIndex('blacklist_service_created_idx').on('blacklist').columns(['service_id', 'created_at']).execute();
}
