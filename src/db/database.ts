import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import {
  CamelCasePlugin,
  Kysely,
  Migrator,
  PostgresDialect,
  SqliteDialect,
  SqliteDriver,
  CompiledQuery,
  sql,
  type DatabaseConnection,
  type Driver,
  type MigrationProvider,
  type PostgresPool,
  type PostgresPoolClient,
  type SqliteDatabase,
  type SqliteDialectConfig,
} from 'kysely';
import type { Database } from './schema.ts';
import { migrations } from './migrations/index.ts';
import { WriteObserver } from './write-observer.ts';
import { checkpointInBackground, type StatisticsRefresh } from './sqlite-checkpointer.ts';

export type Dialect = 'sqlite' | 'postgres';
export type Db = Kysely<Database>;

/** Where a database is: what another connection (an export worker's) needs to open the same one. */
export type DbSource = { databaseUrl: string } | { sqliteFile: string };

export interface DbHandle {
  db: Db;
  dialect: Dialect;
  source: DbSource;
  close(): Promise<void>;
  /** PostgreSQL: how the connection pool is used right now (SQLite has one connection and no pool). */
  poolUse?: () => PoolUse;
  /** SQLite with background checkpoints: refresh the planner's statistics now (sqlite-statistics.ts). */
  refreshStatistics?: () => Promise<StatisticsRefresh>;
}

export interface PoolUse {
  total: number;
  idle: number;
  waiting: number;
}

// int8 (bigint) and numeric come back from pg as strings; our bigints are epoch ms and counters,
// all far below 2^53, so numbers are exact and both dialects hand the same types to the code.
pg.types.setTypeParser(20, (v) => Number(v));

export interface DbOptions {
  databaseUrl: string | null;
  dataDir: string;
  /** For tests: an explicit SQLite file instead of DATA_DIR/keyward.db. */
  sqliteFile?: string;
  poolSize?: number;
  /** SQLite: checkpoint the WAL, and keep the planner's statistics, from a worker thread (the server's connection). */
  backgroundCheckpoints?: boolean;
}

const SQLITE_CACHE_KIB = 16 * 1024;

export function openDatabase(options: DbOptions): DbHandle {
  const writes = new WriteObserver();
  const plugins = [writes, new CamelCasePlugin()];
  const observe = (db: Db) => (observers.set(db, writes), db);
  if (options.databaseUrl) {
    // Idle connections stay open (pg closes them after 10 s by default). A new connection's backend fills its catalog
    // caches and parses the named statements again: after a pause, the first requests of a burst waited 15-27 ms
    // on each such parse, and p99 at half load read 57 ms against 6 without the pause (docs/benchmarks.md). Instances
    // × DATABASE_POOL_SIZE stays the bound docs/configuration.md gives against max_connections.
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: options.poolSize ?? 10, idleTimeoutMillis: 0 });
    // An idle client can error (server restart); without a listener that would crash the process.
    pool.on('error', () => {});
    // A connection cut while a query runs fails that query (answered 503 by the error handler), but pg also
    // emits 'error' on the checked-out client, where the pool has no listener: unhandled, it would end the process.
    pool.on('connect', (client) => client.on('error', () => {}));
    const db = observe(new Kysely<Database>({ dialect: new PostgresDialect({ pool: callbackQueries(pool) }), plugins }));
    // Named: PostgreSQL parses and plans the text once per connection.
    fixedRunners.set(db, {
      run: async (query, parameters) => {
        const values = query.order.map((name) => parameters[name]);
        return (await pool.query({ name: query.name, text: query.postgres, values })).rows;
      },
    });
    return {
      db,
      dialect: 'postgres',
      source: { databaseUrl: options.databaseUrl },
      close: () => db.destroy(),
      poolUse: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    };
  }
  const file = options.sqliteFile ?? join(options.dataDir, 'keyward.db');
  mkdirSync(join(file, '..'), { recursive: true });
  const sqlite = new SQLite(file);
  sqlite.pragma('journal_mode = WAL');
  // NORMAL is durable across application crashes in WAL mode; only an OS crash can lose the last commits.
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  // SQLite's default page cache is 2 MB: with tens of thousands of keys validated in random order, most lookups then
  // read their pages again through the kernel (23 µs a lookup of 50,000 keys, 16 µs with 16 MB; 32 or 64 MB gained
  // nothing more, and kept a 40 MB script upload's pages in memory: peak RSS growth 2.6× the script against 1.9×).
  sqlite.pragma(`cache_size = -${SQLITE_CACHE_KIB}`);
  const background = options.backgroundCheckpoints ? checkpointInBackground(sqlite, file) : undefined;
  const cached = withStatementCache(sqlite);
  const db = observe(new Kysely<Database>({ dialect: new WritingSqliteDialect({ database: cached }), plugins }));
  // Kysely shares one connection: while one of its transactions is open, a direct read would see (and
  // an error could abort) that transaction, so the query then waits for Kysely's connection like any other.
  const readers = new Map<FixedQuery, JsonRowReader>();
  const run = (query: FixedQuery, parameters: Record<string, unknown>) => {
    let reader = readers.get(query);
    if (!reader) readers.set(query, (reader = jsonRowReader(sqlite, query.sqlite)));
    return reader(query.sqliteOrder.map((name) => parameters[name]));
  };
  fixedRunners.set(db, {
    run: (query, parameters) =>
      sqlite.inTransaction ? db.connection().execute(async () => run(query, parameters)) : Promise.resolve(run(query, parameters)),
    runNow: (query, parameters) => (sqlite.inTransaction ? undefined : run(query, parameters)),
  });
  const close = async () => {
    await background?.stop();
    await db.destroy();
  };
  return {
    db,
    dialect: 'sqlite',
    source: { sqliteFile: file },
    close,
    ...(background && { refreshStatistics: () => background.refreshStatistics() }),
  };
}

