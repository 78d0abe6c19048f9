import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedQuery, runFixedQuery, runFixedQueryNow } from '../../src/db/database.ts';
import { createTestDatabase, testDialect, type TestDatabase } from '../helpers/database.ts';

// On SQLite a fixed query's rows travel as one JSON text each (database.ts, jsonRowReader): every value a row can hold
// must come back as the driver would have handed it over, whatever its text holds.
const ROWS = [
  { id: 1, label: 'plain', at: 1_767_225_600_123, note: null },
  { id: 2, label: 'quote " backslash \\ slash / tab \t newline \n', at: -5, note: 'é ✓ 🙂 \u0001' },
  { id: 3, label: '[1,2]', at: 0, note: '{"looks":"like json"}' },
  { id: 4, label: '', at: 9_007_199_254_740_991, note: 'null' },
];

const SELECT = fixedQuery(
  'test_fixed_rows',
  `select id, label, at as "atMs", note, exists (select 1 from kw_fixed_rows o where o.id > r.id) as "hasLater"
   from kw_fixed_rows r where r.id >= :from and r.label <> :skip order by id`,
);

describe('fixed queries', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
    const { db } = database.handle;
    await sql`create table kw_fixed_rows (id integer primary key, label text not null, at bigint not null, note text)`.execute(db);
    for (const row of ROWS) await sql`insert into kw_fixed_rows values (${row.id}, ${row.label}, ${row.at}, ${row.note})`.execute(db);
  });
  afterAll(async () => {
    await database.drop();
  });

  const expected = ROWS.map((row, i) => ({
    id: row.id,
    label: row.label,
    atMs: row.at,
    note: row.note,
    hasLater: testDialect() === 'postgres' ? i < ROWS.length - 1 : Number(i < ROWS.length - 1),
  }));

  it('hand over every row with its values exactly: text of any kind, null, large and negative integers', async () => {
    const rows = await runFixedQuery(database.handle.db, SELECT, { from: 1, skip: 'none' });
    expect(rows).toEqual(expected);
    expect(Object.keys(rows[0] as object)).toEqual(['id', 'label', 'atMs', 'note', 'hasLater']);
  });

  it('bind each parameter in its place and answer no row as an empty list', async () => {
    expect(await runFixedQuery(database.handle.db, SELECT, { from: 2, skip: '[1,2]' })).toEqual([expected[1], expected[3]]);
    expect(await runFixedQuery(database.handle.db, SELECT, { from: 5, skip: '' })).toEqual([]);
  });

  it('answer the same at once where the database allows it (SQLite), and not at all elsewhere', () => {
    const rows = runFixedQueryNow(database.handle.db, SELECT, { from: 1, skip: 'none' });
    if (testDialect() === 'postgres') expect(rows).toBeUndefined();
    else expect(rows).toEqual(expected);
  });
});
