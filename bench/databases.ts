import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openDatabase, type DbHandle } from '../src/db/database.ts';

const PG_ADMIN = process.env.KEYWARD_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export type Measure<T> = (dialect: 'sqlite' | 'postgres', env: Record<string, string>, handle: DbHandle) => Promise<T>;

/**
 * Runs `measure` on a fresh SQLite database in a temporary directory, then on a fresh PostgreSQL database when the
 * server answers (created and dropped here); `env` is what a server process needs to reach the same data.
 */
export async function onEachDatabase<T>(prefix: string, measure: Measure<T>): Promise<T[]> {
  const results: T[] = [];
  const dir = mkdtempSync(join(tmpdir(), `keyward-${prefix}-`));
  const sqlite = openDatabase({ databaseUrl: null, dataDir: dir });
  try {
    results.push(await measure('sqlite', { DATA_DIR: dir }, sqlite));
  } finally {
    await sqlite.close();
    rmSync(dir, { recursive: true, force: true });
  }

  const admin = new pg.Client({ connectionString: PG_ADMIN });
  const reachable = await admin.connect().then(
    () => true,
    () => false,
  );
  if (!reachable) {
    console.warn('PostgreSQL did not answer; measured SQLite only');
    return results;
  }
  const name = `kw_${prefix}_${randomBytes(4).toString('hex')}`;
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(PG_ADMIN);
  url.pathname = `/${name}`;
  const handle = openDatabase({ databaseUrl: url.href, dataDir: '' });
  try {
    results.push(await measure('postgres', { DATABASE_URL: url.href }, handle));
  } finally {
    await handle.close();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
  return results;
}
