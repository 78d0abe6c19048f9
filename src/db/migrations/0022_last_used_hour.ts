import { sql, SqliteAdapter, type Kysely } from 'kysely';

// The key list's "last used" sort (migration 0008) was served by an index on last_used_at itself, so every
// validation's lastUsedAt flush moved each touched key's index entry: on PostgreSQL a changed indexed column also
// rules out an in-place (HOT) update, so each touch added an entry to all of active_keys' indexes (three of them
// trigram GIN), and on SQLite moving the entry was three quarters of the flush's cost per key. Real traffic is
// many keys each used a few times an hour, so the index now holds the hour of last use instead: a key's entry
// moves at most once an hour, and the list orders by (hour, exact time), which is the same order as the exact
// time alone. The hour is computed by each database from last_used_at (a generated column), so no writer can
// leave the two apart.
// - PostgreSQL: a stored column (15 has no virtual ones). An update that leaves the hour as it was changes no
//   indexed column, so it can be HOT; the fill factor leaves pages room for those new row versions.
// - SQLite: a virtual column (SQLite cannot add a stored one), indexed like any other. SQLite still rewrote the
//   entry on every update of last_used_at, hour changed or not; migration 0035 keeps the hour by trigger instead.
const HOUR_MS = 3_600_000;
const isSqlite = (db: Kysely<unknown>) => db.getExecutor().adapter instanceof SqliteAdapter;

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('active_keys_service_last_used_at_idx').execute();
  const hour = sql.raw(`last_used_at / ${HOUR_MS}`);
  if (isSqlite(db)) {
    await sql`ALTER TABLE active_keys ADD COLUMN last_used_hour integer GENERATED ALWAYS AS (${hour}) VIRTUAL`.execute(db);
  } else {
    await sql`ALTER TABLE active_keys ADD COLUMN last_used_hour bigint GENERATED ALWAYS AS (${hour}) STORED`.execute(db);
    await sql`ALTER TABLE active_keys SET (fillfactor = 80)`.execute(db);
  }
  await db.schema
    .createIndex('active_keys_service_last_used_hour_idx')
    .on('active_keys')
    .columns(['service_id', 'last_used_hour'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('active_keys_service_last_used_hour_idx').execute();
  if (!isSqlite(db)) await sql`ALTER TABLE active_keys RESET (fillfactor)`.execute(db);
  await sql`ALTER TABLE active_keys DROP COLUMN last_used_hour`.execute(db);
  await db.schema
    .createIndex('active_keys_service_last_used_at_idx')
    .on('active_keys')
    .columns(['service_id', 'last_used_at', 'key'])
    .execute();
}
