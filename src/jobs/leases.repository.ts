import type { Db } from '../db/database.ts';

/**
 * Takes or renews the lease on `name` for `holder` until `until`; true when this holder has it. One statement,
 * so two instances asking at once cannot both win: the row is taken only when free, expired or already ours.
 */
export async function takeLease(db: Db, name: string, holder: string, now: number, until: number): Promise<boolean> {
  const result = await db
    .insertInto('jobLeases')
    .values({ name, holder, leaseUntil: until })
    .onConflict((oc) =>
      oc
        .column('name')
        .doUpdateSet({ holder, leaseUntil: until })
        .where((eb) => eb.or([eb('jobLeases.leaseUntil', '<=', now), eb('jobLeases.holder', '=', holder)])),
    )
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
}

/** Gives the lease up early (the job finished), so another instance need not wait for it to expire. */
export async function releaseLease(db: Db, name: string, holder: string): Promise<void> {
  await db.updateTable('jobLeases').set({ leaseUntil: 0 }).where('name', '=', name).where('holder', '=', holder).execute();
}
