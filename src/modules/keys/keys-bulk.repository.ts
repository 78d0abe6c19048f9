// Bulk actions on a service's keys (contract §7.3: one action on up to 1,000 keys, all or nothing); each query runs
// inside the caller's transaction.
import type { Db } from '../../db/database.ts';
import type { ActiveKeysTable } from '../../db/schema.ts';

type KeyStatus = ActiveKeysTable['status'];
type KeyTable = 'activeKeys' | 'generatedKeys';

/** `createdBy`: only keys that account made (a reseller's scope, contract §17); the others count as not found. */
export async function existingOfService(trx: Db, serviceId: string, keys: string[], createdBy: string | null = null) {
  const [active, generated] = await Promise.all([
    trx
      .selectFrom('activeKeys')
      .select(['key', 'expiresAt', 'hwidCount', 'pendingDays'])
      .where('serviceId', '=', serviceId)
      .where('key', 'in', keys)
      .$if(createdBy !== null, (q) => q.where('createdBy', '=', createdBy))
      .execute(),
    trx
      .selectFrom('generatedKeys')
      .select(['key', 'expiresAt', 'durationDays'])
      .where('serviceId', '=', serviceId)
      .where('key', 'in', keys)
      .$if(createdBy !== null, (q) => q.where('createdBy', '=', createdBy))
      .execute(),
  ]);
  return { active, generated };
}

export async function deleteKeys(trx: Db, serviceId: string, active: string[], generated: string[]) {
  if (active.length > 0) {
    await trx.deleteFrom('keyHwids').where('serviceId', '=', serviceId).where('key', 'in', active).execute();
    await trx.deleteFrom('activeKeys').where('serviceId', '=', serviceId).where('key', 'in', active).execute();
  }
  if (generated.length > 0)
    await trx.deleteFrom('generatedKeys').where('serviceId', '=', serviceId).where('key', 'in', generated).execute();
}

/** Hands the keys (with their HWIDs) to another service of the same account; the key strings stay unique. */
export async function moveKeys(trx: Db, from: string, to: string, active: string[], generated: string[]) {
  if (active.length > 0) {
    await trx.updateTable('keyHwids').set({ serviceId: to }).where('serviceId', '=', from).where('key', 'in', active).execute();
    await trx.updateTable('activeKeys').set({ serviceId: to }).where('serviceId', '=', from).where('key', 'in', active).execute();
  }
  if (generated.length > 0)
    await trx.updateTable('generatedKeys').set({ serviceId: to }).where('serviceId', '=', from).where('key', 'in', generated).execute();
}

export async function patchKeys(
  trx: Db,
  serviceId: string,
  active: string[],
  generated: string[],
  patch: { status?: KeyStatus; note?: string | null; banReason?: string | null; banExpiresAt?: number | null; unbanToken?: string | null },
) {
  if (active.length > 0)
    await trx.updateTable('activeKeys').set(patch).where('serviceId', '=', serviceId).where('key', 'in', active).execute();
  if (generated.length > 0)
    await trx.updateTable('generatedKeys').set(patch).where('serviceId', '=', serviceId).where('key', 'in', generated).execute();
}

/** Clears every HWID of the keys; the end-user cooldown clock (hwid_reset_at) is left as it was. */
export async function clearHwids(trx: Db, serviceId: string, keys: string[]) {
  if (keys.length === 0) return;
  await trx.deleteFrom('keyHwids').where('serviceId', '=', serviceId).where('key', 'in', keys).execute();
  await trx
    .updateTable('activeKeys')
    .set((eb) => ({ hwid: null, hwidCount: 0, hwidResetCount: eb('hwidResetCount', '+', 1) }))
    .where('serviceId', '=', serviceId)
    .where('key', 'in', keys)
    .execute();
}

/**
 * New expiry = the later of now and the old expiry, plus `ms`, computed by the database in one statement so
 * concurrent extensions add up instead of one overwriting the other. Lifetime keys stay as they are.
 * Answers the new expiries.
 */
export async function extendKeys(trx: Db, serviceId: string, table: KeyTable, keys: string[], ms: number, now: number) {
  if (keys.length === 0) return [];
  return trx
    .updateTable(table)
    .set((eb) => ({
      expiresAt: eb
        .case()
        .when('expiresAt', '>', now)
        .then(eb('expiresAt', '+', ms))
        .else(now + ms)
        .end(),
    }))
    .where('serviceId', '=', serviceId)
    .where('key', 'in', keys)
    .where('expiresAt', 'is not', null)
    .returning(['key', 'expiresAt'])
    .execute();
}

/**
 * Adds days to the length of keys whose time starts at first use: unused keys (from redemption, contract §12.1) and
 * bound keys whose time has not started (from their first validation, §23). Answers the longest after.
 */
export async function lengthenAfterRedeem(
  trx: Db,
  serviceId: string,
  keys: string[],
  days: number,
  active: string[] = [],
): Promise<number> {
  const lengths: number[] = [0];
  if (keys.length > 0) {
    const rows = await trx
      .updateTable('generatedKeys')
      .set((eb) => ({ durationDays: eb('durationDays', '+', days) }))
      .where('serviceId', '=', serviceId)
      .where('key', 'in', keys)
      .where('durationDays', 'is not', null)
      .returning('durationDays')
      .execute();
    lengths.push(...rows.map((r) => r.durationDays ?? 0));
  }
  if (active.length > 0) {
    const rows = await trx
      .updateTable('activeKeys')
      .set((eb) => ({ pendingDays: eb('pendingDays', '+', days) }))
      .where('serviceId', '=', serviceId)
      .where('key', 'in', active)
      .where('pendingDays', 'is not', null)
      .returning('pendingDays')
      .execute();
    lengths.push(...rows.map((r) => r.pendingDays ?? 0));
  }
  return Math.max(...lengths);
}
