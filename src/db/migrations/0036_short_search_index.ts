import { SqliteAdapter, type Kysely } from 'kysely';

// SQLite: a 1–2 character search (migration 0013) reads each of the service's keys' `search_text`. Read from the key
// rows, that is every page of the table (108 MB at 700,000 active keys) through a 16 MB page cache; an index of
// (service_id, search_text) holds the same texts in 48 MB, and SQLite tests the term on the index entry, reading the
// row only of a key that matches. On a million seeded keys, analyzed: the page of `search=zz` 75 ms against 175
// (active keys), the count 70 against 120. 0013 left such an index out because a B-tree cannot skip rows either; what
// it saves is the width of what is read. The list's page and count name it (keys-list.repository.ts, `readFrom`).
// It costs one more index entry written when a key's text changes (its creation, note, chat id, HWIDs): 5 % more CPU
// for an insert of 100,000 generated keys, triggers included; validation's writes (last use, executions) leave it
// alone. PostgreSQL keeps reading the rows: its parallel scan of the table and an index-only scan of such an index
// took the same time there (docs/benchmarks.md, twenty-third session), and a long note could pass a B-tree entry's
// size limit.
const isSqlite = (db: Kysely<unknown>) => db.getExecutor().adapter instanceof SqliteAdapter;
const TABLES = ['active_keys', 'generated_keys'] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  if (!isSqlite(db)) return;
  for (const table of TABLES) {
    await db.schema.createIndex(`${table}_service_search_text_idx`).on(table).columns(['service_id', 'search_text']).execute();
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!isSqlite(db)) return;
  for (const table of TABLES) await db.schema.dropIndex(`${table}_service_search_text_idx`).execute();
}
