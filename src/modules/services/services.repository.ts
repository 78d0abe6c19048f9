import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { ServicesTable } from '../../db/schema.ts';

/** The columns a service record carries out of this repository. */
const SERVICE_COLUMNS = [
  'id',
  'accountId',
  'identifier',
  'name',
  'apiKeyDigest',
  'apiKeySealed',
  'allowUrlShortener',
  'allowManageKeys',
  'allowVss',
  'ipAllowlist',
  'webhookUrl',
  'webhookEnabled',
  'hwidResetCooldownFreeHours',
  'hwidResetCooldownPremiumHours',
  'chatInteractionsPublicKey',
  'chatGuildId',
  'chatGuildName',
  'chatBotTokenSealed',
  'chatRoleId',
  'executions',
  'lastActiveAt',
  'createdAt',
  'sessionHeartbeatSeconds',
] as const satisfies readonly (keyof ServicesTable)[];

export type ServiceRow = Selectable<ServicesTable>;

export const insertService = (db: Db, row: Insertable<ServicesTable>) => db.insertInto('services').values(row).execute();

/** A service is named by its id or its identifier wherever a client names one. */
export const findServiceByRef = (db: Db, ref: string) =>
  db
    .selectFrom('services')
    .select(SERVICE_COLUMNS)
    .where((eb) => eb.or([eb('id', '=', ref), eb('identifier', '=', ref)]))
    .executeTakeFirst();

export const findAccountService = (db: Db, accountId: string, ref: string) =>
  db
    .selectFrom('services')
    .select(SERVICE_COLUMNS)
    .where('accountId', '=', accountId)
    .where((eb) => eb.or([eb('id', '=', ref), eb('identifier', '=', ref)]))
    .executeTakeFirst();

/** Only services of enabled accounts authenticate. */
export const findServiceByKeyDigest = (db: Db, keyDigest: string) =>
  db
    .selectFrom('services')
    .innerJoin('accounts', 'accounts.id', 'services.accountId')
    .select(SERVICE_COLUMNS.map((column) => `services.${column}` as const))
    .where('services.apiKeyDigest', '=', keyDigest)
    .where('accounts.disabled', '=', 0)
    .executeTakeFirst();

export const listAccountServices = (db: Db, accountId: string) =>
  db.selectFrom('services').select(SERVICE_COLUMNS).where('accountId', '=', accountId).orderBy('createdAt', 'asc').orderBy('id').execute();

export const updateService = (db: Db, id: string, patch: Updateable<ServicesTable>) =>
  db.updateTable('services').set(patch).where('id', '=', id).executeTakeFirst();

export const deleteService = (db: Db, id: string) => db.deleteFrom('services').where('id', '=', id).executeTakeFirst();

/** Counts one execution on the service; answers the new total and time, read in the same statement. */
export async function countServiceExecution(db: Db, serviceId: string, now: number) {
  return db
    .updateTable('services')
    .set((eb) => ({ executions: eb('executions', '+', 1), lastActiveAt: now }))
    .where('id', '=', serviceId)
    .returning(['executions', 'lastActiveAt'])
    .executeTakeFirstOrThrow();
}
