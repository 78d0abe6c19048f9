import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Db } from '../../db/database.ts';
import { containsIgnoringCase } from '../../db/search.ts';
import type { VaultScriptsTable } from '../../db/schema.ts';

export type VaultScriptRow = Selectable<VaultScriptsTable>;
const LISTED = ['id', 'name', 'size', 'createdAt', 'updatedAt'] as const;

export const insertVaultScript = (db: Db, row: Insertable<VaultScriptsTable>) => db.insertInto('vaultScripts').values(row).execute();

/** Scoped by account: another account's script is simply not found. Names cannot look like UUIDs, so the two never clash. */
export const findVaultScript = (db: Db, accountId: string, ref: { id: string } | { name: string }) =>
  db
    .selectFrom('vaultScripts')
    .select(['id', 'accountId', 'name', 'codeSealed', 'size', 'createdAt', 'updatedAt'])
    .where('accountId', '=', accountId)
    .$if('id' in ref, (qb) => qb.where('id', '=', (ref as { id: string }).id))
    .$if('name' in ref, (qb) => qb.where('name', '=', (ref as { name: string }).name))
    .executeTakeFirst();

export async function pageVaultScripts(db: Db, accountId: string, opts: { search?: string; offset: number; limit: number }) {
  const base = db
    .selectFrom('vaultScripts')
    .where('accountId', '=', accountId)
    .$if(Boolean(opts.search), (qb) => qb.where(containsIgnoringCase('name', opts.search!)));
  const [items, total] = await Promise.all([
    base.select(LISTED).orderBy('createdAt', 'asc').orderBy('id').offset(opts.offset).limit(opts.limit).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { items, total: Number(total.n) };
}

export const updateVaultScript = (db: Db, accountId: string, id: string, patch: Updateable<VaultScriptsTable>) =>
  db.updateTable('vaultScripts').set(patch).where('accountId', '=', accountId).where('id', '=', id).executeTakeFirst();

export const deleteVaultScript = (db: Db, accountId: string, id: string) =>
  db.deleteFrom('vaultScripts').where('accountId', '=', accountId).where('id', '=', id).executeTakeFirst();
