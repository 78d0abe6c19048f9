import { sql, type Kysely } from 'kysely';

// Several HWIDs per key (contract §7.1). The bound HWIDs live in their own table so "is this HWID bound"
// is an indexed lookup; active_keys keeps the first of them in `hwid` and their number in `hwid_count`,
// so binding one more is a conditional UPDATE the database serialises (hwid_count < max_hwids).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('active_keys')
    .addColumn('max_hwids', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
  await db.schema
    .alterTable('active_keys')
    .addColumn('hwid_count', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('generated_keys')
    .addColumn('max_hwids', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
  await db.schema
    .createTable('key_hwids')
    .addColumn('key', 'text', (c) => c.notNull().references('active_keys.key').onDelete('cascade'))
    .addColumn('service_id', 'text', (c) => c.notNull())
    .addColumn('hwid', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('key_hwids_pk', ['key', 'hwid'])
    .execute();
  await db.schema.createIndex('key_hwids_service_hwid_idx').on('key_hwids').columns(['service_id', 'hwid']).execute();
  await sql`INSERT INTO key_hwids (key, service_id, hwid, position) SELECT key, service_id, hwid, 1 FROM active_keys WHERE hwid IS NOT NULL`.execute(
    db,
  );
  await sql`UPDATE active_keys SET hwid_count = 1 WHERE hwid IS NOT NULL`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('key_hwids').execute();
  await db.schema.alterTable('generated_keys').dropColumn('max_hwids').execute();
  await db.schema.alterTable('active_keys').dropColumn('hwid_count').execute();
  await db.schema.alterTable('active_keys').dropColumn('max_hwids').execute();
}
