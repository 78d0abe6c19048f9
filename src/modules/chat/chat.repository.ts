import type { Db } from '../../db/database.ts';

export const bindGuild = (db: Db, serviceId: string, guildId: string, guildName: string) =>
  db.updateTable('services').set({ chatGuildId: guildId, chatGuildName: guildName }).where('id', '=', serviceId).executeTakeFirst();

/** Unbinds only a bound service, so "nothing was bound" is the database's answer, not a read. */
export const unbindGuild = (db: Db, serviceId: string) =>
  db
    .updateTable('services')
    .set({ chatGuildId: null, chatGuildName: null })
    .where('id', '=', serviceId)
    .where('chatGuildId', 'is not', null)
    .executeTakeFirst();

/**
 * Links a key to a chat user unless another user already holds it: the condition settles a race
 * between two users redeeming one key. Generated keys carry the link into activation.
 */
export async function linkKeyToChat(db: Db, serviceId: string, key: string, chatId: string) {
  for (const table of ['activeKeys', 'generatedKeys'] as const) {
    const result = await db
      .updateTable(table)
      .set({ chatId })
      .where('serviceId', '=', serviceId)
      .where('key', '=', key)
      .where((eb) => eb.or([eb('chatId', 'is', null), eb('chatId', '=', chatId)]))
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) > 0) return table === 'activeKeys' ? ('active' as const) : ('generated' as const);
  }
  return null;
}

/** Whether the key exists in the service at all (to tell "taken" from "unknown" after a refused link). */
export async function keyExists(db: Db, serviceId: string, key: string) {
  const [active, generated] = await Promise.all([
    db.selectFrom('activeKeys').select('key').where('serviceId', '=', serviceId).where('key', '=', key).executeTakeFirst(),
    db.selectFrom('generatedKeys').select('key').where('serviceId', '=', serviceId).where('key', '=', key).executeTakeFirst(),
  ]);
  return active !== undefined || generated !== undefined;
}

/** The caller's active keys, the most recently used first: /resethwid acts on the first bound one. */
export const activeKeysOfChatUser = (db: Db, serviceId: string, chatId: string) =>
  db
    .selectFrom('activeKeys')
    .select(['key', 'hwid', 'status', 'expiresAt', 'lastUsedAt', 'activatedAt'])
    .where('serviceId', '=', serviceId)
    .where('chatId', '=', chatId)
    .execute();
