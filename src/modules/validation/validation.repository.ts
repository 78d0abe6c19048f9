import { CompiledQuery, sql, type Selectable } from 'kysely';
import { fixedQuery, runFixedQuery, runFixedQueryNow, type Db, type Dialect } from '../../db/database.ts';
import type { ActiveKeysTable } from '../../db/schema.ts';
import { DAY_MS } from '../../lib/time.ts';
import { batched } from '../../lib/batcher.ts';

type ActiveKeyRow = Omit<Selectable<ActiveKeysTable>, 'lastUsedHour'>;

/** What judging an active key reads (validation.service.ts): the hot-path query selects exactly these. */
export type JudgedKeyRow = Pick<
  ActiveKeyRow,
  | 'key'
  | 'isPremium'
  | 'noHwidValidation'
  | 'status'
  | 'expiresAt'
  | 'maxHwids'
  | 'hwidCount'
  | 'banReason'
  | 'banExpiresAt'
  | 'pendingDays'
>;

type ActiveKeyAndBanRow = JudgedKeyRow & {
  // SQLite answers EXISTS with 0/1, PostgreSQL with a boolean.
  hwidBound: number | boolean;
  hwidBanned: number | boolean;
};

// Whether the HWID is one of the key's: a key's first HWID (active_keys.hwid) is always among its key_hwids (every
// writer sets the two together), so the common case, a buyer on the machine they redeemed on, needs no second lookup.
const hwidBound = (hwid: string) =>
  `(k.hwid = ${hwid}) is true or exists (select 1 from key_hwids h where h.key = k.key and h.hwid = ${hwid})`;

// SQLite: written out, not built with Kysely, as it runs on nearly every executor call (see fixedQuery). Named
// columns, not *: a statement prepared on PostgreSQL must not change shape under a later migration. The key is the
// caller's: a text column costs SQLite more to hand over than the lookup takes.
const ACTIVE_KEY_AND_BAN = fixedQuery(
  'active_key_and_ban',
  `select k.is_premium as "isPremium", k.no_hwid_validation as "noHwidValidation", k.status,
     k.expires_at as "expiresAt", k.max_hwids as "maxHwids", k.hwid_count as "hwidCount",
     k.ban_reason as "banReason", k.ban_expires_at as "banExpiresAt", k.pending_days as "pendingDays",
     ${hwidBound(':hwid')} as "hwidBound",
     exists (select 1 from blacklist b where b.service_id = :serviceId and b.hwid = :hwid
       and (b.expires_at is null or b.expires_at > :now)) as "hwidBanned"
   from active_keys k where k.service_id = :serviceId and k.key = :key`,
);

// PostgreSQL: the same lookup for every cold validation of one turn of the event loop, in one round trip. Real traffic
// is many keys, each validated rarely: a statement per key cost more in round trips (client and server) than the
// reads themselves. One row per input found, numbered by its place in the arrays.
const ACTIVE_KEYS_AND_BANS = fixedQuery(
  'active_keys_and_bans',
  `select t.i::int as "i", k.key, k.is_premium as "isPremium", k.no_hwid_validation as "noHwidValidation", k.status,
     k.expires_at as "expiresAt", k.max_hwids as "maxHwids", k.hwid_count as "hwidCount",
     k.ban_reason as "banReason", k.ban_expires_at as "banExpiresAt", k.pending_days as "pendingDays",
     ${hwidBound('t.hwid')} as "hwidBound",
     exists (select 1 from blacklist b where b.service_id = t.service_id and b.hwid = t.hwid
       and (b.expires_at is null or b.expires_at > t.now)) as "hwidBanned"
   from unnest(:serviceIds::text[], :keys::text[], :hwids::text[], :nows::bigint[]) with ordinality as t(service_id, key, hwid, now, i)
   join active_keys k on k.service_id = t.service_id and k.key = t.key`,
);

interface Lookup {
  serviceId: string;
  key: string;
  hwid: string;
  now: number;
}

