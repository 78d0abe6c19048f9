import type { Db } from '../../db/database.ts';
import { preparedQuery } from '../../db/prepared.ts';

const activeKeyAndBan = preparedQuery(
  (db: Db, serviceId: string, key: string, hwid: string, now: number) =>
    db
      .selectFrom('activeKeys')
      // Named columns, not *: a statement prepared on PostgreSQL must not change shape under a later migration.
      .select([
        'activeKeys.key',
        'activeKeys.hwid',
        'activeKeys.isPremium',
        'activeKeys.noHwidValidation',
        'activeKeys.status',
        'activeKeys.expiresAt',
        'activeKeys.lastUsedAt',
        'activeKeys.maxHwids',
        'activeKeys.hwidCount',
      ])
      .select((eb) =>
        eb
          .exists(
            eb
              .selectFrom('keyHwids')
              .select('keyHwids.hwid')
              .whereRef('keyHwids.key', '=', 'activeKeys.key')
              .where('keyHwids.hwid', '=', hwid),
          )
          .as('hwidBound'),
      )
      .select((eb) =>
        eb
          .exists(
            eb
              .selectFrom('blacklist')
              .select('blacklist.hwid')
              .where('blacklist.serviceId', '=', serviceId)
              .where('blacklist.hwid', '=', hwid)
              .where((b) => b.or([b('blacklist.expiresAt', 'is', null), b('blacklist.expiresAt', '>', now)])),
          )
          .as('hwidBanned'),
      )
      .where('activeKeys.serviceId', '=', serviceId)
      .where('activeKeys.key', '=', key),
  ['\u0000service', '\u0000key', '\u0000hwid', -271828182845] as const,
);

/**
 * The hot path of validation in one round trip: the active key, whether the HWID is under a ban
 * in force and whether it is already one of the key's HWIDs. Undefined when the key is not an active key of the service.
 */
export async function findActiveKeyAndBan(db: Db, serviceId: string, key: string, hwid: string, now: number) {
  const [row] = await activeKeyAndBan(db, serviceId, key, hwid, now);
  if (!row) return undefined;
  // SQLite answers EXISTS with 0/1, PostgreSQL with a boolean.
  const { hwidBanned, hwidBound, ...activeKey } = row;
  return { activeKey, hwidBanned: Boolean(hwidBanned), hwidBound: Boolean(hwidBound) };
}
