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
