import type { Insertable } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { SessionsTable } from '../../db/schema.ts';

export const insertSession = (db: Db, row: Insertable<SessionsTable>) => db.insertInto('sessions').values(row).execute();

/**
 * A session counts only while it is inside both expiries and its account is enabled, so disabling an
 * account or letting a session idle out takes effect on the very next request, on every instance.
 */
export const findLiveSession = (db: Db, tokenDigest: string, now: number, idleMs: number) =>
  db
    .selectFrom('sessions')
    .innerJoin('accounts', 'accounts.id', 'sessions.accountId')
    .select([
      'accounts.id',
      'accounts.username',
      'accounts.passwordHash',
      'accounts.role',
      'accounts.disabled',
      'accounts.apiKeyDigest',
      'accounts.apiKeySealed',
      'accounts.apiKeyCreatedAt',
      'accounts.createdAt',
      'accounts.totpEnabled',
      'accounts.totpSecretSealed',
      'accounts.totpLastStep',
      'accounts.failedLoginCount',
      'accounts.loginLockedUntil',
      'accounts.usernameCaseDuplicate',
      'accounts.discordUserId',
    ])
    .select(['sessions.lastSeenAt as sessionLastSeenAt'])
    .where('sessions.tokenDigest', '=', tokenDigest)
    .where('sessions.expiresAt', '>', now)
    .where('sessions.lastSeenAt', '>', now - idleMs)
    .where('accounts.disabled', '=', 0)
    .executeTakeFirst();

export const touchSession = (db: Db, tokenDigest: string, now: number) =>
  db.updateTable('sessions').set({ lastSeenAt: now }).where('tokenDigest', '=', tokenDigest).execute();

export const deleteSession = (db: Db, tokenDigest: string) => db.deleteFrom('sessions').where('tokenDigest', '=', tokenDigest).execute();

export const deleteAccountSessions = (db: Db, accountId: string) => db.deleteFrom('sessions').where('accountId', '=', accountId).execute();

/** Housekeeping: sessions past their absolute expiry are useless rows. */
export const deleteExpiredSessions = (db: Db, now: number) => db.deleteFrom('sessions').where('expiresAt', '<=', now).execute();
