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

/**
 * Takes an interaction id for this delivery: true for the first, false for Discord's retry of it (the primary key
 * decides on any number of instances, so the work behind one id runs once).
 */
export async function claimInteraction(db: Db, id: string, serviceId: string, now: number): Promise<boolean> {
  const result = await db
    .insertInto('chatInteractions')
    .values({ id, serviceId, answer: null, createdAt: now })
    .onConflict((oc) => oc.column('id').doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

export const storeInteractionAnswer = (db: Db, id: string, answer: string) =>
  db.updateTable('chatInteractions').set({ answer }).where('id', '=', id).execute();

export const interactionAnswer = async (db: Db, id: string) =>
  (await db.selectFrom('chatInteractions').select('answer').where('id', '=', id).executeTakeFirst())?.answer ?? null;

/** Interaction ids older than Discord's retry window (and its 15-minute tokens) are forgotten; so are old counts. */
export async function pruneChatRecords(db: Db, before: number): Promise<number> {
  const result = await db.deleteFrom('chatInteractions').where('createdAt', '<', before).executeTakeFirst();
  await db.deleteFrom('chatNoticeCounts').where('hour', '<', before).execute();
  return Number(result.numDeletedRows);
}

/** "Interactions verified" on the checklist: written at most once a minute per service. */
export const markVerified = (db: Db, serviceId: string, now: number) =>
  db
    .updateTable('services')
    .set({ chatVerifiedAt: now })
    .where('id', '=', serviceId)
    .where((eb) => eb.or([eb('chatVerifiedAt', 'is', null), eb('chatVerifiedAt', '<', now - 60_000)]))
    .execute();

/** Counts one more refusal of `subject` in the hour of `now`; answers the hour's count after it. */
export async function countNoticeEvent(db: Db, serviceId: string, subject: string, now: number): Promise<number> {
  const hour = now - (now % 3_600_000);
  await db
    .insertInto('chatNoticeCounts')
    .values({ serviceId, subject, hour, count: 1 })
    .onConflict((oc) => oc.columns(['serviceId', 'subject', 'hour']).doUpdateSet((eb) => ({ count: eb('chatNoticeCounts.count', '+', 1) })))
    .execute();
  const row = await db
    .selectFrom('chatNoticeCounts')
    .select('count')
    .where('serviceId', '=', serviceId)
    .where('subject', '=', subject)
    .where('hour', '=', hour)
    .executeTakeFirst();
  return row?.count ?? 0;
}
