import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { ActiveKeysTable, GeneratedKeysTable } from '../../db/schema.ts';

/**
 * The columns a key record carries out of this module's repositories: the tables also hold `search_text`, kept by the
 * database's triggers for the short search, which no record needs.
 */
export const ACTIVE_KEY_COLUMNS = [
  'key',
  'serviceId',
  'hwid',
  'note',
  'isPremium',
  'noHwidValidation',
  'status',
  'expiresAt',
  'chatId',
  'executions',
  'createdAt',
  'activatedAt',
  'lastUsedAt',
  'hwidResetAt',
  'hwidResetCount',
  'maxHwids',
  'hwidCount',
  'createdBy',
  'createdByUsername',
  'banReason',
  'banExpiresAt',
  'unbanToken',
  'maxSessions',
  'pendingDays',
] as const satisfies readonly (keyof ActiveKeysTable)[];
export const GENERATED_KEY_COLUMNS = [
  'key',
  'serviceId',
  'note',
  'isPremium',
  'noHwidValidation',
  'status',
  'expiresAt',
  'chatId',
  'expirationType',
  'createdAt',
  'maxHwids',
  'durationDays',
  'createdBy',
  'createdByUsername',
  'banReason',
  'banExpiresAt',
  'unbanToken',
  'maxSessions',
] as const satisfies readonly (keyof GeneratedKeysTable)[];

/** A key's row as the code reads it: lastUsedHour only orders the list (migration 0022). */
export type ActiveKeyRow = Omit<Selectable<ActiveKeysTable>, 'lastUsedHour'>;
export type GeneratedKeyRow = Selectable<GeneratedKeysTable>;
export type ActiveLookup = { key: string } | { hwid: string } | { note: string };
export type GeneratedLookup = { key: string } | { note: string };
export type ActiveKeyWithHwids = ActiveKeyRow & { hwids: string[] };

export async function withHwids(db: Db, rows: ActiveKeyRow[]): Promise<ActiveKeyWithHwids[]> {
  const map = await hwidsOf(
    db,
    rows.filter((r) => r.hwidCount > 0).map((r) => r.key),
  );
  return rows.map((row) => ({ ...row, hwids: map.get(row.key) ?? [] }));
}

/** Lookups by a shared value (note, HWID) answer at most this many rows, oldest first; one more is read to tell that more matched. */
export const MAX_LOOKUP_ROWS = 1000;

export const insertGeneratedKeys = (db: Db, rows: Insertable<GeneratedKeysTable>[]) =>
  db.insertInto('generatedKeys').values(rows).execute();

export const insertActiveKey = (db: Db, row: Insertable<ActiveKeysTable>) => db.insertInto('activeKeys').values(row).execute();

export const findActiveKey = (db: Db, serviceId: string, key: string) =>
  db.selectFrom('activeKeys').select(ACTIVE_KEY_COLUMNS).where('serviceId', '=', serviceId).where('key', '=', key).executeTakeFirst();

/** The key whose current ban carries this unban token (Luarmor's unban link, contract §16.2). */
export async function findKeyByUnbanToken(db: Db, serviceId: string, token: string) {
  const active = await db
    .selectFrom('activeKeys')
    .select('key')
    .where('serviceId', '=', serviceId)
    .where('unbanToken', '=', token)
    .executeTakeFirst();
  if (active) return { type: 'active' as const, key: active.key };
  const generated = await db
    .selectFrom('generatedKeys')
    .select('key')
    .where('serviceId', '=', serviceId)
    .where('unbanToken', '=', token)
    .executeTakeFirst();
  return generated ? { type: 'generated' as const, key: generated.key } : undefined;
}

/**
 * Spends an unban token: clears it on the key whose current ban carries it and answers that key, in one conditional
 * write (the row stays locked until the caller's transaction ends), so a ban made since by anyone else, which replaced
 * the token, is never lifted by it.
 */
