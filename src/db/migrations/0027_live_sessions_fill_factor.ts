import { sql, SqliteAdapter, type Kysely } from 'kysely';

// The session flush rewrites last_seen_at of every live session each time it heartbeats (a real client: once a
// period), and no index holds that column, so on PostgreSQL the update can stay on its page (HOT: no new index
// entries) when the page has room. Tightly filled pages gave none: a flush of 500 sessions took 8.8 ms against 3.0–3.7
// with pages half filled (pgbench, docs/benchmarks.md). The table holds live sessions only (ended ones are pruned), so
// the room costs little. SQLite rewrites a row in place anyway.
export async function up(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) return;
  await sql`ALTER TABLE live_sessions SET (fillfactor = 50)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) return;
  await sql`ALTER TABLE live_sessions RESET (fillfactor)`.execute(db);
}
