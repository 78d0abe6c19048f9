import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { checkpointInBackground } from '../../src/db/sqlite-checkpointer.ts';

// The SQLite engine's own behaviour, whichever database the project's other tests use.
const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function open() {
  const dir = mkdtempSync(join(tmpdir(), 'kw-checkpoint-'));
  dirs.push(dir);
  const file = join(dir, 'keyward.db');
  const sqlite = new SQLite(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.exec('create table t (id integer primary key, body blob)');
  return { sqlite, file };
}

/** About 8 MB in one commit: 2,000 pages, past SQLite's default checkpoint threshold of 1,000 WAL pages. */
function writeMany(sqlite: SQLite.Database) {
  const insert = sqlite.prepare('insert into t (body) values (randomblob(4000))');
  sqlite.transaction(() => {
    for (let i = 0; i < 2000; i++) insert.run();
  })();
}

const MB = 1024 * 1024;

describe('WAL checkpoints in a worker thread', () => {
  it('leaves the copy into the database file out of the commit, and the worker makes it soon after', async () => {
    const { sqlite, file } = open();
    const { stop } = checkpointInBackground(sqlite, file);
    writeMany(sqlite);
    // Right after the commit, the pages are in the WAL only (by default the commit would have copied them itself).
    expect(statSync(file).size).toBeLessThan(MB);
    await expect.poll(() => statSync(file).size).toBeGreaterThan(7 * MB);
    await stop();
    expect(sqlite.prepare('select count(*) as n from t').get()).toEqual({ n: 2000 });
    sqlite.close();
  });

  it('gives checkpoints back to the connection when the worker cannot run', async () => {
    const { sqlite } = open();
    const { stop } = checkpointInBackground(sqlite, join(tmpdir(), 'no-such-dir-kw', 'missing.db'));
    expect(sqlite.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    await expect.poll(() => sqlite.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    await stop();
    sqlite.close();
  });

  it('gives checkpoints back to the connection when stopped', async () => {
    const { sqlite, file } = open();
    const { stop } = checkpointInBackground(sqlite, file);
    await stop();
    expect(sqlite.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    writeMany(sqlite);
    expect(statSync(file).size).toBeGreaterThan(7 * MB);
    sqlite.close();
  });
});
