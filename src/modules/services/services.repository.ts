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
  'chatApplicationId',
  'chatLogChannelId',
  'chatCommandsSyncedAt',
  'chatVerifiedAt',
  'chatLastError',
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

/**
 * The service an account may use by reference: one it owns, or one it is a member of (contract §17), with the
 * member's row (null for the owner). Read from the database on every request, so a removed member or a changed role
 * counts on the next request on every instance.
 */
export async function findServiceAccess(db: Db, accountId: string, ref: string) {
  const row = await db
    .selectFrom('services')
    .leftJoin('serviceMembers as m', (join) => join.onRef('m.serviceId', '=', 'services.id').on('m.accountId', '=', accountId))
    .select(SERVICE_COLUMNS.map((column) => `services.${column}` as const))
    .select([
      'm.role as memberRole',
      'm.keysLeft as memberKeysLeft',
      'm.maxDays as memberMaxDays',
      'm.allowLifetime as memberAllowLifetime',
    ])
    .where((eb) => eb.or([eb('services.id', '=', ref), eb('services.identifier', '=', ref)]))
    .where((eb) => eb.or([eb('services.accountId', '=', accountId), eb('m.accountId', 'is not', null)]))
    .executeTakeFirst();
  if (!row) return undefined;
  const { memberRole, memberKeysLeft, memberMaxDays, memberAllowLifetime, ...service } = row;
  const owner = service.accountId === accountId;
  return {
    service: service as ServiceRow,
    role: owner || memberRole === null ? ('owner' as const) : memberRole,
    quota:
      owner || memberRole !== 'reseller'
        ? null
        : { keysLeft: memberKeysLeft ?? 0, maxDays: memberMaxDays, allowLifetime: memberAllowLifetime === 1 },
  };
}

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

/** Every service the account owns or is a member of, oldest first, with its role there (a member's key reaches these, §17). */
export async function listReachableServices(db: Db, accountId: string) {
  const rows = await db
    .selectFrom('services')
    .leftJoin('serviceMembers as m', (join) => join.onRef('m.serviceId', '=', 'services.id').on('m.accountId', '=', accountId))
    .select(SERVICE_COLUMNS.map((column) => `services.${column}` as const))
    .select('m.role as memberRole')
    .where((eb) => eb.or([eb('services.accountId', '=', accountId), eb('m.accountId', 'is not', null)]))
    .orderBy('services.createdAt', 'asc')
    .orderBy('services.id')
    .execute();
  return rows.map(({ memberRole, ...service }) => ({
    service: service as ServiceRow,
    role: service.accountId === accountId || memberRole === null ? ('owner' as const) : memberRole,
  }));
}

export const updateService = (db: Db, id: string, patch: Updateable<ServicesTable>) =>
  db.updateTable('services').set(patch).where('id', '=', id).executeTakeFirst();

export const deleteService = (db: Db, id: string) => db.deleteFrom('services').where('id', '=', id).executeTakeFirst();

export const insertDeletedService = (db: Db, row: { id: string; identifier: string; deletedAt: number }) =>
  db
    .insertInto('deletedServices')
    .values(row)
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();

/** Whether a service by this id or identifier was deleted (and none has taken the identifier since: the caller looks first). */
export async function wasServiceDeleted(db: Db, ref: string): Promise<boolean> {
  const row = await db
    .selectFrom('deletedServices')
    .select('id')
    .where((eb) => eb.or([eb('id', '=', ref), eb('identifier', '=', ref)]))
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** Counts one execution on the service; answers the new total and time, read in the same statement. */
export async function countServiceExecution(db: Db, serviceId: string, now: number) {
  return db
    .updateTable('services')
    .set((eb) => ({ executions: eb('executions', '+', 1), lastActiveAt: now }))
    .where('id', '=', serviceId)
    .returning(['executions', 'lastActiveAt'])
    .executeTakeFirstOrThrow();
}
