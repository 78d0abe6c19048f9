import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import type { Config } from '../config.ts';
import { migrate, openDatabase } from '../db/database.ts';
import { serverHolding } from '../db/server-lock.ts';
import { OpsError } from './cli-errors.ts';

/** Kysely's own bookkeeping: the target's migrations are applied by `migrate`, not copied. */
const SKIPPED_TABLES = new Set(['kysely_migration', 'kysely_migration_lock']);
/** Kept by each database itself (migration 0013's triggers, 0022's generated column), never written by the code. */
const SKIPPED_COLUMNS = new Set(['search_text', 'last_used_hour']);

interface TableCopy {
  table: string;
  columns: string[];
}

/** The target's tables, parents before children (by their foreign keys), so every row inserts as is. */
async function tablesInOrder(client: pg.Client): Promise<string[]> {
  const tables = (
    await client.query<{ name: string }>(
      "select table_name as name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'",
    )
  ).rows
    .map((r) => r.name)
    .filter((name) => !SKIPPED_TABLES.has(name));
  const edges = (
    await client.query<{ child: string; parent: string }>(
      `select c.conrelid::regclass::text as child, c.confrelid::regclass::text as parent
         from pg_constraint c join pg_namespace n on n.oid = c.connamespace
        where c.contype = 'f' and n.nspname = 'public'`,
    )
  ).rows;
  const ordered: string[] = [];
  const visiting = new Set<string>();
  const visit = (table: string) => {
    if (ordered.includes(table)) return;
    if (visiting.has(table)) return; // a table referring to itself: its rows go in one statement per batch
    visiting.add(table);
    for (const edge of edges) if (edge.child === table && edge.parent !== table) visit(edge.parent);
    ordered.push(table);
  };
  for (const table of tables.sort()) visit(table);
  return ordered;
}

export async function copyDbCommand(config: Config, args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { to: { type: 'string' } }, strict: true });
  if (config.databaseUrl)
    throw new OpsError('copy-db copies the embedded SQLite database: run it with DATA_DIR set and DATABASE_URL unset');
  if (!values.to || !/^postgres(ql)?:\/\//.test(values.to))
    throw new OpsError('copy-db needs --to postgres://user:password@host:5432/database');
  const file = resolve(config.dataDir, 'keyward.db');
  if (!existsSync(file)) throw new OpsError(`there is no database at ${file} (DATA_DIR): nothing to copy`);
  const holder = serverHolding(config.dataDir);
  if (holder) throw new OpsError(`a Keyward server (pid ${holder.pid}) is using ${file}: stop it first, so the copy is of one moment`);

  // Both databases at the code's schema: the source as the server left it, the target created by the same migrations.
  const source = openDatabase({ databaseUrl: null, dataDir: config.dataDir });
  await migrate(source.db);
  await source.close();
  const target = openDatabase({ databaseUrl: values.to, dataDir: '' });
  try {
    await migrate(target.db);
  } finally {
    await target.close();
  }

  const sqlite = new SQLite(file, { readonly: true, fileMustExist: true });
  const client = new pg.Client({ connectionString: values.to });
  await client.connect();
  try {
    const plan: TableCopy[] = [];
    for (const table of await tablesInOrder(client)) {
      const targetColumns = (
        await client.query<{ name: string }>(
          "select column_name as name from information_schema.columns where table_schema = 'public' and table_name = $1 order by ordinal_position",
          [table],
        )
      ).rows.map((r) => r.name);
      const sourceColumns = new Set(
        (sqlite.prepare(`select name from pragma_table_info(?)`).all(table) as Array<{ name: string }>).map((r) => r.name),
      );
      if (sourceColumns.size === 0) throw new OpsError(`the SQLite database has no table ${table}; is it Keyward's?`);
      plan.push({ table, columns: targetColumns.filter((c) => sourceColumns.has(c) && !SKIPPED_COLUMNS.has(c)) });
    }
    for (const { table } of plan) {
      const count = Number((await client.query(`select count(*) as n from "${table}"`)).rows[0].n);
      if (count > 0)
        throw new OpsError(`the PostgreSQL database already holds data (${count} rows in ${table}): copy into an empty database`);
    }

    // One transaction: the target ends with every row or none.
    let total = 0;
    await client.query('begin');
    try {
      for (const { table, columns } of plan) {
        const list = columns.map((c) => `"${c}"`).join(', ');
        const perBatch = Math.max(1, Math.floor(30_000 / columns.length));
        let batch: unknown[][] = [];
        let copied = 0;
        const flush = async () => {
          if (batch.length === 0) return;
          const placeholders = batch
            .map((_row, i) => `(${columns.map((_c, j) => `$${i * columns.length + j + 1}`).join(', ')})`)
            .join(', ');
          await client.query(`insert into "${table}" (${list}) values ${placeholders}`, batch.flat());
          copied += batch.length;
          batch = [];
        };
        const rows = sqlite.prepare(`select ${list} from "${table}"`).raw(true).iterate() as IterableIterator<unknown[]>;
        for (const row of rows) {
          batch.push(row);
          if (batch.length >= perBatch) await flush();
        }
        await flush();
        total += copied;
        process.stderr.write(`Copied ${table}: ${copied} rows\n`);
      }
      await client.query('commit');
    } catch (error) {
      await client.query('rollback');
      throw error;
    }
    console.log(
      `Copied ${total} rows in ${plan.length} tables from ${file} to PostgreSQL. Start the server with DATABASE_URL set to that database ` +
        `and KEYWARD_SECRET set to the secret this database used (${resolve(config.dataDir, 'secret')} unless KEYWARD_SECRET was set).`,
    );
    return 0;
  } finally {
    sqlite.close();
    await client.end();
  }
}
