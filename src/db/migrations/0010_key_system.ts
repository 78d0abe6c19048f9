import type { Kysely } from 'kysely';

// Key system (contract §8). Settings get their own table so a service without a key system carries nothing.
// Spent provider tokens are a primary key, so "spent once per server" is settled by the database on every
// instance; sessions and grants are swept by the key-system sweep job.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('key_system_settings')
    .addColumn('service_id', 'text', (c) => c.primaryKey().references('services.id').onDelete('cascade'))
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('checkpoints', 'integer', (c) => c.notNull())
    .addColumn('key_hours', 'integer', (c) => c.notNull())
    .addColumn('min_seconds_per_checkpoint', 'integer', (c) => c.notNull())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('links', 'text', (c) => c.notNull())
    .addColumn('provider_token_sealed', 'text')
    .addColumn('page_title', 'text')
    .addColumn('max_keys_per_address_per_day', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('key_system_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('service_id', 'text', (c) => c.notNull().references('services.id').onDelete('cascade'))
    .addColumn('browser_digest', 'text', (c) => c.notNull())
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('checkpoint', 'integer', (c) => c.notNull())
    .addColumn('checkpoints', 'integer', (c) => c.notNull())
    .addColumn('checkpoint_started_at', 'bigint', (c) => c.notNull())
    .addColumn('expected_token_digest', 'text')
    .addColumn('next_url', 'text')
    .addColumn('key', 'text')
    .addColumn('key_expires_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('key_system_sessions_expires_idx').on('key_system_sessions').column('expires_at').execute();

  await db.schema
    .createTable('key_system_tokens')
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('token_digest', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('key_system_tokens_pk', ['provider', 'token_digest'])
    .execute();
  await db.schema.createIndex('key_system_tokens_expires_idx').on('key_system_tokens').column('expires_at').execute();

  await db.schema
    .createTable('key_system_grants')
    .addColumn('service_id', 'text', (c) => c.notNull().references('services.id').onDelete('cascade'))
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('issued_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('key_system_grants_address_idx')
    .on('key_system_grants')
    .columns(['service_id', 'address', 'issued_at'])
    .execute();
  await db.schema.createIndex('key_system_grants_issued_idx').on('key_system_grants').column('issued_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('key_system_grants').execute();
  await db.schema.dropTable('key_system_tokens').execute();
  await db.schema.dropTable('key_system_sessions').execute();
  await db.schema.dropTable('key_system_settings').execute();
}
