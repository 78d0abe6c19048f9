import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';

/** The service's role settings as they are now (the worker and every change read them fresh). */
export const roleSettings = (db: Db, serviceId: string) =>
  db.selectFrom('services').select(['chatGuildId', 'chatRoleId', 'chatBotTokenSealed']).where('id', '=', serviceId).executeTakeFirst();

/** Whether the user holds a key that is valid now: active, not banned or paused, not expired. */
export async function holdsValidKey(db: Db, serviceId: string, chatId: string, now: number): Promise<boolean> {
  const row = await db
    .selectFrom('activeKeys')
    .select('key')
    .where('serviceId', '=', serviceId)
    .where('chatId', '=', chatId)
    .where('status', '=', 'active')
    .where((eb) => eb.or([eb('expiresAt', 'is', null), eb('expiresAt', '>', now)]))
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** True for the one change that adds the member (the unique key decides between concurrent ones). */
export async function addMember(db: Db, serviceId: string, chatId: string, now: number): Promise<boolean> {
  const result = await db
    .insertInto('discordRoleMembers')
    .values({ serviceId, chatId, grantedAt: now })
    .onConflict((oc) => oc.columns(['serviceId', 'chatId']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
}

/** True for the one change that removes the member. */
export async function removeMember(db: Db, serviceId: string, chatId: string): Promise<boolean> {
  const result = await db
    .deleteFrom('discordRoleMembers')
    .where('serviceId', '=', serviceId)
    .where('chatId', '=', chatId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

export async function isMember(db: Db, serviceId: string, chatId: string): Promise<boolean> {
  const row = await db
    .selectFrom('discordRoleMembers')
    .select('chatId')
    .where('serviceId', '=', serviceId)
    .where('chatId', '=', chatId)
    .executeTakeFirst();
  return row !== undefined;
}

export const forgetMembers = (db: Db, serviceId: string) =>
  db.deleteFrom('discordRoleMembers').where('serviceId', '=', serviceId).execute();

export async function countMembers(db: Db, serviceId: string): Promise<number> {
  const row = await db
    .selectFrom('discordRoleMembers')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('serviceId', '=', serviceId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The chat ids of some of a service's active keys (those a bulk action touched). */
export async function chatIdsOfKeys(db: Db, serviceId: string, keys: readonly string[]): Promise<string[]> {
  if (keys.length === 0) return [];
  const rows = await db
    .selectFrom('activeKeys')
    .select('chatId')
    .distinct()
    .where('serviceId', '=', serviceId)
    .where('key', 'in', keys)
    .where('chatId', 'is not', null)
    .execute();
  return rows.map((r) => r.chatId!);
}

/** Users of role-configured services who hold a valid key but are not members yet. */
export async function missingMembers(db: Db, now: number, limit: number) {
  const result = await sql<{ serviceId: string; chatId: string }>`
    select distinct k.service_id as "serviceId", k.chat_id as "chatId"
      from active_keys k
      join services s on s.id = k.service_id
     where s.chat_role_id is not null and s.chat_bot_token_sealed is not null and s.chat_guild_id is not null
       and k.chat_id is not null and k.status = 'active' and (k.expires_at is null or k.expires_at > ${now})
       and not exists (select 1 from discord_role_members m where m.service_id = k.service_id and m.chat_id = k.chat_id)
     limit ${limit}`.execute(db);
  return result.rows;
}

/** Members who no longer hold any valid key (expired since, or changed by a path that did not sync). */
export async function staleMembers(db: Db, now: number, limit: number) {
  const result = await sql<{ serviceId: string; chatId: string }>`
    select m.service_id as "serviceId", m.chat_id as "chatId"
      from discord_role_members m
     where not exists (
       select 1 from active_keys k
        where k.service_id = m.service_id and k.chat_id = m.chat_id
          and k.status = 'active' and (k.expires_at is null or k.expires_at > ${now}))
     limit ${limit}`.execute(db);
  return result.rows;
}