export async function takeUnbanToken(trx: Db, serviceId: string, token: string) {
  for (const [table, type] of [
    ['activeKeys', 'active'],
    ['generatedKeys', 'generated'],
  ] as const) {
    const result = await trx
      .updateTable(table)
      .set({ unbanToken: null })
      .where('serviceId', '=', serviceId)
      .where('unbanToken', '=', token)
      .where('status', '=', 'banned')
      .returning('key')
      .executeTakeFirst();
    if (result) return { type, key: result.key };
  }
  return undefined;
}

export const findGeneratedKey = (db: Db, serviceId: string, key: string) =>
  db.selectFrom('generatedKeys').select(GENERATED_KEY_COLUMNS).where('serviceId', '=', serviceId).where('key', '=', key).executeTakeFirst();

/** Who created the key (active or generated), for scoping a reseller to its own keys; undefined when there is no such key. */
export async function keyCreator(
  db: Db,
  serviceId: string,
  key: string,
): Promise<{ createdBy: string | null; redeemed: boolean } | undefined> {
  const active = await db
    .selectFrom('activeKeys')
    .select('createdBy')
    .where('serviceId', '=', serviceId)
    .where('key', '=', key)
    .executeTakeFirst();
  if (active) return { createdBy: active.createdBy, redeemed: true };
  const generated = await db
    .selectFrom('generatedKeys')
    .select('createdBy')
    .where('serviceId', '=', serviceId)
    .where('key', '=', key)
    .executeTakeFirst();
  return generated && { createdBy: generated.createdBy, redeemed: false };
}

/** `createdBy`: only keys that account created (a reseller's scope, contract §17). */
export function searchActiveKeys(db: Db, serviceId: string, by: ActiveLookup, createdBy: string | null = null) {
  const [column, value] = Object.entries(by)[0] as ['key' | 'hwid' | 'note', string];
  return db
    .selectFrom('activeKeys')
    .select(ACTIVE_KEY_COLUMNS)
    .where('serviceId', '=', serviceId)
    .$if(column === 'hwid', (q) =>
      // Any of the key's HWIDs, not only the first (the `hwid` column).
      q.where((eb) =>
        eb.exists(
          eb
            .selectFrom('keyHwids')
            .select('keyHwids.hwid')
            .where('keyHwids.serviceId', '=', serviceId)
            .where('keyHwids.hwid', '=', value)
            .whereRef('keyHwids.key', '=', 'activeKeys.key'),
        ),
      ),
    )
    .$if(column !== 'hwid', (q) => q.where(column, '=', value))
    .$if(createdBy !== null, (q) => q.where('createdBy', '=', createdBy))
    .orderBy('createdAt')
    .orderBy('key')
    .limit(MAX_LOOKUP_ROWS + 1)
    .execute();
}

export function searchGeneratedKeys(db: Db, serviceId: string, by: GeneratedLookup, createdBy: string | null = null) {
  const [column, value] = Object.entries(by)[0] as ['key' | 'note', string];
  return db
    .selectFrom('generatedKeys')
    .select(GENERATED_KEY_COLUMNS)
    .where('serviceId', '=', serviceId)
    .where(column, '=', value)
    .$if(createdBy !== null, (q) => q.where('createdBy', '=', createdBy))
    .orderBy('createdAt')
    .orderBy('key')
    .limit(MAX_LOOKUP_ROWS + 1)
    .execute();
}

export const activeKeysByChat = (db: Db, serviceId: string, chatId: string) =>
  db
    .selectFrom('activeKeys')
    .select(ACTIVE_KEY_COLUMNS)
    .where('serviceId', '=', serviceId)
    .where('chatId', '=', chatId)
    .orderBy('createdAt')
    .execute();

export const generatedKeysByChat = (db: Db, serviceId: string, chatId: string) =>
  db
    .selectFrom('generatedKeys')
    .select(GENERATED_KEY_COLUMNS)
    .where('serviceId', '=', serviceId)
    .where('chatId', '=', chatId)
    .orderBy('createdAt')
    .execute();

export const updateActiveKey = (db: Db, serviceId: string, key: string, patch: Updateable<ActiveKeysTable>) =>
  db.updateTable('activeKeys').set(patch).where('serviceId', '=', serviceId).where('key', '=', key).executeTakeFirst();

