import type { Kysely } from 'kysely';

// Script code lives in the database (in chunks) rather than under DATA_DIR, so every instance sharing
// one PostgreSQL sees the same scripts.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('scripts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('service_id', 'text', (c) => c.notNull().references('services.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('obfuscation_type', 'text', (c) => c.notNull())
    .addColumn('visible', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('failure_reason', 'text')
    .addColumn('source_blob', 'text', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('output_blob', 'text')
    .addColumn('output_size', 'bigint')
    .addColumn('job_id', 'text')
    .addColumn('lease_until', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('scripts_service_name_key', ['service_id', 'name'])
    .execute();
  await db.schema.createIndex('scripts_status_idx').on('scripts').columns(['status', 'lease_until']).execute();

  await db.schema
    .createTable('script_chunks')
    .addColumn('blob_id', 'text', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('script_chunks_pk', ['blob_id', 'seq'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('script_chunks').execute();
  await db.schema.dropTable('scripts').execute();
}
