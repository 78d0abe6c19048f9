import { sql, SqliteAdapter, type Kysely } from 'kysely';

// Migration 0022 indexed the hour of a key's last use so that the lastUsedAt flush would move a key's index entry at
// most once an hour. On PostgreSQL it does (a stored column whose value did not change leaves the update in place).
// SQLite does not compare: an UPDATE of last_used_at rewrites the entry of every index on a column computed from it,
// hour changed or not, so each flushed key still read and rewrote its entry in that index (a quarter more pages in
// the WAL, and so in every checkpoint, and 8,600 more instructions a cold validation: docs/benchmarks.md, eighteenth
// session). Here the hour becomes a plain column, written by a trigger only when the hour itself changes, which the
// flush's UPDATE (of last_used_at alone) then leaves alone. The triggers keep it the database's, as the generated
// column did: no writer can leave the two apart, and every writer of last_used_at (binding, redemption, the flush,
// imports, keyward copy-db) is covered without knowing of it. PostgreSQL keeps its stored generated column.
const HOUR_MS = 3_600_000;
const hourOf = (column: string) => sql.raw(`${column} / ${HOUR_MS}`);
const isSqlite = (db: Kysely<unknown>) => db.getExecutor().adapter instanceof SqliteAdapter;
const INDEX = 'active_keys_service_last_used_hour_idx';

export async function up(db: Kysely<unknown>): Promise<void> {
  if (!isSqlite(db)) return;
  const hour = hourOf('new.last_used_at');
  await db.schema.dropIndex(INDEX).execute();
  await sql`ALTER TABLE active_keys DROP COLUMN last_used_hour`.execute(db);
  await sql`ALTER TABLE active_keys ADD COLUMN last_used_hour integer`.execute(db);
  await sql`UPDATE active_keys SET last_used_hour = ${hourOf('last_used_at')} WHERE last_used_at IS NOT NULL`.execute(db);
  await sql`CREATE TRIGGER active_keys_last_used_hour_insert AFTER INSERT ON active_keys WHEN new.last_used_at IS NOT NULL
    BEGIN UPDATE active_keys SET last_used_hour = ${hour} WHERE rowid = new.rowid; END`.execute(db);
  // Also after a write of the hour itself: one that disagrees with last_used_at is put back, as a generated column
  // could not be written at all.
  await sql`CREATE TRIGGER active_keys_last_used_hour_update AFTER UPDATE OF last_used_at, last_used_hour ON active_keys
    WHEN ${hour} IS NOT new.last_used_hour
    BEGIN UPDATE active_keys SET last_used_hour = ${hour} WHERE rowid = new.rowid; END`.execute(db);
  await db.schema.createIndex(INDEX).on('active_keys').columns(['service_id', 'last_used_hour']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!isSqlite(db)) return;
  await db.schema.dropIndex(INDEX).execute();
  await sql`DROP TRIGGER active_keys_last_used_hour_update`.execute(db);
  await sql`DROP TRIGGER active_keys_last_used_hour_insert`.execute(db);
  await sql`ALTER TABLE active_keys DROP COLUMN last_used_hour`.execute(db);
  await sql`ALTER TABLE active_keys ADD COLUMN last_used_hour integer GENERATED ALWAYS AS (${hourOf('last_used_at')}) VIRTUAL`.execute(db);
  await db.schema.createIndex(INDEX).on('active_keys').columns(['service_id', 'last_used_hour']).execute();
}