export const updateGeneratedKey = (db: Db, serviceId: string, key: string, patch: Updateable<GeneratedKeysTable>) =>
  db.updateTable('generatedKeys').set(patch).where('serviceId', '=', serviceId).where('key', '=', key).executeTakeFirst();

export const deleteActiveKey = (db: Db, serviceId: string, key: string) =>
  db.deleteFrom('activeKeys').where('serviceId', '=', serviceId).where('key', '=', key).executeTakeFirst();

export const deleteGeneratedKey = (db: Db, serviceId: string, key: string) =>
  db.deleteFrom('generatedKeys').where('serviceId', '=', serviceId).where('key', '=', key).executeTakeFirst();

/** A generated key given a date is no longer one whose time starts at redemption. */
export const endAfterRedeem = (db: Db, serviceId: string, key: string) =>
  db
    .updateTable('generatedKeys')
    .set({ expirationType: 'byDate', durationDays: null })
    .where('serviceId', '=', serviceId)
    .where('key', '=', key)
    .where('expirationType', '=', 'afterRedeem')
    .execute();

/** Adds days to an afterRedeem key's length as the row stands when written; answers the new length. */
export async function addDurationDays(db: Db, serviceId: string, key: string, days: number): Promise<number> {
  const row = await db
    .updateTable('generatedKeys')
    .set((eb) => ({ durationDays: eb('durationDays', '+', days) }))
    .where('serviceId', '=', serviceId)
    .where('key', '=', key)
    .returning('durationDays')
    .executeTakeFirstOrThrow();
  return row.durationDays!;
}

/** Removes and returns the generated key; only one concurrent caller can get the row back. */
export const takeGeneratedKey = (db: Db, serviceId: string, key: string) =>
  db.deleteFrom('generatedKeys').where('serviceId', '=', serviceId).where('key', '=', key).returningAll().executeTakeFirst();

/** The bound HWIDs of each key, in binding order. */
export async function hwidsOf(db: Db, keys: string[]): Promise<Map<string, string[]>> {
  const map = new Map<string, string[]>(keys.map((k) => [k, []]));
  if (keys.length === 0) return map;
  const rows = await db
    .selectFrom('keyHwids')
    .select(['key', 'hwid'])
    .where('key', 'in', keys)
    .orderBy('key')
    .orderBy('position')
    .execute();
  for (const row of rows) map.get(row.key)?.push(row.hwid);
  return map;
}

export async function isHwidBound(db: Db, serviceId: string, key: string, hwid: string) {
  const row = await db
    .selectFrom('keyHwids')
    .select('hwid')
    .where('serviceId', '=', serviceId)
    .where('key', '=', key)
    .where('hwid', '=', hwid)
    .executeTakeFirst();
  return row !== undefined;
}

export type BindOutcome = 'bound' | 'alreadyBound' | 'full';

/**
 * Binds one more HWID when the key has a free slot. Run inside a transaction. The (key, hwid) primary key
 * makes the same HWID racing with itself take one slot; the conditional increment of hwid_count makes
 * M different HWIDs racing for N slots end with exactly N bound: on PostgreSQL the second UPDATE waits
 * for the first's row lock and re-checks `hwid_count < max_hwids` against the committed row; SQLite
 * runs writers one at a time.
 */
export async function bindAnotherHwid(trx: Db, serviceId: string, key: string, hwid: string, now: number): Promise<BindOutcome> {
  const inserted = await trx
    .insertInto('keyHwids')
    .values({ key, serviceId, hwid, position: 0 })
    .onConflict((oc) => oc.columns(['key', 'hwid']).doNothing())
    .returning('hwid')
    .executeTakeFirst();
  if (!inserted) return 'alreadyBound';
  const counted = await trx
    .updateTable('activeKeys')
    .set((eb) => ({ hwidCount: eb('hwidCount', '+', 1), hwid: eb.fn.coalesce('hwid', eb.val(hwid)), lastUsedAt: now }))
    .where('serviceId', '=', serviceId)
    .where('key', '=', key)
    .whereRef('hwidCount', '<', 'maxHwids')
    .returning('hwidCount')
    .executeTakeFirst();
  if (!counted) {
    await trx.deleteFrom('keyHwids').where('key', '=', key).where('hwid', '=', hwid).execute();
    return 'full';
  }
  await trx.updateTable('keyHwids').set({ position: counted.hwidCount }).where('key', '=', key).where('hwid', '=', hwid).execute();
  return 'bound';
}

