// Contract §27: a transaction PostgreSQL rolls back for a serialization failure (40001) or a deadlock (40P01) runs again
// whole, and the caller never sees a 500; one still refused after the last attempt is a 409. The failure is raised by
// the work itself here, so the helper's behaviour is the same test on both databases.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.ts';
import { inTransaction } from '../../src/db/transaction.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
  await sql`create table retry_probe (attempt integer not null)`.execute(database.handle.db);
});
afterAll(async () => {
  await database?.drop();
});

const failure = (code: string) => Object.assign(new Error(`database refused (${code})`), { code });
const rows = async () =>
  (await sql<{ attempt: number }>`select attempt from retry_probe order by attempt`.execute(database.handle.db)).rows.map((r) =>
    Number(r.attempt),
  );

describe('inTransaction', () => {
  it('runs the work again after a deadlock or a serialization failure, keeping only the attempt that committed', async () => {
    await sql`delete from retry_probe`.execute(database.handle.db);
    let attempts = 0;
    const answer = await inTransaction(database.handle.db, async (trx) => {
      attempts++;
      await sql`insert into retry_probe (attempt) values (${attempts})`.execute(trx);
      if (attempts === 1) throw failure('40P01');
      if (attempts === 2) throw failure('40001');
      return 'done';
    });
    expect(answer).toBe('done');
    expect(attempts).toBe(3);
    expect(await rows()).toEqual([3]);
  });

  it('answers 409 CONFLICT when every attempt is refused, and leaves nothing behind', async () => {
    await sql`delete from retry_probe`.execute(database.handle.db);
    let attempts = 0;
    const refused = await inTransaction(database.handle.db, async (trx) => {
      attempts++;
      await sql`insert into retry_probe (attempt) values (${attempts})`.execute(trx);
      throw failure('40P01');
    }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ code: 'CONFLICT', status: 409 });
    expect(attempts).toBe(5);
    expect(await rows()).toEqual([]);
  });

  it('does not run the work again for any other error', async () => {
    let attempts = 0;
    const refused = await inTransaction(database.handle.db, async () => {
      attempts++;
      throw failure('23505');
    }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: '23505' });
    expect(attempts).toBe(1);
  });
});
