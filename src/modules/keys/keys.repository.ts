import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { ActiveKeysTable, GeneratedKeysTable } from '../../db/types.ts';

export type ActiveKeyRow = Selectable<ActiveKeysTable>;
export type GeneratedKeyRow = Selectable<GeneratedKeysTable>;
export type ActiveLookup = { key: string } | { hwid: string } | { note: string };
export type GeneratedLookup = { key: string } | { note: string };

const MAX_LOOKUP_ROWS = 1000;

export const insertGeneratedKeys = (db: Db, rows: Insertable<GeneratedKeysTable>[]) =>
  db.insertInto('generatedKeys').values(rows).execute();

export const insertActiveKey = (db: Db, row: Insertable<ActiveKeysTable>) => db.insertInto('activeKeys').values(row).execute();

export const findActiveKey = (db: Db, serviceId: string, key: string) =>
  db.selectFrom('activeKeys').selectAll().where('serviceId', '=', serviceId).where('key', '=', key).executeTakeFirst();

export const findGeneratedKey = (db: Db, serviceId: string, key: string) =>
  db.selectFrom('generatedKeys').selectAll().where('serviceId', '=', serviceId).where('key', '=', key).executeTakeFirst();

export function searchActiveKeys(db: Db, serviceId: string, by: ActiveLookup) {
  const [column, value] = Object.entries(by)[0] as ['key' | 'hwid' | 'note', string];
  return db
    .selectFrom('activeKeys')
    .selectAll()
    .where('serviceId', '=', serviceId)
    .where(column, '=', value)
    .orderBy('createdAt')
    .orderBy('key')
    .limit(MAX_LOOKUP_ROWS)
    .execute();
}

export function searchGeneratedKeys(db: Db, serviceId: string, by: GeneratedLookup) {
  const [column, value] = Object.entries(by)[0] as ['key' | 'note', string];
  return db
    .selectFrom('generatedKeys')
    .selectAll()
    .where('serviceId', '=', serviceId)
    .where(column, '=', value)
    .orderBy('createdAt')
    .orderBy('key')
    .limit(MAX_LOOKUP_ROWS)
    .execute();
}

export const activeKeysByChat = (db: Db, serviceId: string, chatId: string) =>
  db.selectFrom('activeKeys').selectAll().where('serviceId', '=', serviceId).where('chatId', '=', chatId).orderBy('createdAt').execute();

export const generatedKeysByChat = (db: Db, serviceId: string, chatId: string) =>
  db.selectFrom('generatedKeys').selectAll().where('serviceId', '=', serviceId).where('chatId', '=', chatId).orderBy('createdAt').execute();

export const updateActiveKey = (db: Db, serviceId: string, key: string, patch: Updateable<ActiveKeysTable>) =>
  db.updateTable('activeKeys').set(patch).where('serviceId', '=', serviceId).where('key', '=', key).executeTakeFirst();

export const updateGeneratedKey = (db: Db, serviceId: string, key: string, patch: Updateable<GeneratedKeysTable>) =>
  db.updateTable('generatedKeys').set(patch).where('serviceId', '=', serviceId).where('key', '=', key).executeTakeFirst();

export const deleteActiveKey = (db: Db, serviceId: string, key: string) =>
  db.deleteFrom('activeKeys').where('serviceId', '=', serviceId).where('key', '=', key).executeTakeFirst();

export const deleteGeneratedKey = (db: Db, serviceId: string, key: string) =>
  db.deleteFrom('generatedKeys').where('serviceId', '=', serviceId).where('key', '=', key).executeTakeFirst();

/** Removes and returns the generated key; only one concurrent caller can get the row back. */
export const takeGeneratedKey = (db: Db, serviceId: string, key: string) =>
  db.deleteFrom('generatedKeys').where('serviceId', '=', serviceId).where('key', '=', key).returningAll().executeTakeFirst();

/** Binds only an unbound key: the database settles a race between two HWIDs. */
export const bindHwidIfUnbound = (db: Db, serviceId: string, key: string, hwid: string, now: number) =>
  db
    .updateTable('activeKeys')
    .set({ hwid, lastUsedAt: now })
    .where('serviceId', '=', serviceId)
    .where('key', '=', key)
    .where('hwid', 'is', null)
    .executeTakeFirst();

/** Unbinds only when the cooldown has passed, so concurrent resets cannot both succeed. */
export const resetHwidIfAllowed = (db: Db, serviceId: string, key: string, now: number, resetAllowedBefore: number) =>
  db
    .updateTable('activeKeys')
    .set((eb) => ({ hwid: null, hwidResetAt: now, hwidResetCount: eb('hwidResetCount', '+', 1) }))
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

export const touchKey = (db: Db, serviceId: string, key: string, now: number) =>
  db.updateTable('activeKeys').set({ lastUsedAt: now }).where('serviceId', '=', serviceId).where('key', '=', key).execute();

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

export async function countKeys(db: Db, serviceId: string) {
  const [active, generated] = await Promise.all([
    db.selectFrom('activeKeys').select((eb) => eb.fn.countAll<number>().as('n')).where('serviceId', '=', serviceId).executeTakeFirstOrThrow(),
    db.selectFrom('generatedKeys').select((eb) => eb.fn.countAll<number>().as('n')).where('serviceId', '=', serviceId).executeTakeFirstOrThrow(),
  ]);
  return { active: Number(active.n), generated: Number(generated.n) };
}
