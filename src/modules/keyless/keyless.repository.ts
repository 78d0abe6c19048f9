import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { KeylessTable } from '../../db/schema.ts';
import { containsIgnoringCase } from '../../db/search.ts';

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

/** One page of the service's keyless entries, newest first; `search` is part of the HWID, ignoring case. */
export async function pageKeyless(db: Db, serviceId: string, opts: { search?: string; offset: number; limit: number }) {
  const base = db
    .selectFrom('keyless')
    .where('serviceId', '=', serviceId)
    .$if(Boolean(opts.search), (qb) => qb.where(containsIgnoringCase('hwid', opts.search!)));
  const [items, total] = await Promise.all([
    base
      .select(['serviceId', 'hwid', 'isPremium', 'expiresAt', 'createdAt'])
      .orderBy('createdAt', 'desc')
      .orderBy('hwid')
      .offset(opts.offset)
      .limit(opts.limit)
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { items, total: Number(total.n) };
}

export async function countKeyless(db: Db, serviceId: string) {
  const row = await db
    .selectFrom('keyless')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('serviceId', '=', serviceId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
