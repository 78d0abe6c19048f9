import { sql, type Expression, type SqlBool } from 'kysely';

/**
 * Case-insensitive substring match that behaves the same on SQLite and PostgreSQL:
 * both sides lower-cased, LIKE wildcards in the term escaped, and the escape character
 * named explicitly (SQLite has no default one).
 */
export function containsIgnoringCase(column: string, term: string): Expression<SqlBool> {
  const escaped = term.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`);
  return sql<SqlBool>`lower(${sql.ref(column)}) like ${`%${escaped}%`} escape '\\'`;
}
