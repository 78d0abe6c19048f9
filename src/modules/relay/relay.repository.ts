import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';

/** Counts one message in the key's window and answers the window's count including it (one statement, race-free). */
export async function countRelay(db: Db, serviceId: string, keyDigest: string, windowStart: number): Promise<number> {
  const row = await db
    .insertInto('relayWindows')
    .values({ serviceId, keyDigest, windowStart, count: 1 })
    .onConflict((oc) => oc.columns(['serviceId', 'keyDigest', 'windowStart']).doUpdateSet({ count: sql`relay_windows.count + 1` }))
    .returning('count')
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export const dropEndedWindows = (db: Db, serviceId: string, keyDigest: string, windowStart: number) =>
  db
    .deleteFrom('relayWindows')
    .where('serviceId', '=', serviceId)
    .where('keyDigest', '=', keyDigest)
    .where('windowStart', '<', windowStart)
    .execute();