// Each field named, not spread from the row: a rest or spread copy of the row's eleven properties cost a cold
// validation about 6,500 instructions (callgrind), a third of what reading the row took.
const inputsOf = (key: string, row: Omit<ActiveKeyAndBanRow, 'key'>) => ({
  activeKey: {
    key,
    isPremium: row.isPremium,
    noHwidValidation: row.noHwidValidation,
    status: row.status,
    expiresAt: row.expiresAt,
    maxHwids: row.maxHwids,
    hwidCount: row.hwidCount,
    banReason: row.banReason,
    banExpiresAt: row.banExpiresAt,
    pendingDays: row.pendingDays,
  } satisfies JudgedKeyRow,
  hwidBanned: Boolean(row.hwidBanned),
  hwidBound: Boolean(row.hwidBound),
});

/** What judging an active key reads (see findActiveKeyAndBan). */
export type VerdictInputs = ReturnType<typeof inputsOf>;

const batchedLookups = new WeakMap<Db, (lookup: Lookup) => Promise<VerdictInputs | undefined>>();
function batchedLookup(db: Db) {
  let lookup = batchedLookups.get(db);
  if (!lookup) {
    lookup = batched(async (lookups: Lookup[]) => {
      const rows = await runFixedQuery<ActiveKeyAndBanRow & { i: number }>(db, ACTIVE_KEYS_AND_BANS, {
        serviceIds: lookups.map((l) => l.serviceId),
        keys: lookups.map((l) => l.key),
        hwids: lookups.map((l) => l.hwid),
        nows: lookups.map((l) => l.now),
      });
      const found: (VerdictInputs | undefined)[] = new Array(lookups.length);
      for (const row of rows) found[row.i - 1] = inputsOf(row.key, row);
      return found;
    });
    batchedLookups.set(db, lookup);
  }
  return lookup;
}

type SqliteRow = Omit<ActiveKeyAndBanRow, 'key'>;

/**
 * The hot path of validation in one round trip: the active key, whether the HWID is under a ban
 * in force and whether it is already one of the key's HWIDs. Undefined when the key is not an active key of the service.
 */
export async function findActiveKeyAndBan(db: Db, dialect: Dialect, serviceId: string, key: string, hwid: string, now: number) {
  if (dialect === 'postgres') return batchedLookup(db)({ serviceId, key, hwid, now });
  const [row] = await runFixedQuery<SqliteRow>(db, ACTIVE_KEY_AND_BAN, { serviceId, key, hwid, now });
  return row ? inputsOf(key, row) : undefined;
}

/** Returned by findActiveKeyAndBanNow when the lookup cannot run without a promise. */
export const NOT_NOW = Symbol('not now');

/**
 * findActiveKeyAndBan at once, without a promise, where the database allows it (SQLite while no transaction holds its
 * connection: see runFixedQueryNow); NOT_NOW otherwise.
 */
export function findActiveKeyAndBanNow(
  db: Db,
  serviceId: string,
  key: string,
  hwid: string,
  now: number,
): VerdictInputs | undefined | typeof NOT_NOW {
  const rows = runFixedQueryNow<SqliteRow>(db, ACTIVE_KEY_AND_BAN, { serviceId, key, hwid, now });
  if (!rows) return NOT_NOW;
  return rows[0] ? inputsOf(key, rows[0]) : undefined;
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
  // The unary + keeps SQLite from looking up the service's keys by its index and scanning the batch for each of
  // them (every key of the service times the batch); then the batch drives, each of its keys found by primary key.
  await sql`update active_keys set last_used_at = t.at
    from (select value ->> 0 as key, value ->> 1 as at from json_each(${JSON.stringify(touches)})) as t
    where active_keys.key = t.key and +active_keys.service_id = ${serviceId}
      and (active_keys.last_used_at is null or active_keys.last_used_at < t.at)`.execute(db);
}

/**
 * A generated key whose ban has ended (contract §19) becomes active in its row, so it can be redeemed like any other;
 * only a ban that has really ended is lifted, whoever races it.
 */
export const liftLapsedGeneratedBan = (db: Db, serviceId: string, key: string, now: number) =>
  db
    .updateTable('generatedKeys')
    .set({ status: 'active', banReason: null, banExpiresAt: null, unbanToken: null })
    .where('serviceId', '=', serviceId)
    .where('key', '=', key)
    .where('status', '=', 'banned')
    .where('banExpiresAt', '<=', now)
    .execute();

