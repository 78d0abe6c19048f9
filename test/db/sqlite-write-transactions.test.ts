import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.ts';

// The SQLite path's own behaviour, whichever database the project's other tests use: a fresh-clone CI run failed a
// generate with a 500 while `keyward backup` recorded its run in the same file from another process.
const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describe("SQLite transactions beside another process's writes", () => {
  it('take the write lock when they begin, so a commit from another connection between a read and a write cannot fail them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kw-immediate-'));
    dirs.push(dir);
    const handle = openDatabase({ databaseUrl: null, dataDir: dir });
    await sql`create table t (id integer primary key, n integer)`.execute(handle.db);
    await sql`insert into t (n) values (1)`.execute(handle.db);
    // Another process's connection (the CLI's), which would rather fail at once than wait for the lock.
    const other = new SQLite(join(dir, 'keyward.db'));
    other.pragma('busy_timeout = 0');
    let otherWrite: unknown = null;
    try {
      await handle.db.transaction().execute(async (trx) => {
        await sql`select n from t`.execute(trx);
        // Between this transaction's read and its write, the other connection tries to commit. With a deferred
        // BEGIN it succeeds, and this transaction's write then fails with SQLITE_BUSY_SNAPSHOT, whatever busy_timeout.
        try {
          other.prepare('insert into t (n) values (2)').run();
        } catch (error) {
          otherWrite = (error as { code?: string }).code;
        }
        await sql`insert into t (n) values (3)`.execute(trx);
      });
      expect(otherWrite).toBe('SQLITE_BUSY');
      other.prepare('insert into t (n) values (2)').run();
      expect((await sql<{ n: number }>`select n from t order by id`.execute(handle.db)).rows.map((r) => r.n)).toEqual([1, 3, 2]);
    } finally {
      other.close();
      await handle.close();
    }
  });
});
