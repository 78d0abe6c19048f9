import type { Db } from '../../db/database.ts';

/** Counts one failed sign-in and answers the new total; one statement, so concurrent failures all count. */
export async function countFailedLogin(db: Db, accountId: string): Promise<number> {
  const row = await db
    .updateTable('accounts')
    .set((eb) => ({ failedLoginCount: eb('failedLoginCount', '+', 1) }))
    .where('id', '=', accountId)
    .returning('failedLoginCount')
    .executeTakeFirst();
  return Number(row?.failedLoginCount ?? 0);
}

/** Counts one failed sign-in for a name with no account and answers the new total (one statement, as above). */
export async function countUnknownLoginFailure(db: Db, username: string, now: number): Promise<number> {
  const row = await db
    .insertInto('loginFailures')
    .values({ username, failures: 1, lockedUntil: null, updatedAt: now })
    .onConflict((oc) => oc.column('username').doUpdateSet((eb) => ({ failures: eb('loginFailures.failures', '+', 1), updatedAt: now })))
    .returning('failures')
    .executeTakeFirst();
  return Number(row?.failures ?? 0);
}

export const lockUnknownLogins = (db: Db, username: string, until: number) =>
  db.updateTable('loginFailures').set({ lockedUntil: until }).where('username', '=', username).execute();

export async function unknownLoginLockedUntil(db: Db, username: string): Promise<number | null> {
  const row = await db.selectFrom('loginFailures').select('lockedUntil').where('username', '=', username).executeTakeFirst();
  return row?.lockedUntil ?? null;
}

export const lockLogins = (db: Db, accountId: string, until: number) =>
  db.updateTable('accounts').set({ loginLockedUntil: until }).where('id', '=', accountId).execute();

export const clearFailedLogins = (db: Db, accountId: string) =>
  db.updateTable('accounts').set({ failedLoginCount: 0, loginLockedUntil: null }).where('id', '=', accountId).execute();

/** Records the TOTP step only if it is newer than the last one used: a code is good once, on every instance. */
export async function claimTotpStep(db: Db, accountId: string, step: number): Promise<boolean> {
  const result = await db
    .updateTable('accounts')
    .set({ totpLastStep: step })
    .where('id', '=', accountId)
    .where((eb) => eb.or([eb('totpLastStep', 'is', null), eb('totpLastStep', '<', step)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export const storePendingTotpSecret = (db: Db, accountId: string, sealed: string) =>
  db
    .updateTable('accounts')
    .set({ totpSecretSealed: sealed, totpLastStep: null })
    .where('id', '=', accountId)
    .where('totpEnabled', '=', 0)
    .executeTakeFirst();

export const setTotpEnabled = (db: Db, accountId: string, enabled: boolean) =>
  db
    .updateTable('accounts')
    .set(enabled ? { totpEnabled: 1 } : { totpEnabled: 0, totpSecretSealed: null, totpLastStep: null })
    .where('id', '=', accountId)
    .executeTakeFirst();
