import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { isSqlite } from '../../db/search.ts';

/** The service's role settings as they are now (the worker and every change read them fresh). */
export const roleSettings = (db: Db, serviceId: string) =>
  db.selectFrom('services').select(['chatGuildId', 'chatRoleId', 'chatBotTokenSealed']).where('id', '=', serviceId).executeTakeFirst();

/**
 * Whether the user holds a key that is valid now: active, not banned or paused, not expired. A key made for the user
 * and linked before its first run (a Discord /whitelist, contract §24.3) counts too: it is theirs and valid.
 */
export async function holdsValidKey(db: Db, serviceId: string, chatId: string, now: number): Promise<boolean> {
  for (const table of ['activeKeys', 'generatedKeys'] as const) {
    const row = await db
      .selectFrom(table)
      .select('key')
      .where('serviceId', '=', serviceId)
      .where('chatId', '=', chatId)
      .where('status', '=', 'active')
      .where((eb) => eb.or([eb('expiresAt', 'is', null), eb('expiresAt', '>', now)]))
      .limit(1)
      .executeTakeFirst();
    if (row !== undefined) return true;
  }
  return false;
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

/**
 * Holds the user's member row until the transaction ends, so that changes ending two of the user's keys at once
 * decide one after the other (contract §22): the second reads the keys afresh once the first committed (READ
 * COMMITTED reads anew per statement) and sees that no valid key is left. Without it each saw the other's key still
 * valid and neither revoked. On SQLite the transaction's first write already holds the database's only write lock.
 */
export async function lockMember(trx: Db, serviceId: string, chatId: string): Promise<void> {
  if (isSqlite(trx)) return;
  await trx
    .selectFrom('discordRoleMembers')
    .select('chatId')
    .where('serviceId', '=', serviceId)
    .where('chatId', '=', chatId)
    .forUpdate()
    .execute();
}

/** Users Discord confirmed holding the role (a refused or unanswered grant does not count). */
export async function countMembers(db: Db, serviceId: string): Promise<number> {
  const row = await db
    .selectFrom('discordRoleMembers')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('serviceId', '=', serviceId)
    .where('confirmedAt', 'is not', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Discord answered a grant with 2xx. */
export const markConfirmed = (db: Db, serviceId: string, chatId: string, now: number) =>
  db
    .updateTable('discordRoleMembers')
    .set({ confirmedAt: now, refusals: 0, retryAt: null, lastError: null })
    .where('serviceId', '=', serviceId)
    .where('chatId', '=', chatId)
    .execute();

/** Discord refused a grant: not held, and tried again at `retryAt`. */
export async function markRefused(db: Db, serviceId: string, chatId: string, error: string, retryAt: (refusals: number) => number) {
  const row = await db
    .selectFrom('discordRoleMembers')
    .select('refusals')
    .where('serviceId', '=', serviceId)
    .where('chatId', '=', chatId)
    .executeTakeFirst();
  if (!row) return;
  const refusals = row.refusals + 1;
  await db
    .updateTable('discordRoleMembers')
    .set({ confirmedAt: null, refusals, retryAt: retryAt(refusals), lastError: error })
    .where('serviceId', '=', serviceId)
    .where('chatId', '=', chatId)
    .execute();
}

/** Refused grants whose next try is due (any service when serviceId is null; `now` null: all of them). */
export const refusedDue = (db: Db, serviceId: string | null, now: number | null, limit: number) =>
  db
    .selectFrom('discordRoleMembers')
    .select(['serviceId', 'chatId', 'retryAt'])
    .where('retryAt', 'is not', null)
    .where('confirmedAt', 'is', null)
    .$if(serviceId !== null, (q) => q.where('serviceId', '=', serviceId!))
    .$if(now !== null, (q) => q.where('retryAt', '<=', now!))
    .orderBy('retryAt')
    .limit(limit)
    .execute();

/** True for the one caller that takes this due retry (two sweeps, or a sweep and a settings save, queue one PUT). */
export async function takeRetry(db: Db, serviceId: string, chatId: string, retryAt: number): Promise<boolean> {
  const result = await db
    .updateTable('discordRoleMembers')
    .set({ retryAt: null })
    .where('serviceId', '=', serviceId)
    .where('chatId', '=', chatId)
    .where('retryAt', '=', retryAt)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** The service's grants Discord refused and not yet confirmed since, with the last reason (keyward doctor). */
export const refusedMembers = (db: Db, serviceId: string) =>
  db
    .selectFrom('discordRoleMembers')
    .select(['chatId', 'lastError', 'refusals'])
    .where('serviceId', '=', serviceId)
    .where('confirmedAt', 'is', null)
    .where('refusals', '>', 0)
    .orderBy('chatId')
    .execute();

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
      from (select service_id, chat_id, status, expires_at from active_keys
            union all select service_id, chat_id, status, expires_at from generated_keys) k
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
       and not exists (
       select 1 from generated_keys g
        where g.service_id = m.service_id and g.chat_id = m.chat_id
          and g.status = 'active' and (g.expires_at is null or g.expires_at > ${now}))
     limit ${limit}`.execute(db);
  return result.rows;
}