/** Records the HWIDs of a key written whole (redeem, edit, import): positions follow the array. */
export async function insertKeyHwids(db: Db, serviceId: string, key: string, hwids: string[]) {
  if (hwids.length === 0) return;
  await db
    .insertInto('keyHwids')
    .values(hwids.map((hwid, i) => ({ key, serviceId, hwid, position: i + 1 })))
    .execute();
}

/** Replaces every bound HWID of the key with `hwids` (empty = unbound). Run inside a transaction. */
export async function replaceHwids(trx: Db, serviceId: string, key: string, hwids: string[]) {
  await trx.deleteFrom('keyHwids').where('serviceId', '=', serviceId).where('key', '=', key).execute();
  await insertKeyHwids(trx, serviceId, key, hwids);
  return trx
    .updateTable('activeKeys')
    .set({ hwid: hwids[0] ?? null, hwidCount: hwids.length })
    .where('serviceId', '=', serviceId)
    .where('key', '=', key)
    .executeTakeFirst();
}

/** Unbinds only when the cooldown has passed, so concurrent resets cannot both succeed. */
export const resetHwidIfAllowed = (db: Db, serviceId: string, key: string, now: number, resetAllowedBefore: number) =>
  db
    .updateTable('activeKeys')
    .set((eb) => ({ hwid: null, hwidCount: 0, hwidResetAt: now, hwidResetCount: eb('hwidResetCount', '+', 1) }))
    .where('serviceId', '=', serviceId)
    .where('key', '=', key)
    .where('hwid', 'is not', null)
    .where((eb) => eb.or([eb('hwidResetAt', 'is', null), eb('hwidResetAt', '<=', resetAllowedBefore)]))
    .executeTakeFirst();

export const countKeyExecution = (db: Db, serviceId: string, key: string, now: number) =>
  db
    .updateTable('activeKeys')
    .set((eb) => ({ executions: eb('executions', '+', 1), lastUsedAt: now }))
    .where('serviceId', '=', serviceId)
    .where('key', '=', key)
    .executeTakeFirst();

/**
 * Pushes every expiring key of the service by `ms`, no further than `latest`; lifetime keys (null)
 * are left alone.
 */
export async function shiftExpiries(db: Db, serviceId: string, ms: number, latest: number) {
  const shift = (table: 'activeKeys' | 'generatedKeys') =>
    db
      .updateTable(table)
      .set((eb) => ({
        expiresAt: eb
          .case()
          .when('expiresAt', '>', latest - ms)
          .then(latest)
          .else(eb('expiresAt', '+', ms))
          .end(),
      }))
      .where('serviceId', '=', serviceId)
      .where('expiresAt', 'is not', null)
      .executeTakeFirst();
  const active = await shift('activeKeys');
  const generated = await shift('generatedKeys');
  return { active: Number(active.numUpdatedRows), generated: Number(generated.numUpdatedRows) };
}

/** `createdBy`: only keys that account created (a reseller's scope, contract §17). */
export async function countKeys(db: Db, serviceId: string, createdBy: string | null = null) {
  const [active, generated] = await Promise.all([
    db
      .selectFrom('activeKeys')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('serviceId', '=', serviceId)
      .$if(createdBy !== null, (q) => q.where('createdBy', '=', createdBy))
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('generatedKeys')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('serviceId', '=', serviceId)
      .$if(createdBy !== null, (q) => q.where('createdBy', '=', createdBy))
      .executeTakeFirstOrThrow(),
  ]);
  return { active: Number(active.n), generated: Number(generated.n) };
}