/**
 * The pool as Kysely takes it, each query sent through pg's callback form. Kysely calls pg's promise form, where the
 * query is made first and given its callback after; with it, the rows of every query reached the old generation:
 * a walk of 700,000 keys in pages of 250 ran 18 full collections and grew the old space from 14 to 49 MB, against 2
 * and 11 → 13 MB with this (the 1,000,000-key Luarmor user list's RSS growth: docs/benchmarks.md, "The fifth round's
 * fifth session"). pg's own pool.query takes the callback form too.
 */
function callbackQueries(pool: pg.Pool): PostgresPool {
  // One wrapper per pg client, so Kysely's own per-client connection cache still hits.
  const wrappers = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  const wrap = (client: pg.PoolClient): PostgresPoolClient => {
    const query = (sql: string, parameters: readonly unknown[]) =>
      new Promise<pg.QueryResult>((resolve, reject) =>
        client.query(sql, parameters as unknown[], (error, result) => (error ? reject(error) : resolve(result))),
      );
    return {
      // Text only: Kysely hands a client a cursor only when its dialect is configured with one, and ours is not.
      query: query as unknown as PostgresPoolClient['query'],
      release: () => client.release(),
    };
  };
  return {
    async connect() {
      const client = await pool.connect();
      let wrapper = wrappers.get(client);
      if (!wrapper) wrappers.set(client, (wrapper = wrap(client)));
      return wrapper;
    },
    end: () => pool.end(),
  };
}

/**
 * SQLite's plain BEGIN takes the write lock only at the transaction's first write. When another connection to the file
 * (a CLI command: keyward backup records its run, keyward keys, reset-password) commits between that transaction's
 * first read and its first write, the write fails at once with SQLITE_BUSY_SNAPSHOT, whatever busy_timeout says: a
 * generate answered 500 so. BEGIN IMMEDIATE takes the lock at once (waiting up to busy_timeout for it), so a
 * transaction once begun never fails for another writer. The server has one connection, so it costs no concurrency.
 */
class WritingSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

class WritingSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;
  constructor(config: SqliteDialectConfig) {
    super(config);
    this.#config = config;
  }
  override createDriver(): Driver {
    return new WritingSqliteDriver(this.#config);
  }
}

/**
 * A connection of its own that only reads, for long reads off the server's connections (the key export's worker).
 * SQLite: a read-only connection to the same file, which WAL mode lets read while the server writes. PostgreSQL:
 * one client. Neither observes writes nor registers a fixed-query runner: nothing here writes or takes the hot path.
 */
export function openReader(source: DbSource): DbHandle {
  const plugins = [new CamelCasePlugin()];
  if ('databaseUrl' in source) {
    // Named, so an operator (and a test) can tell the export's connection apart in pg_stat_activity.
    const pool = new pg.Pool({ connectionString: source.databaseUrl, max: 1, application_name: 'keyward export' });
    pool.on('error', () => {});
    pool.on('connect', (client) => client.on('error', () => {}));
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: callbackQueries(pool) }), plugins });
    return { db, dialect: 'postgres', source, close: () => db.destroy() };
  }
  const sqlite = new SQLite(source.sqliteFile, { readonly: true, fileMustExist: true });
  sqlite.pragma('busy_timeout = 5000');
  // Cached statements here too: a statement prepared per batch holds native memory until the collector finalizes it.
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }), plugins });
  return { db, dialect: 'sqlite', source, close: () => db.destroy() };
}

const observers = new WeakMap<Db, WriteObserver>();
/** Every write the queries of a database opened here make, as they are sent (caches listen here). */
export const writesOf = (db: Db): WriteObserver | undefined => observers.get(db);

/**
 * A SQL text written out for a query on the hot path, with `:name` parameters. Building and compiling a
 * Kysely query costs more CPU than SQLite takes to run it (bench/cpu-cost.ts with VERDICT_CACHE_MS=0), and
 * PostgreSQL plans a fixed text once per connection as a named statement. Column aliases are the camelCase
 * names the code reads, since these rows bypass the CamelCasePlugin.
 */
