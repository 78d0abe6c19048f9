import type { Db } from '../../db/database.ts';
import { isSqlite } from '../../db/search.ts';

/**
 * Locks the service's key rows a time edit (or any bulk action) will change, before reading them, in the one order
 * every such transaction uses: active keys, then generated keys, each by key. Two instances editing overlapping keys
 * then wait for each other instead of deadlocking (contract §27), and what the caller reads next is what it changes.
 * `keys`: those keys; `withExpiry`: every key of the service that has an expiry (compensation). SQLite runs one
 * writing transaction at a time (BEGIN IMMEDIATE), which serializes these already.
 */
export async function lockKeyRows(trx: Db, serviceId: string, keys: string[] | 'withExpiry') {
  if (isSqlite(trx) || (keys !== 'withExpiry' && keys.length === 0)) return;
  for (const table of ['activeKeys', 'generatedKeys'] as const) {
    const locked = trx
      .selectFrom(table)
      .select('key')
      .where('serviceId', '=', serviceId)
      .$if(keys === 'withExpiry', (q) => q.where('expiresAt', 'is not', null))
      .$if(keys !== 'withExpiry', (q) => q.where('key', 'in', keys as string[]))
      .orderBy('key')
      .forUpdate();
    // Counted where they are locked: a compensation of a large service does not carry every key to the server.
    await trx
      .selectFrom(locked.as('locked'))
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
  }
}
