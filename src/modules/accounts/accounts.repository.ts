import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
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
  'usernameCaseDuplicate',
  'discordUserId',
] as const satisfies readonly (keyof AccountsTable)[];

export type AccountRow = Selectable<AccountsTable>;

export const insertAccount = (db: Db, row: Insertable<AccountsTable>) => db.insertInto('accounts').values(row).execute();

export const anyAccountExists = async (db: Db): Promise<boolean> =>
  (await db.selectFrom('accounts').select('id').limit(1).executeTakeFirst()) !== undefined;

export const findAccountById = (db: Db, id: string) =>
  db.selectFrom('accounts').select(ACCOUNT_COLUMNS).where('id', '=', id).executeTakeFirst();

export const findAccountByUsername = (db: Db, username: string) =>
  db.selectFrom('accounts').select(ACCOUNT_COLUMNS).where('username', '=', username).executeTakeFirst();

/**
 * The account a sign-in names, ignoring case: the one spelled exactly so, else the one that owns the name (the
 * unique index on lower(username) allows one; accounts told apart only by case before migration 0014 keep their
 * exact spelling).
 */
export async function findAccountForSignIn(db: Db, username: string) {
  const rows = await db
    .selectFrom('accounts')
    .select(ACCOUNT_COLUMNS)
    .where(sql<string>`lower(username)`, '=', username.toLowerCase())
    .execute();
  return rows.find((row) => row.username === username) ?? rows.find((row) => row.usernameCaseDuplicate === 0);
}

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
