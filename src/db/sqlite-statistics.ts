/**
 * The query planner's statistics for a seller's SQLite database, kept by the background worker
 * (sqlite-checkpointer.ts) without blocking writes or the event loop.
 *
 * Without statistics SQLite takes one index of a service to be as good as another: on a million keys a 3-character
 * search walked every key (about a second) where an analyzed database answers in 30 ms. `ANALYZE` would fix that but
 * holds the write lock while it reads every index, 2.1 s at a million keys, and the server's connection waits for the
 * lock with the event loop stopped. So the worker counts what `ANALYZE` counts (rows, and distinct values of each
 * index's leading columns) in a read transaction, which WAL runs beside writes, and then writes only `sqlite_stat1`'s
 * rows: the same numbers `ANALYZE` writes. Not `sqlite_stat4`'s samples, which only `ANALYZE` takes; the key list's
 * plans were as fast without them (docs/benchmarks.md, the twenty-ninth session).
 *
 * A table is counted again when it has doubled or halved since, or has an index the statistics do not name (a
 * migration's). Below `minRows` any plan is quick and nothing is written.
 *
 * Plain CommonJS text: it runs in the worker, which is evaluated from source (no TypeScript loader there).
 * `db` is the worker's own better-sqlite3 connection; `refreshStatistics(minRows)` returns the tables it counted.
 */
export const STATISTICS_SOURCE = `
const ident = (name) => '"' + String(name).replaceAll('"', '""') + '"';
const hasTable = (name) => db.prepare('select 1 from sqlite_schema where type = ? and name = ?').get('table', name) !== undefined;

/** Each table's row count and named indexes when its statistics were written. */
function knownStatistics() {
  const known = new Map();
  if (!hasTable('sqlite_stat1')) return known;
  for (const { tbl, idx, stat } of db.prepare('select tbl, idx, stat from sqlite_stat1').all()) {
    const entry = known.get(tbl) ?? { rows: Number(String(stat).split(' ')[0]), indexes: new Set() };
    if (idx !== null) entry.indexes.add(idx);
    known.set(tbl, entry);
  }
  return known;
}

/** Indexes whose statistics a count can give: not partial, no expression. */
function countableIndexes(table) {
  return db
    .prepare('select name, "unique" as isUnique from pragma_index_list(?) where partial = 0')
    .all(table)
    .map((index) => ({ ...index, columns: db.prepare('select name from pragma_index_info(?) order by seqno').all(index.name).map((c) => c.name) }))
    .filter((index) => index.columns.length > 0 && index.columns.every((name) => name !== null));
}

/** sqlite_stat1's text for one index: its rows, then the average rows sharing each leading run of its columns. */
function indexStat(table, index, rows) {
  const stat = [rows];
  for (let k = 1; k <= index.columns.length; k++) {
    const distinct =
      index.isUnique && k === index.columns.length
        ? rows
        : db
            .prepare('select count(*) as n from (select distinct ' + index.columns.slice(0, k).map(ident).join(', ') + ' from ' + ident(table) + ' indexed by ' + ident(index.name) + ')')
            .get().n;
    // SQLite's own rounding (analyze.c): up, so that a run never reads as fewer rows than it holds.
    stat.push(Math.floor((rows + distinct - 1) / distinct));
  }
  return stat.join(' ');
}

function refreshStatistics(minRows) {
  const known = knownStatistics();
  const tables = db
    .prepare("select name from pragma_table_list where schema = 'main' and type = 'table'")
    .all()
    .map((t) => t.name)
    .filter((name) => !name.startsWith('sqlite_'));
  const fresh = db.transaction(() => {
    const out = [];
    for (const table of tables) {
      const indexes = countableIndexes(table);
      if (indexes.length === 0) continue;
      const count = db.prepare('select count(*) as n from ' + ident(table)).get().n;
      const before = known.get(table);
      const stale = before === undefined ? count >= minRows : count > 2 * before.rows || 2 * count < before.rows || indexes.some((i) => !before.indexes.has(i.name));
      if (!stale || count === 0) continue;
      out.push({ table, rows: count, stats: indexes.map((index) => ({ index: index.name, stat: indexStat(table, index, count) })) });
    }
    return out;
  })();
  if (fresh.length === 0) return [];
  db.transaction(() => {
    // Creates sqlite_stat1 (and sqlite_stat4) when missing; it gathers nothing of the system table itself.
    if (!hasTable('sqlite_stat1')) db.exec('analyze sqlite_schema');
    const stat4 = hasTable('sqlite_stat4');
    for (const { table, stats } of fresh) {
      db.prepare('delete from sqlite_stat1 where tbl = ?').run(table);
      // Samples of an earlier ANALYZE describe other rows: a plan would mix them with these counts.
      if (stat4) db.prepare('delete from sqlite_stat4 where tbl = ?').run(table);
      for (const { index, stat } of stats) db.prepare('insert into sqlite_stat1 (tbl, idx, stat) values (?, ?, ?)').run(table, index, stat);
    }
  }).immediate();
  return fresh.map(({ table, rows }) => ({ table, rows }));
}
`;

/**
 * Makes the connection read the statistics tables again (SQLite loads them with the schema, and a change another
 * connection wrote is not seen otherwise). Inside a transaction of its own caller it would join that transaction,
 * so it waits for the connection to be free.
 */
export function reloadStatistics(sqlite: { open: boolean; inTransaction: boolean; exec(sql: string): unknown }): void {
  if (!sqlite.open) return;
  if (sqlite.inTransaction) {
    setTimeout(() => reloadStatistics(sqlite), 10).unref();
    return;
  }
  sqlite.exec('analyze sqlite_schema');
}
