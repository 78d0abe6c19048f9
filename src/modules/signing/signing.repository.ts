import type { Db } from '../../db/database.ts';
import type { ServiceSigningKeysTable } from '../../db/schema.ts';

export type SigningKeyRow = ServiceSigningKeysTable;

export const findSigningKey = (db: Db, serviceId: string): Promise<SigningKeyRow | undefined> =>
  db
    .selectFrom('serviceSigningKeys')
    .select(['serviceId', 'publicKey', 'privateKeySealed', 'createdAt'])
    .where('serviceId', '=', serviceId)
    .executeTakeFirst();

/** Stores the service's first key pair unless another caller (or instance) stored one first: the database decides. */
export async function insertSigningKeyIfAbsent(db: Db, row: SigningKeyRow): Promise<void> {
  await db
    .insertInto('serviceSigningKeys')
    .values(row)
    .onConflict((oc) => oc.column('serviceId').doNothing())
    .execute();
}

/** Puts a new key pair in place of the service's current one (or its first, if it had none). */
export async function replaceSigningKey(db: Db, row: SigningKeyRow): Promise<void> {
  await db
    .insertInto('serviceSigningKeys')
    .values(row)
    .onConflict((oc) =>
      oc.column('serviceId').doUpdateSet({ publicKey: row.publicKey, privateKeySealed: row.privateKeySealed, createdAt: row.createdAt }),
    )
    .execute();
}
