import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, renameSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import type { Config } from '../config.ts';
import { openDatabase, type Dialect } from '../db/database.ts';
import { serverHolding, SERVER_LOCK_FILE } from '../db/server-lock.ts';
import { listBackupRuns, recordBackup, restoreBackupRuns, type StoredBackupRun } from '../modules/admin/admin.service.ts';
import { OpsError } from './cli-errors.ts';
import { assertReadableFile, assertWritableFile } from './paths.ts';

const megabytes = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const sqliteFile = (config: Config) => resolve(config.dataDir, 'keyward.db');

/** Keys in a SQLite snapshot: not yet redeemed, and redeemed. */
function sqliteKeyCounts(file: string): { generated: number; active: number } {
  const db = new SQLite(file, { readonly: true, fileMustExist: true });
  try {
    const count = (table: string) => (db.prepare(`select count(*) as n from ${table}`).get() as { n: number }).n;
    return { generated: count('generated_keys'), active: count('active_keys') };
  } finally {
    db.close();
  }
}

const keySentence = ({ generated, active }: { generated: number; active: number }) =>
  `${generated + active} keys (${generated} not yet redeemed, ${active} redeemed)`;

/**
 * Writes the finished backup into the live database, so admins see it in the dashboard. A failure here (a database
 * not yet migrated to 0021 by a newer server) costs only that record: the snapshot is already safely written.
 */
async function recordRun(config: Config, out: string, keys: { generated: number; active: number }, databaseKind: Dialect) {
  const database = openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: 1 });
  try {
    const run = { finishedAt: Date.now(), sizeBytes: statSync(out).size, keyCount: keys.generated + keys.active, databaseKind };
    await recordBackup(database.db, run);
  } catch (error) {
    console.error(
      `keyward: warning: the backup is complete, but the dashboard will not show it (${(error as Error).message}); ` +
        'start the server once (or run keyward migrate) so the next backup is recorded.',
    );
  } finally {
    await database.close();
  }
}

function onPath(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

export async function backupCommand(config: Config, args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { out: { type: 'string' } }, strict: true });
  if (!values.out) throw new OpsError('backup needs --out FILE (where to write the snapshot)');
  const out = resolve(values.out);
  assertWritableFile(out);
  const partial = `${out}.partial`;
  if (config.databaseUrl) return pgBackup(config, config.databaseUrl, out, partial);

  const source = sqliteFile(config);
  if (!existsSync(source)) throw new OpsError(`there is no database at ${source} (DATA_DIR): nothing to back up`);
  // SQLite's online backup through a connection of its own: the server keeps reading and writing meanwhile. After
  // the first step every remaining page is copied in one step (one read transaction), so a server writing all the
  // time cannot make the copy start over for ever, and the snapshot is of one moment.
  const db = new SQLite(source, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  rmSync(partial, { force: true });
  let announced = false;
  try {
    await db.backup(partial, {
      progress: ({ totalPages, remainingPages }) => {
        if (!announced) process.stderr.write(`Copying ${totalPages} pages of ${source}\n`);
        announced = true;
        return Math.max(remainingPages, 100);
      },
    });
  } finally {
    db.close();
  }
  // The copy keeps the live database's WAL mode, and opening a WAL database (even to read) leaves -wal and -shm files
  // beside it. The snapshot is one file: it is switched to a rollback journal before anything else opens it.
  const check = new SQLite(partial);
  check.pragma('journal_mode = DELETE');
  const integrity = check.pragma('quick_check', { simple: true });
  check.close();
  for (const suffix of ['-wal', '-shm', '-journal']) rmSync(`${partial}${suffix}`, { force: true });
  if (integrity !== 'ok') {
    rmSync(partial, { force: true });
    throw new OpsError(`the snapshot failed SQLite's check (${String(integrity)}); nothing was written to ${out}`);
  }
  renameSync(partial, out);
  const counts = sqliteKeyCounts(out);
  console.log(`Backed up ${source} to ${out}: ${megabytes(statSync(out).size)}, ${keySentence(counts)}.`);
  await recordRun(config, out, counts, 'sqlite');
  console.error(
    `keyward: keep the server secret with it (KEYWARD_SECRET, or ${join(config.dataDir, 'secret')}): without it the snapshot's keys cannot be read.`,
  );
  return 0;
}

async function pgKeyCounts(databaseUrl: string) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const count = async (table: string) => Number((await client.query(`select count(*) as n from ${table}`)).rows[0].n);
    return { generated: await count('generated_keys'), active: await count('active_keys') };
  } finally {
    await client.end();
  }
}

