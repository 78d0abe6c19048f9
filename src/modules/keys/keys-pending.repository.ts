// The days a bound key carries until its first validation (contract §23, migration 0033): the two conditional writes
// that start its time and lengthen it, so a start and an extension racing it (on any instance) never both count.
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { DAY_MS } from '../../lib/time.ts';

/**
 * Starts the time of a bound key whose time waits for its first validation (contract §23): its expiry becomes `now`
 * plus its pending days, once. The condition on pending_days settles races: of two first validations at once (on two
 * instances), the second finds the column cleared and changes nothing. Answers the expiry the key has afterwards
 * (the winner's, when another validation started it first); undefined when the key is gone.
 */
export async function startPendingTime(
  db: Db,
  serviceId: string,
  key: string,
  now: number,
): Promise<{ expiresAt: number | null } | undefined> {
  // In bigint on both databases: days times a day's milliseconds overflows PostgreSQL's integer.
  const started = await db
    .updateTable('activeKeys')
    .set({ expiresAt: sql<number>`cast(${now} as bigint) + cast(pending_days as bigint) * ${DAY_MS}`, pendingDays: null })
    .where('serviceId', '=', serviceId)
    .where('key', '=', key)
    .where('pendingDays', 'is not', null)
    .returning('expiresAt')
    .executeTakeFirst();
  if (started) return started;
  return db.selectFrom('activeKeys').select('expiresAt').where('serviceId', '=', serviceId).where('key', '=', key).executeTakeFirst();
}

/**
 * Adds days to the pending days of a bound key whose time has not started (contract §23), as the row stands when
 * written; answers the new count, or null when its time started meanwhile (then nothing was added).
 */
export async function addPendingDays(db: Db, serviceId: string, key: string, days: number): Promise<number | null> {
  const row = await db
    .updateTable('activeKeys')
    .set((eb) => ({ pendingDays: eb('pendingDays', '+', days) }))
    .where('serviceId', '=', serviceId)
    .where('key', '=', key)
    .where('pendingDays', 'is not', null)
    .returning('pendingDays')
    .executeTakeFirst();
  return row?.pendingDays ?? null;
}
