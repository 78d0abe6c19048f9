import { sql } from 'kysely';
import { fixedQuery, runFixedQuery, type Db, type Dialect } from '../../db/database.ts';
import type { ActiveKeyRow } from '../keys/keys.repository.ts';

type ActiveKeyAndBanRow = Pick<
  ActiveKeyRow,
  'key' | 'hwid' | 'isPremium' | 'noHwidValidation' | 'status' | 'expiresAt' | 'maxHwids' | 'hwidCount'
> & {
  // SQLite answers EXISTS with 0/1, PostgreSQL with a boolean.
  hwidBound: number | boolean;
  hwidBanned: number | boolean;
};

// Written out, not built with Kysely, as it runs on nearly every executor call (see fixedQuery). Named
// columns, not *: a statement prepared on PostgreSQL must not change shape under a later migration.
const ACTIVE_KEY_AND_BAN = fixedQuery(
  'active_key_and_ban',
  `select k.key, k.hwid, k.is_premium as "isPremium", k.no_hwid_validation as "noHwidValidation", k.status,
     k.expires_at as "expiresAt", k.max_hwids as "maxHwids", k.hwid_count as "hwidCount",
     exists (select 1 from key_hwids h where h.key = k.key and h.hwid = :hwid) as "hwidBound",
     exists (select 1 from blacklist b where b.service_id = :serviceId and b.hwid = :hwid
       and (b.expires_at is null or b.expires_at > :now)) as "hwidBanned"
   from active_keys k where k.service_id = :serviceId and k.key = :key`,
);

/**
 * The hot path of validation in one round trip: the active key, whether the HWID is under a ban
 * in force and whether it is already one of the key's HWIDs. Undefined when the key is not an active key of the service.
 */
export async function findActiveKeyAndBan(db: Db, serviceId: string, key: string, hwid: string, now: number) {
  const [row] = await runFixedQuery<ActiveKeyAndBanRow>(db, ACTIVE_KEY_AND_BAN, { serviceId, key, hwid, now });
  if (!row) return undefined;
  const { hwidBanned, hwidBound, ...activeKey } = row;
  return { activeKey, hwidBanned: Boolean(hwidBanned), hwidBound: Boolean(hwidBound) };
}

/**
 * Moves each key's lastUsedAt forward to its time (never back: instances flush in any order) in one
 * statement. Not a Kysely builder query, so the write observer does not see it: lastUsedAt decides no
 * verdict and is in no cached copy.
 */
export async function touchKeys(db: Db, dialect: Dialect, serviceId: string, touches: [key: string, at: number][]) {
  if (touches.length === 0) return;
  if (dialect === 'postgres') {
    await sql`update active_keys as k set last_used_at = t.at
      from unnest(${touches.map(([key]) => key)}::text[], ${touches.map(([, at]) => at)}::bigint[]) as t(key, at)
      where k.service_id = ${serviceId} and k.key = t.key and (k.last_used_at is null or k.last_used_at < t.at)`.execute(db);
    return;
  }
  await sql`update active_keys set last_used_at = t.at
    from (select value ->> 0 as key, value ->> 1 as at from json_each(${JSON.stringify(touches)})) as t
    where active_keys.service_id = ${serviceId} and active_keys.key = t.key
      and (active_keys.last_used_at is null or active_keys.last_used_at < t.at)`.execute(db);
}
