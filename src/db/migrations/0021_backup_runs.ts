import type { Kysely } from 'kysely';

// `keyward backup` writes one row per finished snapshot, so staff see in the dashboard when the last one ran
// (a server nobody backs up looks exactly like one that is backed up every night). The snapshot file itself
// stays where the person put it; only its moment, size, key count and database kind are kept.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('backup_runs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('finished_at', 'bigint', (c) => c.notNull())
    .addColumn('size_bytes', 'bigint', (c) => c.notNull())
    .addColumn('key_count', 'integer', (c) => c.notNull())
    .addColumn('database_kind', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('backup_runs_finished_idx').on('backup_runs').column('finished_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('backup_runs').execute();
}
