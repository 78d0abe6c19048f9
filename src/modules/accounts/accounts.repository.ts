import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { AccountsTable } from '../../db/schema.ts';

/** The columns an account record carries out of this repository (its sign-in state included: auth checks it). */
export const ACCOUNT_COLUMNS = [
  'id',
  'username',
  'passwordHash',
  'role',
  'disabled',
  'apiKeyDigest',
  'apiKeySealed',
  'apiKeyCreatedAt',
  'createdAt',
  'totpEnabled',
  'totpSecretSealed',
  'totpLastStep',
  'failedLoginCount',
  'loginLockedUntil',
] as const satisfies readonly (keyof AccountsTable)[];

export type AccountRow = Selectable<AccountsTable>;

export const insertAccount = (db: Db, row: Insertable<AccountsTable>) => db.insertInto('accounts').values(row).execute();

export const anyAccountExists = async (db: Db): Promise<boolean> =>
  (await db.selectFrom('accounts').select('id').limit(1).executeTakeFirst()) !== undefined;

export const findAccountById = (db: Db, id: string) =>
  db.selectFrom('accounts').select(ACCOUNT_COLUMNS).where('id', '=', id).executeTakeFirst();

export const findAccountByUsername = (db: Db, username: string) =>
  db.selectFrom('accounts').select(ACCOUNT_COLUMNS).where('username', '=', username).executeTakeFirst();

/** Only enabled accounts authenticate: disabling takes effect on the very next request. */
export const findEnabledAccountByKeyDigest = (db: Db, keyDigest: string) =>
  db.selectFrom('accounts').select(ACCOUNT_COLUMNS).where('apiKeyDigest', '=', keyDigest).where('disabled', '=', 0).executeTakeFirst();

export const updateAccount = (db: Db, id: string, patch: Updateable<AccountsTable>) =>
  db.updateTable('accounts').set(patch).where('id', '=', id).executeTakeFirst();

/** Sets the key only if none exists yet, so two first calls racing agree on one key. */
export const setAccountKeyIfAbsent = (db: Db, id: string, keyDigest: string, sealed: string, now: number) =>
  db
    .updateTable('accounts')
    .set({ apiKeyDigest: keyDigest, apiKeySealed: sealed, apiKeyCreatedAt: now })
    .where('id', '=', id)
    .where('apiKeyDigest', 'is', null)
    .executeTakeFirst();