/** What a redemption answers with. */
export interface RedeemedKey {
  key: string;
  isPremium: 0 | 1;
  expiresAt: number | null;
  /** The buyer's Discord user id, for the buyer role and the key.redeemed event. */
  chatId: string | null;
  /** The HWID the key is now bound to; null for a key that skips HWID validation. */
  hwid: string | null;
}

/**
 * PostgreSQL: a whole redemption in one statement. The conditional DELETE settles races: a second redemption of the
 * key waits for the first's row lock, then finds the row gone and redeems nothing. Foreign keys and the key_hwids
 * trigger run at the end of the statement, when the active key exists. The answer's row also says whether the
 * generated key existed at the statement's start, redeemed or not.
 *
 * `alone`: the statement runs outside any transaction, as the common redemption does (one round trip and one commit,
 * where the transaction took five exchanges: BEGIN, the redemption, the event endpoints' read, COMMIT, after a read
 * of the generated key). It then redeems only when nothing else has to commit with it: the key has no Discord user
 * (no buyer role to sync, contract §12.3) and the service has no event endpoint (no key.redeemed to queue, §12.4),
 * both read in the statement's own snapshot, as the transaction would read them.
 */
const redemption = (alone: boolean) =>
  fixedQuery(
    alone ? 'redeem_alone' : 'redeem',
    `with taken as (
     delete from generated_keys g
     where g.service_id = :serviceId and g.key = :key and g.status = 'active' and (g.expires_at is null or g.expires_at > :now::bigint)
       ${alone ? 'and g.chat_id is null and not exists (select 1 from event_endpoints e where e.service_id = :serviceId)' : ''}
       and not exists (select 1 from blacklist b where b.service_id = :serviceId and b.hwid = :hwid::text
         and (b.expires_at is null or b.expires_at > :now::bigint))
     returning g.key, g.service_id, g.note, g.is_premium, g.no_hwid_validation, g.status, g.chat_id, g.created_at, g.max_hwids, g.created_by, g.created_by_username, g.max_sessions,
       -- a key whose time starts at redemption (contract §12.1) gets its expiry now
       case when g.duration_days is null then g.expires_at else :now::bigint + g.duration_days * 86400000::bigint end as expires_at),
   active as (
     insert into active_keys (key, service_id, hwid, note, is_premium, no_hwid_validation, status, expires_at, chat_id, executions,
       created_at, activated_at, last_used_at, hwid_reset_at, hwid_reset_count, max_hwids, hwid_count, created_by, created_by_username, max_sessions)
     select key, service_id, case when no_hwid_validation = 1 then null else :hwid::text end, note, is_premium, no_hwid_validation, status,
       expires_at, chat_id, 0, created_at, :now::bigint, :now::bigint, null, 0, max_hwids, case when no_hwid_validation = 1 then 0 else 1 end,
       created_by, created_by_username, max_sessions
     from taken
     returning key, service_id, is_premium, no_hwid_validation, expires_at, chat_id, hwid),
   bound as (
     insert into key_hwids (key, service_id, hwid, position) select key, service_id, :hwid::text, 1 from active where no_hwid_validation <> 1)
   select g.generated, a.key, a.is_premium as "isPremium", a.expires_at as "expiresAt", a.chat_id as "chatId", a.hwid
   from (select exists (select 1 from generated_keys where service_id = :serviceId and key = :key) as generated) g
   left join active a on true`,
  );
const REDEEM_ALONE = redemption(true);
const REDEEM_IN_TRANSACTION = redemption(false);

type RedemptionRow = Omit<RedeemedKey, 'key'> & { generated: boolean; key: string | null };

const redeemedOf = ({ generated: _, key, ...rest }: RedemptionRow): RedeemedKey | undefined => (key ? { key, ...rest } : undefined);

/**
 * The redemption that needs no transaction of the caller's, where the database allows it (PostgreSQL, see
 * REDEEM_ALONE): the key redeemed, or whether a generated key by that string exists (then the caller redeems it in
 * a transaction with what commits with it). SQLite only reads: its statements are calls in this process, and
 * the transaction costs no round trips.
 */
