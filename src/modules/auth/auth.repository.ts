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