async function pgBackup(config: Config, databaseUrl: string, out: string, partial: string): Promise<number> {
  if (!onPath('pg_dump')) {
    throw new OpsError(
      'pg_dump is not installed here. Install the PostgreSQL client (apt-get install postgresql-client) and run this again, ' +
        `or dump from the database's own container: docker compose exec -T postgres pg_dump -U keyward -Fc keyward > ${out}`,
    );
  }
  process.stderr.write('Running pg_dump -Fc (a consistent snapshot; the server keeps running)\n');
  const dump = spawnSync('pg_dump', ['-Fc', '--no-owner', '-f', partial, databaseUrl], {
    stdio: ['ignore', 'inherit', 'pipe'],
    encoding: 'utf8',
  });
  if (dump.status !== 0) {
    rmSync(partial, { force: true });
    throw new OpsError(`pg_dump failed: ${dump.stderr.trim()}`);
  }
  renameSync(partial, out);
  const counts = await pgKeyCounts(databaseUrl);
  console.log(
    `Backed up PostgreSQL to ${out} (pg_dump custom format): ${megabytes(statSync(out).size)}; the database holds ${keySentence(counts)}.`,
  );
  await recordRun(config, out, counts, 'postgres');
  return 0;
}

export async function restoreCommand(config: Config, args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: { force: { type: 'boolean', default: false } },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length !== 1) throw new OpsError('restore needs the snapshot: keyward restore FILE');
  const file = resolve(positionals[0]!);
  assertReadableFile(file);
  if (config.databaseUrl) return pgRestore(config, config.databaseUrl, file);

  const holder = serverHolding(config.dataDir);
  if (holder && !(values.force && !holder.checkable)) {
    throw new OpsError(
      holder.checkable
        ? `a Keyward server (pid ${holder.pid}, started ${holder.startedAt}) is using ${sqliteFile(config)}: stop it first, then restore`
        : `a Keyward server on ${holder.host} says it is using ${sqliteFile(config)} (${join(config.dataDir, SERVER_LOCK_FILE)}); ` +
            'stop it, or if it is already stopped, run restore again with --force',
    );
  }
  let counts;
  try {
    const snapshot = new SQLite(file, { readonly: true, fileMustExist: true });
    const migrated = snapshot
      .prepare("select count(*) as n from sqlite_master where type = 'table' and name = 'kysely_migration'")
      .get() as {
      n: number;
    };
    snapshot.close();
    if (migrated.n !== 1) throw new Error('no Keyward tables');
    counts = sqliteKeyCounts(file);
  } catch {
    throw new OpsError(`${file} is not a Keyward SQLite snapshot (made by keyward backup)`);
  }

  const target = sqliteFile(config);
  const incoming = `${target}.restoring`;
  copyFileSync(file, incoming);
  let kept: string | null = null;
  const runs = existsSync(target) ? await readBackupRuns(config) : [];
  if (existsSync(target)) {
    // The database being replaced is kept beside it, whole: its write-ahead log is folded in first.
    const current = new SQLite(target, { fileMustExist: true });
    current.pragma('wal_checkpoint(TRUNCATE)');
    current.close();
    kept = `${target}.before-restore-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    renameSync(target, kept);
  }
  for (const suffix of ['-wal', '-shm']) rmSync(`${target}${suffix}`, { force: true });
  renameSync(incoming, target);
  await keepBackupRuns(config, runs);
  console.log(`Restored ${file} into ${target}: ${keySentence(counts)}.${kept ? ` The database it replaced is kept as ${kept}.` : ''}`);
  console.error('keyward: start the server now; it applies any newer migrations at start.');
  return 0;
}

/**
 * The record of backups belongs to the server, not to the moment a snapshot was taken: the snapshot never holds its
 * own record (it is written after the copy), so without this the Staff page would show the backup before the one
 * just restored. The records of the database being replaced are read before and written into the restored one.
 */
async function readBackupRuns(config: Config): Promise<StoredBackupRun[]> {
  const database = openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: 1 });
  try {
    return await listBackupRuns(database.db);
  } catch {
    return []; // a database from before backups were recorded (migration 0021)
  } finally {
    await database.close();
  }
}

async function keepBackupRuns(config: Config, runs: StoredBackupRun[]): Promise<void> {
  if (!runs.length) return;
  const database = openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: 1 });
  try {
    await restoreBackupRuns(database.db, runs);
  } catch (error) {
    console.error(`keyward: warning: the Staff page will not list the earlier backups (${(error as Error).message}).`);
  } finally {
    await database.close();
  }
}

async function pgRestore(config: Config, databaseUrl: string, file: string): Promise<number> {
  if (!onPath('pg_restore')) {
    throw new OpsError(
      'pg_restore is not installed here. Install the PostgreSQL client (apt-get install postgresql-client), ' +
        `or restore inside the database's container: docker compose exec -T postgres pg_restore -U keyward -d keyward --clean --if-exists < ${file}`,
    );
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  let others: number;
  try {
    const result = await client.query(
      'select count(*) as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
    );
    others = Number(result.rows[0].n);
  } finally {
    await client.end();
  }
  if (others > 0) throw new OpsError(`${others} other connection(s) use this database: stop every Keyward server first, then restore`);
  const runs = await readBackupRuns(config);
  const restore = spawnSync('pg_restore', ['--clean', '--if-exists', '--no-owner', '-d', databaseUrl, file], {
    stdio: ['ignore', 'inherit', 'pipe'],
    encoding: 'utf8',
  });
  if (restore.status !== 0) throw new OpsError(`pg_restore failed: ${restore.stderr.trim()}`);
  await keepBackupRuns(config, runs);
  console.log(`Restored ${file} into PostgreSQL: ${keySentence(await pgKeyCounts(databaseUrl))}.`);
  return 0;
}
