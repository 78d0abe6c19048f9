import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openReader } from '../../src/db/database.ts';
import { createTestDatabase, testDialect, type TestDatabase } from '../helpers/database.ts';

// Kysely's queries reach pg in its callback form: in the promise form every query's rows were promoted to the old
// generation, and a 1,000,000-key Luarmor user list grew the server by 115–129 MB (docs/benchmarks.md, "The fifth
// round's fifth session"). The memory itself is the benchmark's to measure; this keeps the form from coming back.
describe("Kysely's queries on PostgreSQL", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await database.drop();
  });

  /** Runs `work` and answers how pg.Client#query was called meanwhile: with a callback, or as a promise. */
  async function formsDuring(work: () => Promise<unknown>) {
    const query = vi.spyOn(pg.Client.prototype, 'query');
    try {
      await work();
      return query.mock.calls.map((args) =>
        typeof args[0] === 'object' && args[0] !== null && 'submit' in args[0]
          ? 'submitted'
          : typeof args.at(-1) === 'function'
            ? 'callback'
            : 'promise',
      );
    } finally {
      query.mockRestore();
    }
  }

  it('send every statement, in and out of a transaction, with a callback, and keep what a statement answers', async () => {
    const { db, dialect } = database.handle;
    if (testDialect() === 'sqlite') {
      expect(dialect).toBe('sqlite');
      return;
    }
    let answers: unknown[] = [];
    const forms = await formsDuring(async () => {
      const one = await sql<{ one: number }>`select 1 as one`.execute(db);
      const two = await db.transaction().execute((trx) => sql<{ two: number }>`select ${2}::int as two`.execute(trx));
      answers = [one.rows, two.rows];
    });
    expect(answers).toEqual([[{ one: 1 }], [{ two: 2 }]]);
    // The select, then BEGIN, the select and COMMIT.
    expect(forms).toEqual(['callback', 'callback', 'callback', 'callback']);
  });

  it("reject a failing statement with pg's error, its code and its caller's stack, and give the connection back", async () => {
    if (testDialect() === 'sqlite') return expect(database.handle.dialect).toBe('sqlite');
    const { db } = database.handle;
    const error = await sql`select 1 / 0`.execute(db).catch((failure: Error) => failure);
    expect(error).toMatchObject({ code: '22012' });
    // A logged failure leads to the code that ran the statement, as it did through pg's promise form.
    expect((error as Error).stack).toContain('pg-callback-queries.test.ts');
    const use = database.handle.poolUse!();
    expect(use.total - use.idle).toBe(0);
    expect((await sql<{ ok: boolean }>`select true as ok`.execute(db)).rows).toEqual([{ ok: true }]);
  });

  it("send the export worker's reads with a callback too", async () => {
    if (testDialect() === 'sqlite') return expect(database.handle.dialect).toBe('sqlite');
    const reader = openReader(database.handle.source);
    try {
      const forms = await formsDuring(() => sql`select 1`.execute(reader.db));
      expect(forms).toEqual(['callback']);
    } finally {
      await reader.close();
    }
  });
});
