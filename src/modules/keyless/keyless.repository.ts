import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { KeylessTable } from '../../db/schema.ts';

export type KeylessRow = Selectable<KeylessTable>;

export const findKeyless = (db: Db, serviceId: string, hwid: string) =>
  db
    .selectFrom('keyless')
    .select(['serviceId', 'hwid', 'isPremium', 'expiresAt', 'createdAt'])
    .where('serviceId', '=', serviceId)
    .where('hwid', '=', hwid)
    .executeTakeFirst();

export const insertKeyless = (db: Db, row: Insertable<KeylessTable>) => db.insertInto('keyless').values(row).execute();

export const deleteKeyless = (db: Db, serviceId: string, hwid: string) =>
  db.deleteFrom('keyless').where('serviceId', '=', serviceId).where('hwid', '=', hwid).executeTakeFirst();

/** Removes an entry only if it has lapsed, so re-adding an expired HWID works without a race. */
export const deleteExpiredKeyless = (db: Db, serviceId: string, hwid: string, now: number) =>
  db.deleteFrom('keyless').where('serviceId', '=', serviceId).where('hwid', '=', hwid).where('expiresAt', '<=', now).execute();

export async function countKeyless(db: Db, serviceId: string) {
  const row = await db
    .selectFrom('keyless')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('serviceId', '=', serviceId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
