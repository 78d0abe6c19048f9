import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { migrate, openDatabase, type Dialect, type DbHandle } from '../../src/db/database.ts';
import { ADMIN_URL, databaseUrl, templateName } from './postgres-template.ts';

export const testDialect = (): Dialect => (process.env.KEYWARD_TEST_DB === 'postgres' ? 'postgres' : 'sqlite');

export interface TestDatabase {
  handle: DbHandle;
  /** What a separate server process needs to reach the same data. */
  env: Record<string, string>;
  drop(): Promise<void>;
}

/** A database of this test file's own: a fresh SQLite file, or a fresh copy of the PostgreSQL template. */
export async function createTestDatabase(): Promise<TestDatabase> {
  if (testDialect() === 'postgres') {
    const name = `kw_t_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: ADMIN_URL });
    await admin.connect();
    try {
      await admin.query(`CREATE DATABASE ${name} TEMPLATE ${templateName()}`);
    } finally {
      await admin.end();
    }
    const url = databaseUrl(name);
    const handle = openDatabase({ databaseUrl: url, dataDir: '' });
    return {
      handle,
      env: { DATABASE_URL: url },
      drop: async () => {
        await handle.close();
        const cleanup = new pg.Client({ connectionString: ADMIN_URL });
        await cleanup.connect();
        await cleanup.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await cleanup.end();
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'keyward-test-'));
  const handle = openDatabase({ databaseUrl: null, dataDir: dir });
  await migrate(handle.db);
  return {
    handle,
    env: { DATA_DIR: dir },
    drop: async () => {
      await handle.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
