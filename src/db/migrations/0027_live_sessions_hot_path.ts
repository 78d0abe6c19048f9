import { sql, SqliteAdapter, type Kysely } from 'kysely';

// Two costs of every heartbeat's session read and every flush on PostgreSQL (SQLite needs neither: it compares text
// byte by byte and rewrites a row in place):
// - Session ids are random and never sorted for a reader, yet their index compared them by the database's locale;
//   byte order ("C") made a 25-session read a fifth cheaper for PostgreSQL (106–120 → 82–94 µs of its CPU,
//   docs/benchmarks.md).
// - The flush rewrites last_seen_at of every session that heartbeated, and no index holds that column, so the update
//   can stay on its page (HOT: no new index entries) when the page has room. Tightly filled pages gave none: a flush of
//   10,000 sessions took 121–158 ms against 50–53 with pages half filled. The table holds live sessions only (ended
//   ones are pruned), so the room costs little.
export async function up(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) return;
  await sql`ALTER TABLE live_sessions ALTER COLUMN id TYPE text COLLATE "C"`.execute(db);
  await sql`ALTER TABLE live_sessions SET (fillfactor = 50)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) return;
  await sql`ALTER TABLE live_sessions RESET (fillfactor)`.execute(db);
  await sql`ALTER TABLE live_sessions ALTER COLUMN id TYPE text COLLATE "default"`.execute(db);
}
