import { sql, SqliteAdapter, type Kysely } from 'kysely';

// Key search (contract §7.2: `search` is a case-insensitive substring of key, note, chat id or any HWID, and a
// filtered page over 1,000,000 keys answers well under a second). A substring is no prefix, so a B-tree cannot
// find it; each dialect gets its trigram index, which finds the rows holding every 3-character piece of the term.
// The exact LIKE still decides (src/db/search.ts), so results are the same with or without the index.
// - PostgreSQL: pg_trgm GIN indexes on lower(column) (pg_trgm is a trusted extension: the database owner may
//   create it). Their cost on writes is small: the validation hot path writes lastUsedAt at most once a second.
// - SQLite: FTS5 `trigram` tables over the key tables' own rows (external content, joined by rowid, so nothing is
//   stored twice), kept in step by triggers. Those tables have secondary indexes, so VACUUM keeps their rowids.

interface Searched {
  table: string;
  columns: string[];
}
const SEARCHED: Searched[] = [
  { table: 'active_keys', columns: ['key', 'note', 'chat_id'] },
  { table: 'generated_keys', columns: ['key', 'note', 'chat_id'] },
  { table: 'key_hwids', columns: ['hwid'] },
];

const isSqlite = (db: Kysely<unknown>) => db.getExecutor().adapter instanceof SqliteAdapter;

export async function up(db: Kysely<unknown>): Promise<void> {
  if (!isSqlite(db)) {
    await sql`CREATE EXTENSION IF NOT EXISTS pg_trgm`.execute(db);
    for (const { table, columns } of SEARCHED) {
      for (const column of columns) {
        await sql`CREATE INDEX ${sql.raw(`${table}_${column}_trgm_idx`)} ON ${sql.raw(table)} USING gin (lower(${sql.raw(column)}) gin_trgm_ops)`.execute(
          db,
        );
      }
    }
    return;
  }
  for (const { table, columns } of SEARCHED) {
    const fts = `${table}_search`;
    const list = columns.join(', ');
    const values = (row: 'new' | 'old') => columns.map((c) => `${row}.${c}`).join(', ');
    const remove = `INSERT INTO ${fts} (${fts}, rowid, ${list}) VALUES ('delete', old.rowid, ${values('old')});`;
    const add = `INSERT INTO ${fts} (rowid, ${list}) VALUES (new.rowid, ${values('new')});`;
    await sql
      .raw(`CREATE VIRTUAL TABLE ${fts} USING fts5(${list}, content='${table}', content_rowid='rowid', tokenize='trigram')`)
      .execute(db);
    await sql.raw(`CREATE TRIGGER ${fts}_insert AFTER INSERT ON ${table} BEGIN ${add} END`).execute(db);
    await sql.raw(`CREATE TRIGGER ${fts}_delete AFTER DELETE ON ${table} BEGIN ${remove} END`).execute(db);
    // Only the searched columns: the hot path's writes (lastUsedAt, executions, hwidCount) leave the index alone.
    await sql.raw(`CREATE TRIGGER ${fts}_update AFTER UPDATE OF ${list} ON ${table} BEGIN ${remove} ${add} END`).execute(db);
    await sql.raw(`INSERT INTO ${fts} (${fts}) VALUES ('rebuild')`).execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!isSqlite(db)) {
    for (const { table, columns } of SEARCHED) {
      for (const column of columns) await sql`DROP INDEX IF EXISTS ${sql.raw(`${table}_${column}_trgm_idx`)}`.execute(db);
    }
    return;
  }
  for (const { table } of SEARCHED) {
    for (const event of ['insert', 'delete', 'update']) await sql.raw(`DROP TRIGGER IF EXISTS ${table}_search_${event}`).execute(db);
    await sql.raw(`DROP TABLE IF EXISTS ${table}_search`).execute(db);
  }
}