export interface FixedQuery {
  name: string;
  /** With `?` for each parameter: SQLite binds values by place faster than by name. */
  sqlite: string;
  /** The parameter names in the order of SQLite's `?`s (a name used twice is there twice). */
  sqliteOrder: string[];
  postgres: string;
  /** The parameter names in PostgreSQL's $1, $2… order. */
  order: string[];
}

const PARAMETER = /(?<!:):([a-z][A-Za-z]*)/g;

export function fixedQuery(name: string, text: string): FixedQuery {
  const order: string[] = [];
  const postgres = text.replace(PARAMETER, (_, parameter: string) => {
    if (!order.includes(parameter)) order.push(parameter);
    return `$${order.indexOf(parameter) + 1}`;
  });
  const sqliteOrder: string[] = [];
  const sqlite = text.replace(PARAMETER, (_, parameter: string) => (sqliteOrder.push(parameter), '?'));
  return { name: `kw_${name}`, sqlite, sqliteOrder, postgres, order };
}

type Rows = Record<string, unknown>[];
interface FixedRunner {
  run(query: FixedQuery, parameters: Record<string, unknown>): Promise<Rows>;
  /** Only where a query can run without a promise (SQLite); undefined when it cannot right now. */
  runNow?(query: FixedQuery, parameters: Record<string, unknown>): Rows | undefined;
}
const fixedRunners = new WeakMap<Db, FixedRunner>();

/** Runs a fixed query on the driver of a database opened here (not inside a Kysely transaction object). */
export function runFixedQuery<Row>(db: Db, query: FixedQuery, parameters: Record<string, unknown>): Promise<Row[]> {
  const runner = fixedRunners.get(db);
  if (!runner) throw new Error(`fixed query ${query.name} needs a database opened by openDatabase`);
  return runner.run(query, parameters) as Promise<Row[]>;
}

/**
 * Runs a fixed query at once, without a promise, where the database allows it: SQLite, whose statements are calls in
 * this process, while no transaction holds its one connection. Undefined otherwise (PostgreSQL, or SQLite's connection
 * busy): then use runFixedQuery.
 */
export function runFixedQueryNow<Row>(db: Db, query: FixedQuery, parameters: Record<string, unknown>): Row[] | undefined {
  return fixedRunners.get(db)?.runNow?.(query, parameters) as Row[] | undefined;
}

type JsonRowReader = (values: unknown[]) => Record<string, unknown>[];

/**
 * Prepares a fixed query's SELECT on SQLite to hand each row over as one JSON array, made into the row object here.
 * better-sqlite3 on Node 20 builds a row object through V8's API a property at a time: about 25,000 instructions for
 * the 11 columns of a validation's lookup, twice what SQLite took to find the row. One text a row, parsed by
 * JSON.parse, costs a fifth of that (callgrind, docs/benchmarks.md "nineteenth session"). SQLite's json_array renders
 * integers exactly and NULL as null, as better-sqlite3 would hand them over; it refuses a BLOB, which no fixed query
 * reads. SQLite flattens the outer SELECT into the inner one, so the plan is the same.
 */
function jsonRowReader(sqlite: SQLite.Database, text: string): JsonRowReader {
  const columns = sqlite
    .prepare(text)
    .columns()
    .map((column) => column.name);
  const quoted = columns.map((name) => `"${name.replaceAll('"', '""')}"`).join(', ');
  const statement = sqlite.prepare(`select json_array(${quoted}) from (${text})`).pluck();
  return (values) => {
    const texts = statement.all(...values) as string[];
    const rows: Record<string, unknown>[] = new Array(texts.length);
    for (let r = 0; r < texts.length; r++) {
      const array = JSON.parse(texts[r]!) as unknown[];
      const row: Record<string, unknown> = {};
      for (let c = 0; c < columns.length; c++) row[columns[c]!] = array[c];
      rows[r] = row;
    }
    return rows;
  };
}

const STATEMENT_CACHE_SIZE = 500;

/**
 * Kysely's SQLite driver prepares every query anew; preparing is a large share of a cheap query's cost.
 * Statements are reusable (Kysely runs each to completion synchronously), so keep the recent ones by SQL.
 */
function withStatementCache(sqlite: SQLite.Database) {
  const cache = new Map<string, SQLite.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(sql: string) {
      let statement = cache.get(sql);
      if (!statement) {
        statement = sqlite.prepare(sql);
        if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
        cache.set(sql, statement);
      }
      return statement as unknown as ReturnType<SqliteDatabase['prepare']> & SQLite.Statement;
    },
  };
}

const provider: MigrationProvider = { getMigrations: async () => migrations };

export async function migrate(db: Db): Promise<string[]> {
  // Unordered: migrations were written in parallel branches and landed out of number order; a database
  // that ran a later one first still gets the earlier ones instead of a refusal to start.
  const migrator = new Migrator({ db: db.withoutPlugins(), provider, allowUnorderedMigrations: true });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

export async function ping(db: Db): Promise<void> {
  await sql`select 1`.execute(db);
}

/** True when the error is a unique-constraint violation in either dialect. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string } | null;
  return e?.code === '23505' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE';
}
