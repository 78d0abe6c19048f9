import { sql, SqliteAdapter, type Expression, type Kysely, type SqlBool } from 'kysely';

/**
 * Case-insensitive substring match that behaves the same on SQLite and PostgreSQL:
 * both sides lower-cased, LIKE wildcards in the term escaped, and the escape character
 * named explicitly (SQLite has no default one).
 */
export function containsIgnoringCase(column: string, term: string): Expression<SqlBool> {
  const escaped = term.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`);
  return sql<SqlBool>`lower(${sql.ref(column)}) like ${`%${escaped}%`} escape '\\'`;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const isSqlite = (db: Kysely<any>) => db.getExecutor().adapter instanceof SqliteAdapter;

/**
 * Trigram indexes (migration 0012) find a substring only from its 3-character pieces: a shorter term has none,
 * and is matched by reading the rows instead (a 1–2 character term matches a large share of them anyway).
 */
export const trigramSearchable = (term: string) => [...term].length >= 3;

/** Separates the fields in `search_text` (migration 0013), so that no match spans two of them. */
const FIELD_SEPARATOR = '\x01';

/**
 * A shorter term is looked for in each key's `search_text` (migration 0013: key, note, chat id and HWIDs, lower-cased
 * by the database's own lower(), as the LIKE path does). A term holding the separator could match across two fields
 * there, so it keeps the LIKE path.
 */
export const searchTextSearchable = (term: string) => !trigramSearchable(term) && !term.includes(FIELD_SEPARATOR);

/**
 * `column` (a `search_text`) holds the term, any case: one plain substring test per row, where the LIKE path runs
 * lower() and LIKE per field and looks the key's HWIDs up. Same answers: the text is lower-cased like the LIKE's
 * column and the term like the LIKE's pattern, and a LIKE without wildcards is a substring test.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function searchTextContains(db: Kysely<any>, column: string, term: string): Expression<SqlBool> {
  const lowered = term.toLowerCase();
  return isSqlite(db) ? sql<SqlBool>`instr(${sql.ref(column)}, ${lowered}) > 0` : sql<SqlBool>`strpos(${sql.ref(column)}, ${lowered}) > 0`;
}

/**
 * SQLite only: the rowids of an FTS5 `trigram` table (`<table>_search`) whose columns hold the term, any case.
 * The term goes in as one quoted phrase, so no character of it is query syntax; the phrase of its trigrams
 * finds every row holding it as a substring (and, with Unicode case folding, a few more that the exact LIKE
 * the caller keeps turns away).
 */
export function trigramRowids(table: string, ftsTable: string, term: string): Expression<SqlBool> {
  const phrase = `"${term.replace(/"/g, '""')}"`;
  return sql<SqlBool>`${sql.ref(`${table}.rowid`)} in (select rowid from ${sql.raw(ftsTable)} where ${sql.raw(ftsTable)} match ${phrase})`;
}
