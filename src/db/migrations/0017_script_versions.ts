import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';

// Script versions and rollback, the kill switch and per-service variables (contract §13.2, §13.3).
// A version points at an immutable code blob (script_chunks), so keeping one costs no copy of the code:
// the script's source_blob is always one of its versions' blobs.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('scripts')
    .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
  await db.schema.alterTable('scripts').addColumn('disabled_message', 'text').execute();
  await db.schema
    .alterTable('scripts')
    .addColumn('current_version', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
  await db.schema.alterTable('scripts').addColumn('output_sha256', 'text').execute();
  await db.schema
    .createTable('script_versions')
    .addColumn('script_id', 'text', (c) => c.notNull().references('scripts.id').onDelete('cascade'))
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('blob_id', 'text', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('script_versions_pk', ['script_id', 'version'])
    .execute();
  await db.schema
    .createTable('service_variables')
    .addColumn('service_id', 'text', (c) => c.primaryKey().references('services.id').onDelete('cascade'))
    .addColumn('variables', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();

  // The webhook relay's budget per key and minute (contract §13.3) when no Redis is configured: the database
  // counts, so every instance sharing it agrees. Rows of ended windows are deleted as keys come back.
  await db.schema
    .createTable('relay_windows')
    .addColumn('service_id', 'text', (c) => c.notNull().references('services.id').onDelete('cascade'))
    .addColumn('key_digest', 'text', (c) => c.notNull())
    .addColumn('window_start', 'bigint', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('relay_windows_pk', ['service_id', 'key_digest', 'window_start'])
    .execute();

  // Existing scripts become version 1 of themselves; their digests are computed one chunk at a time.
  const scripts = await sql<{
    id: string;
    source_blob: string;
    size: number | string;
    output_blob: string | null;
    updated_at: number | string;
  }>`SELECT id, source_blob, size, output_blob, updated_at FROM scripts`.execute(db);
  for (const row of scripts.rows) {
    const source = await blobDigest(db, row.source_blob);
    await sql`INSERT INTO script_versions (script_id, version, blob_id, size, sha256, created_at)
      VALUES (${row.id}, 1, ${row.source_blob}, ${Number(row.size)}, ${source}, ${Number(row.updated_at)})`.execute(db);
    if (row.output_blob !== null) {
      const output = row.output_blob === row.source_blob ? source : await blobDigest(db, row.output_blob);
      await sql`UPDATE scripts SET output_sha256 = ${output} WHERE id = ${row.id}`.execute(db);
    }
  }
}

async function blobDigest(db: Kysely<unknown>, blobId: string): Promise<string> {
  const hash = createHash('sha256');
  for (let seq = 0; ; seq++) {
    const chunk = await sql<{ data: string | Buffer }>`SELECT data FROM script_chunks WHERE blob_id = ${blobId} AND seq = ${seq}`.execute(
      db,
    );
    const data = chunk.rows[0]?.data;
    if (data === undefined) break;
    hash.update(typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
  }
  return hash.digest('hex');
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('relay_windows').execute();
  await db.schema.dropTable('service_variables').execute();
  await db.schema.dropTable('script_versions').execute();
  await db.schema.alterTable('scripts').dropColumn('output_sha256').execute();
  await db.schema.alterTable('scripts').dropColumn('current_version').execute();
  await db.schema.alterTable('scripts').dropColumn('disabled_message').execute();
  await db.schema.alterTable('scripts').dropColumn('enabled').execute();
}