export async function redeemAlone(db: Db, dialect: Dialect, input: RedeemInput): Promise<RedeemedKey | 'generated' | 'absent'> {
  if (dialect !== 'postgres') return (await generatedKeyExists(db, input.serviceId, input.key)) ? 'generated' : 'absent';
  const [row] = await runFixedQuery<RedemptionRow>(db, REDEEM_ALONE, { ...input });
  return (row && redeemedOf(row)) ?? (row?.generated ? 'generated' : 'absent');
}

const GENERATED_KEY_EXISTS = fixedQuery(
  'generated_key_exists',
  'select 1 as "one" from generated_keys where service_id = :serviceId and key = :key',
);

/** Whether the service has this generated key: one cached read, so a typo or a guess opens no write transaction. */
async function generatedKeyExists(db: Db, serviceId: string, key: string): Promise<boolean> {
  return (await runFixedQuery(db, GENERATED_KEY_EXISTS, { serviceId, key })).length > 0;
}

interface RedeemInput {
  serviceId: string;
  key: string;
  hwid: string;
  now: number;
}

/**
 * Redeems a generated key if it can be redeemed now: active, not expired, and the HWID not under a ban in force. It
 * leaves generated_keys and becomes an active key with the same string, bound to the HWID unless noHwidValidation,
 * atomically. Undefined when nothing was redeemed (no such generated key, refused, or another request redeemed it
 * first); the caller then finds out why.
 */
export async function redeemGeneratedKey(trx: Db, dialect: Dialect, input: RedeemInput): Promise<RedeemedKey | undefined> {
  if (dialect === 'postgres') {
    const { order, postgres } = REDEEM_IN_TRANSACTION;
    const values = order.map((name) => input[name as keyof RedeemInput]);
    const { rows } = await trx.executeQuery<RedemptionRow>(CompiledQuery.raw(postgres, values));
    return rows[0] && redeemedOf(rows[0]);
  }
  // SQLite has no DELETE in a WITH clause; its statements are calls in this process, and it runs writers one at a time
  // (the caller's transaction holds the write lock).
  const { serviceId, key, hwid, now } = input;
  const taken = await trx
    .deleteFrom('generatedKeys')
    .where('serviceId', '=', serviceId)
    .where('key', '=', key)
    .where('status', '=', 'active')
    .where((eb) => eb.or([eb('expiresAt', 'is', null), eb('expiresAt', '>', now)]))
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('blacklist')
            .select('hwid')
            .where('blacklist.serviceId', '=', serviceId)
            .where('blacklist.hwid', '=', hwid)
            .where((eb) => eb.or([eb('blacklist.expiresAt', 'is', null), eb('blacklist.expiresAt', '>', now)])),
        ),
      ),
    )
    .returningAll()
    .executeTakeFirst();
  if (!taken) return undefined;
  const bind = taken.noHwidValidation !== 1;
  // A key whose time starts at redemption (contract §12.1) gets its expiry now, in the same transaction.
  const expiresAt = taken.durationDays !== null ? now + taken.durationDays * DAY_MS : taken.expiresAt;
  await trx
    .insertInto('activeKeys')
    .values({
      key: taken.key,
      serviceId,
      hwid: bind ? hwid : null,
      maxHwids: taken.maxHwids,
      maxSessions: taken.maxSessions,
      hwidCount: bind ? 1 : 0,
      note: taken.note,
      isPremium: taken.isPremium,
      noHwidValidation: taken.noHwidValidation,
      status: taken.status,
      expiresAt,
      chatId: taken.chatId,
      executions: 0,
      createdAt: taken.createdAt,
      activatedAt: now,
      lastUsedAt: now,
      hwidResetAt: null,
      hwidResetCount: 0,
      createdBy: taken.createdBy,
      createdByUsername: taken.createdByUsername,
    })
    .execute();
  if (bind) await trx.insertInto('keyHwids').values({ key: taken.key, serviceId, hwid, position: 1 }).execute();
  return { key: taken.key, isPremium: taken.isPremium, expiresAt, chatId: taken.chatId, hwid: bind ? hwid : null };
}
