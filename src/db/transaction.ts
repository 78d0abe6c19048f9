import { conflict } from '../errors.ts';
import type { Db } from './database.ts';

/** PostgreSQL's serialization failure and deadlock: the transaction was rolled back whole and may simply run again. */
const RETRYABLE = new Set(['40001', '40P01']);
const ATTEMPTS = 5;

export const isRetryableConflict = (error: unknown) => RETRYABLE.has((error as { code?: unknown } | null)?.code as string);

/**
 * Runs `work` in a transaction, again when PostgreSQL rolled it back for a serialization failure or a deadlock (two
 * instances editing the same rows; contract §27): the caller sees its edit made, never a 500. `work` must only touch
 * the database, since it may run more than once. Still refused after the last attempt: a 409 asking to try again.
 */
export async function inTransaction<T>(db: Db, work: (trx: Db) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().execute(work);
    } catch (error) {
      if (!isRetryableConflict(error)) throw error;
      if (attempt === ATTEMPTS) throw conflict('Another change to the same keys was being made at the same time; try again');
      // A little random wait, so the transactions that collided do not start again in the same order at the same time.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * attempt));
    }
  }
}
