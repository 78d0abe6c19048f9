import type { Insertable, Updateable } from 'kysely';
import type { Db } from '../../db/database.ts';
import { isSqlite } from '../../db/search.ts';
import type { ServiceInvitesTable, ServiceMembersTable } from '../../db/schema.ts';

// Members, invites and reseller quotas (contract §17). Every read here goes to the database: roles and quotas are
// never served from a cache (§20), so a change counts on the next request on every instance.

export const insertInvite = (db: Db, row: Insertable<ServiceInvitesTable>) => db.insertInto('serviceInvites').values(row).execute();

export const listInvites = (db: Db, serviceId: string, now: number) =>
  db
    .selectFrom('serviceInvites')
    .selectAll()
    .where('serviceId', '=', serviceId)
    .where('expiresAt', '>', now)
    .orderBy('createdAt', 'desc')
    .orderBy('code')
    .execute();

export const deleteInvite = (db: Db, serviceId: string, code: string) =>
  db.deleteFrom('serviceInvites').where('serviceId', '=', serviceId).where('code', '=', code).executeTakeFirst();

/** Takes a live invite: deleting it is what makes it single-use, so of two concurrent accepts only one gets the row. */
export const takeInvite = (db: Db, code: string, now: number) =>
  db.deleteFrom('serviceInvites').where('code', '=', code).where('expiresAt', '>', now).returningAll().executeTakeFirst();

export const findInvite = (db: Db, code: string, now: number) =>
  db.selectFrom('serviceInvites').selectAll().where('code', '=', code).where('expiresAt', '>', now).executeTakeFirst();

/** A live invite with what its page shows (contract §25): the service's name and who invited (the owner). */
export const findInviteInfo = (db: Db, code: string, now: number) =>
  db
    .selectFrom('serviceInvites as i')
    .innerJoin('services as s', 's.id', 'i.serviceId')
    .innerJoin('accounts as a', 'a.id', 's.accountId')
    .selectAll('i')
    .select(['s.name as serviceName', 'a.username as invitedBy'])
    .where('i.code', '=', code)
    .where('i.expiresAt', '>', now)
    .executeTakeFirst();

export const insertMember = (db: Db, row: Insertable<ServiceMembersTable>) => db.insertInto('serviceMembers').values(row).execute();

export const findMember = (db: Db, serviceId: string, accountId: string) =>
  db.selectFrom('serviceMembers').selectAll().where('serviceId', '=', serviceId).where('accountId', '=', accountId).executeTakeFirst();

/**
 * The member's row, held until the transaction ends (PostgreSQL), so that an owner's edit and a reseller's generate
 * (which spends keysLeft on the same row) go one after the other: the edit never writes back an older keysLeft.
 * SQLite runs one writing transaction at a time.
 */
export async function findMemberForUpdate(trx: Db, serviceId: string, accountId: string) {
  return trx
    .selectFrom('serviceMembers')
    .selectAll()
    .where('serviceId', '=', serviceId)
    .where('accountId', '=', accountId)
    .$if(!isSqlite(trx), (q) => q.forUpdate())
    .executeTakeFirst();
}

export const updateMember = (db: Db, serviceId: string, accountId: string, patch: Updateable<ServiceMembersTable>) =>
  db.updateTable('serviceMembers').set(patch).where('serviceId', '=', serviceId).where('accountId', '=', accountId).executeTakeFirst();

export const deleteMember = (db: Db, serviceId: string, accountId: string) =>
  db.deleteFrom('serviceMembers').where('serviceId', '=', serviceId).where('accountId', '=', accountId).executeTakeFirst();

/** The members with their usernames and how many keys each created (still generated, or redeemed). */
export async function listMembers(db: Db, serviceId: string) {
  const members = await db
    .selectFrom('serviceMembers as m')
    .innerJoin('accounts as a', 'a.id', 'm.accountId')
    .select([
      'm.accountId',
      'a.username',
      'm.role',
      'm.keysLeft',
      'm.maxDays',
      'm.allowLifetime',
      'm.maxHwids',
      'm.allowNoHwidValidation',
      'm.allowPremium',
      'm.maxSessions',
      'm.joinedAt',
    ])
    .where('m.serviceId', '=', serviceId)
    .orderBy('m.joinedAt')
    .orderBy('m.accountId')
    .execute();
  const counts = await keyCounts(
    db,
    serviceId,
    members.map((m) => m.accountId),
  );
  return members.map((m) => ({ ...m, ...(counts.get(m.accountId) ?? { keysCreated: 0, keysRedeemed: 0 }) }));
}

/** Keys created and redeemed by each account: a redeemed key moved to active_keys, still naming its creator. */
export async function keyCounts(db: Db, serviceId: string, accountIds: string[]) {
  const map = new Map<string, { keysCreated: number; keysRedeemed: number }>();
  if (accountIds.length === 0) return map;
  const count = (table: 'activeKeys' | 'generatedKeys') =>
    db
      .selectFrom(table)
      .select(['createdBy', (eb) => eb.fn.countAll<number>().as('n')])
      .where('serviceId', '=', serviceId)
      .where('createdBy', 'in', accountIds)
      .groupBy('createdBy')
      .execute();
  const [active, generated] = await Promise.all([count('activeKeys'), count('generatedKeys')]);
  for (const id of accountIds) map.set(id, { keysCreated: 0, keysRedeemed: 0 });
  for (const row of active) {
    const entry = map.get(row.createdBy!)!;
    entry.keysRedeemed += Number(row.n);
    entry.keysCreated += Number(row.n);
  }
  for (const row of generated) map.get(row.createdBy!)!.keysCreated += Number(row.n);
  return map;
}

/** The services an account is a member of, with its role. */
export const memberServices = (db: Db, accountId: string) =>
  db
    .selectFrom('serviceMembers as m')
    .innerJoin('services as s', 's.id', 'm.serviceId')
    .select(['s.id', 's.identifier', 's.name', 's.createdAt', 'm.role'])
    .where('m.accountId', '=', accountId)
    .orderBy('m.joinedAt')
    .execute();

/**
 * Spends `count` keys of a reseller's quota, if it has that many left: one conditional UPDATE, so concurrent
 * generates on any number of instances never spend more than keys_left (PostgreSQL re-checks the condition against
 * the committed row after waiting for its lock; SQLite runs writers one at a time). Run in the transaction that
 * creates the keys. Answers whether it was spent.
 */
export async function spendKeys(db: Db, serviceId: string, accountId: string, count: number): Promise<boolean> {
  const result = await db
    .updateTable('serviceMembers')
    .set((eb) => ({ keysLeft: eb('keysLeft', '-', count) }))
    .where('serviceId', '=', serviceId)
    .where('accountId', '=', accountId)
    .where('role', '=', 'reseller')
    .where('keysLeft', '>=', count)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Gives one key back to a reseller's quota (its own unredeemed key was deleted), capped at the quota's maximum. */
export const refundKey = (db: Db, serviceId: string, accountId: string, max: number) =>
  db
    .updateTable('serviceMembers')
    .set((eb) => ({ keysLeft: eb('keysLeft', '+', 1) }))
    .where('serviceId', '=', serviceId)
    .where('accountId', '=', accountId)
    .where('role', '=', 'reseller')
    .where('keysLeft', '<', max)
    .execute();
