import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { BlacklistTable } from '../../db/schema.ts';
import { containsIgnoringCase } from '../../db/search.ts';

const BLACKLIST_COLUMNS = ['serviceId', 'hwid', 'reason', 'expiresAt', 'createdAt'] as const satisfies readonly (keyof BlacklistTable)[];

export type BlacklistRow = Omit<Selectable<BlacklistTable>, 'unbanToken'>;

/** The entry only if it is in force at `now`. */
export const findBanInForce = (db: Db, serviceId: string, hwid: string, now: number) =>
  db
    .selectFrom('blacklist')
    .select(BLACKLIST_COLUMNS)
    .where('serviceId', '=', serviceId)
    .where('hwid', '=', hwid)
    .where((eb) => eb.or([eb('expiresAt', 'is', null), eb('expiresAt', '>', now)]))
    .executeTakeFirst();

export const insertBlacklistEntry = (db: Db, row: Insertable<BlacklistTable>) => db.insertInto('blacklist').values(row).execute();

/** Inserts the entry unless the HWID has one; whether it was inserted. */
export async function insertBlacklistEntryIfAbsent(db: Db, row: Insertable<BlacklistTable>) {
  const inserted = await db
    .insertInto('blacklist')
    .values(row)
    .onConflict((oc) => oc.columns(['serviceId', 'hwid']).doNothing())
    .returning('hwid')
    .executeTakeFirst();
  return inserted !== undefined;
}

/** Deletes the entries a key's ban made; their HWIDs. */
export async function deleteEntriesOfBan(db: Db, serviceId: string, unbanToken: string) {
  const rows = await db
    .deleteFrom('blacklist')
    .where('serviceId', '=', serviceId)
    .where('unbanToken', '=', unbanToken)
    .returning('hwid')
    .execute();
  return rows.map((r) => r.hwid);
}

export const deleteBlacklistEntry = (db: Db, serviceId: string, hwid: string) =>
  db.deleteFrom('blacklist').where('serviceId', '=', serviceId).where('hwid', '=', hwid).executeTakeFirst();

export const deleteLapsedBlacklistEntry = (db: Db, serviceId: string, hwid: string, now: number) =>
  db.deleteFrom('blacklist').where('serviceId', '=', serviceId).where('hwid', '=', hwid).where('expiresAt', '<=', now).execute();

export async function pageBlacklist(db: Db, serviceId: string, opts: { search?: string; offset: number; limit: number }) {
  const base = db
    .selectFrom('blacklist')
    .where('serviceId', '=', serviceId)
    .$if(Boolean(opts.search), (qb) =>
      qb.where((eb) => eb.or([containsIgnoringCase('hwid', opts.search!), containsIgnoringCase('reason', opts.search!)])),
    );
  const [items, total] = await Promise.all([
    base.select(BLACKLIST_COLUMNS).orderBy('createdAt', 'desc').orderBy('hwid').offset(opts.offset).limit(opts.limit).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { items, total: Number(total.n) };
}

export async function countBansInForce(db: Db, serviceId: string, now: number) {
  const row = await db
    .selectFrom('blacklist')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('serviceId', '=', serviceId)
    .where((eb) => eb.or([eb('expiresAt', 'is', null), eb('expiresAt', '>', now)]))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
