import { sql } from 'kysely';
import { afterEach, expect, it, vi } from 'vitest';
import { createTestDatabase, testDialect, type TestDatabase } from '../helpers/database.ts';

// The PostgreSQL pool keeps its idle connections (src/db/database.ts): a connection opened again after a pause
// parses every named statement again, and the first requests of the next burst wait for it.
let database: TestDatabase | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await database?.drop();
});

it('keeps idle PostgreSQL connections open however long they wait', async () => {
  if (testDialect() !== 'postgres') return;
  database = await createTestDatabase();
  const { handle } = database;
  // Only timers are faked: the pool's idle timeout is one, the sockets are not.
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  await Promise.all([1, 2, 3].map(() => sql`select pg_sleep(0.05)`.execute(handle.db)));
  expect(handle.poolUse!()).toMatchObject({ total: 3, idle: 3 });
  vi.advanceTimersByTime(10 * 60_000);
  expect(handle.poolUse!()).toMatchObject({ total: 3, idle: 3 });
  // And they still answer.
  expect((await sql<{ n: number }>`select 1 as n`.execute(handle.db)).rows[0]!.n).toBe(1);
});
