import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Db } from '../../db/database.ts';
import { isSqlite } from '../../db/search.ts';
import type { KeySystemGrantsTable, KeySystemProvider, KeySystemSessionsTable, KeySystemSettingsTable } from '../../db/schema.ts';

export type SettingsRow = Selectable<KeySystemSettingsTable>;
export type SessionRow = Selectable<KeySystemSessionsTable>;

export const findSettings = (db: Db, serviceId: string) =>
  db
    .selectFrom('keySystemSettings')
    .select([
      'serviceId',
      'enabled',
      'checkpoints',
      'keyHours',
      'minSecondsPerCheckpoint',
      'provider',
      'links',
      'providerTokenSealed',
      'pageTitle',
      'accentColor',
      'maxKeysPerAddressPerDay',
      'updatedAt',
    ])
    .where('serviceId', '=', serviceId)
    .executeTakeFirst();

/** Insert or replace the whole row: the service computes the merged settings. */
export async function saveSettings(db: Db, row: Insertable<KeySystemSettingsTable>) {
  const { serviceId: _serviceId, ...rest } = row;
  await db
    .insertInto('keySystemSettings')
    .values(row)
    .onConflict((oc) => oc.column('serviceId').doUpdateSet(rest))
    .execute();
}

export const insertSession = (db: Db, row: Insertable<KeySystemSessionsTable>) => db.insertInto('keySystemSessions').values(row).execute();

export const findSession = (db: Db, serviceId: string, id: string) =>
  db
    .selectFrom('keySystemSessions')
    .select([
      'id',
      'serviceId',
      'browserDigest',
      'address',
      'checkpoint',
      'checkpoints',
      'checkpointStartedAt',
      'expectedTokenDigest',
      'nextUrl',
      'key',
      'keyExpiresAt',
      'createdAt',
      'expiresAt',
    ])
    .where('id', '=', id)
    .where('serviceId', '=', serviceId)
    .executeTakeFirst();

/** Moves the session on by one checkpoint only if nobody else did first (two tabs, two instances). */
export async function advanceSession(db: Db, id: string, from: number, patch: Updateable<KeySystemSessionsTable>): Promise<boolean> {
  const result = await db
    .updateTable('keySystemSessions')
    .set((eb) => ({ ...patch, checkpoint: eb('checkpoint', '+', 1) }))
    .where('id', '=', id)
    .where('checkpoint', '=', from)
    .where('key', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Marks a token spent; false when it already was (on any instance). */
export async function spendToken(
  db: Db,
  provider: KeySystemProvider,
  tokenDigest: string,
  expiresAt: number,
  isUnique: (e: unknown) => boolean,
) {
  try {
    await db.insertInto('keySystemTokens').values({ provider, tokenDigest, expiresAt }).execute();
    return true;
  } catch (error) {
    if (isUnique(error)) return false;
    throw error;
  }
}

/** Gives a token back when the provider could not be asked, so the user can retry with it. */
export const releaseToken = (db: Db, provider: KeySystemProvider, tokenDigest: string) =>
  db.deleteFrom('keySystemTokens').where('provider', '=', provider).where('tokenDigest', '=', tokenDigest).execute();

export const insertGrant = (db: Db, row: Insertable<KeySystemGrantsTable>) => db.insertInto('keySystemGrants').values(row).execute();

/**
 * Holds the service's key-system row until the transaction ends, so that the completions of one service count their
 * address's grants one after another (a grant committed by one is seen by the next: READ COMMITTED reads afresh
 * per statement). On SQLite the transaction's first write already holds the database's only write lock.
 */
export async function lockGrants(trx: Db, serviceId: string) {
  if (isSqlite(trx)) return;
  await trx.selectFrom('keySystemSettings').select('serviceId').where('serviceId', '=', serviceId).forUpdate().execute();
}

/** The grants to this address in the window, oldest first (the oldest decides when the next key is possible). */
export const grantsSince = (db: Db, serviceId: string, address: string, since: number) =>
  db
    .selectFrom('keySystemGrants')
    .select('issuedAt')
    .where('serviceId', '=', serviceId)
    .where('address', '=', address)
    .where('issuedAt', '>', since)
    .orderBy('issuedAt', 'asc')
    .execute();

export async function sweep(db: Db, now: number, grantsBefore: number) {
  const [sessions, tokens, grants] = await Promise.all([
    db.deleteFrom('keySystemSessions').where('expiresAt', '<=', now).executeTakeFirst(),
    db.deleteFrom('keySystemTokens').where('expiresAt', '<=', now).executeTakeFirst(),
    db.deleteFrom('keySystemGrants').where('issuedAt', '<=', grantsBefore).executeTakeFirst(),
  ]);
  return { sessions: Number(sessions.numDeletedRows), tokens: Number(tokens.numDeletedRows), grants: Number(grants.numDeletedRows) };
}
