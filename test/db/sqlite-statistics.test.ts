import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { checkpointInBackground } from '../../src/db/sqlite-checkpointer.ts';
import { migrate, openDatabase } from '../../src/db/database.ts';

// The SQLite engine's own behaviour, whichever database the project's other tests use.
const dirs: string[] = [];
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true }));
});

function open() {
  const dir = mkdtempSync(join(tmpdir(), 'kw-statistics-'));
  dirs.push(dir);
  const file = join(dir, 'keyward.db');
  const sqlite = new SQLite(file);
  sqlite.pragma('journal_mode = WAL');
  // `kind` tells little (two values), `code` much: with statistics a range of codes beats an equal kind.
  sqlite.exec(`create table t (id integer primary key, kind text, code text, serial text);
    create index t_kind on t (kind); create index t_code on t (code); create index t_serial_code on t (serial, code);
    create unique index t_serial on t (serial);`);
  const background = checkpointInBackground(sqlite, file);
  closers.push(async () => {
    await background.stop();
    sqlite.close();
  });
  return { sqlite, background };
}

function addRows(sqlite: SQLite.Database, count: number) {
  const from = (sqlite.prepare('select count(*) as n from t').get() as { n: number }).n;
  const insert = sqlite.prepare('insert into t (kind, code, serial) values (?, ?, ?)');
  sqlite.transaction(() => {
    for (let i = from; i < from + count; i++) insert.run(i % 2 ? 'x' : 'y', `c${String((i * 7919) % 100_000).padStart(6, '0')}`, `s${i}`);
  })();
}

const QUERY = "select id from t where kind = 'x' and code between 'c005000' and 'c005100'";
const planOf = (sqlite: SQLite.Database) =>
  (sqlite.prepare(`explain query plan ${QUERY}`).all() as { detail: string }[]).map((r) => r.detail);
const stat1 = (sqlite: SQLite.Database) =>
  sqlite.prepare("select idx, stat from sqlite_stat1 where tbl = 't' order by idx").all() as { idx: string; stat: string }[];
const hasStat1 = (sqlite: SQLite.Database) => sqlite.prepare("select 1 from sqlite_schema where name = 'sqlite_stat1'").get() !== undefined;

describe("the planner's statistics, kept by the background worker", () => {
  it('counts what ANALYZE counts, and the server connection plans with it, prepared statements included', async () => {
    const { sqlite, background } = open();
    addRows(sqlite, 12_000);
    const prepared = sqlite.prepare(QUERY);
    const before = prepared.all();
    // Without statistics SQLite guesses an equality beats a range.
    expect(planOf(sqlite)).toEqual(['SEARCH t USING INDEX t_kind (kind=?)']);

    expect(await background.refreshStatistics()).toEqual({ tables: [{ table: 't', rows: 12_000 }] });
    // The worker's counts reached this connection without anything asked of it here.
    expect(planOf(sqlite)).toEqual([expect.stringMatching(/^SEARCH t USING INDEX t_code /)]);
    // A statement prepared before is planned again: the same rows, found in code order now, not in id order.
    const after = prepared.all();
    expect(after).toEqual(sqlite.prepare(QUERY).all());
    expect(after).not.toEqual(before);
    expect(new Set(after.map((r) => JSON.stringify(r)))).toEqual(new Set(before.map((r) => JSON.stringify(r))));

    const counted = stat1(sqlite);
    expect(counted.map((r) => r.idx)).toEqual(['t_code', 't_kind', 't_serial', 't_serial_code']);
    sqlite.exec('analyze t');
    expect(counted).toEqual(stat1(sqlite));
  });

  it('writes nothing for small tables, and counts a table again only when it doubles, halves or gains an index', async () => {
    const { sqlite, background } = open();
    addRows(sqlite, 500);
    expect(await background.refreshStatistics()).toEqual({ tables: [] });
    expect(hasStat1(sqlite)).toBe(false);

    addRows(sqlite, 11_500);
    expect((await background.refreshStatistics()).tables).toEqual([{ table: 't', rows: 12_000 }]);
    expect(await background.refreshStatistics()).toEqual({ tables: [] });
    addRows(sqlite, 11_000);
    expect(await background.refreshStatistics()).toEqual({ tables: [] });
    addRows(sqlite, 2_000);
    expect((await background.refreshStatistics()).tables).toEqual([{ table: 't', rows: 25_000 }]);
    expect(stat1(sqlite).find((r) => r.idx === 't_kind')?.stat).toBe('25000 12500');

    // An ANALYZE's samples (sqlite_stat4) would describe rows the new counts do not: they go with the table's counts.
    sqlite.exec('analyze t');
    expect((sqlite.prepare("select count(*) as n from sqlite_stat4 where tbl = 't'").get() as { n: number }).n).toBeGreaterThan(0);
    sqlite.exec('create index t_code_kind on t (code, kind)');
    expect((await background.refreshStatistics()).tables).toEqual([{ table: 't', rows: 25_000 }]);
    expect(stat1(sqlite).map((r) => r.idx)).toContain('t_code_kind');
    expect((sqlite.prepare("select count(*) as n from sqlite_stat4 where tbl = 't'").get() as { n: number }).n).toBe(0);

    sqlite.exec('delete from t where id > 12000');
    expect((await background.refreshStatistics()).tables).toEqual([{ table: 't', rows: 12_000 }]);
  });

  it('reloads on the server connection only once its open transaction ends', async () => {
    const { sqlite, background } = open();
    addRows(sqlite, 12_000);
    sqlite.exec('begin');
    expect((await background.refreshStatistics()).tables).toHaveLength(1);
    expect(sqlite.inTransaction).toBe(true);
    expect(planOf(sqlite)).toEqual(['SEARCH t USING INDEX t_kind (kind=?)']);
    sqlite.exec('commit');
    await expect.poll(() => planOf(sqlite)).toEqual([expect.stringMatching(/^SEARCH t USING INDEX t_code /)]);
  });

  it("answers once the worker has stopped, and the server's database offers the refresh", async () => {
    const { background } = open();
    await background.stop();
    expect(await background.refreshStatistics()).toEqual({ tables: [], error: 'the background worker is not running' });

    const dir = mkdtempSync(join(tmpdir(), 'kw-statistics-'));
    dirs.push(dir);
    const handle = openDatabase({ databaseUrl: null, dataDir: dir, backgroundCheckpoints: true });
    closers.push(() => handle.close());
    await migrate(handle.db);
    expect(await handle.refreshStatistics!()).toEqual({ tables: [] });
    expect(openDatabase({ databaseUrl: null, dataDir: dir }).refreshStatistics).toBeUndefined();
  });
});
