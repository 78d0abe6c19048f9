import type { Db } from '../../db/database.ts';

/** Each answers how many rows it removed. Every delete is one statement: safe on any number of instances. */

export async function deleteSettledOutboxRows(db: Db, createdBefore: number): Promise<number> {
  const result = await db
    .deleteFrom('webhookOutbox')
    .where('status', 'in', ['delivered', 'failed'])
    .where('createdAt', '<', createdBefore)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function deleteUsedCaptchas(db: Db, now: number): Promise<number> {
  const result = await db.deleteFrom('captchaUses').where('expiresAt', '<=', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Sessions past their absolute expiry or idle for longer than the idle limit: neither can sign anyone in again. */
export async function deleteDeadSessions(db: Db, now: number, idleMs: number): Promise<number> {
  const result = await db
    .deleteFrom('sessions')
    .where((eb) => eb.or([eb('expiresAt', '<=', now), eb('lastSeenAt', '<=', now - idleMs)]))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Failure counts of unknown sign-in names, once quiet for a while and no longer locked. */
export async function deleteQuietLoginFailures(db: Db, quietSince: number, now: number): Promise<number> {
  const result = await db
    .deleteFrom('loginFailures')
    .where('updatedAt', '<', quietSince)
    .where((eb) => eb.or([eb('lockedUntil', 'is', null), eb('lockedUntil', '<=', now)]))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Webhook URLs written before tokens were sealed: the rows of services and of the outbox that hold one. */
export async function plainWebhookUrls(db: Db) {
  const services = await db
    .selectFrom('services')
    .select(['id', 'webhookUrl as url'])
    .where('webhookUrl', 'like', '%/webhooks/%')
    .where('webhookUrl', 'not like', '%~%')
    .execute();
  const outbox = await db.selectFrom('webhookOutbox').select(['id', 'url']).where('url', 'not like', '%~%').execute();
  return { services, outbox };
}

/** Each replaces the URL only if it is still the one read, so a concurrent settings change wins. */
export const replaceServiceWebhookUrl = (db: Db, id: string, from: string, to: string) =>
  db.updateTable('services').set({ webhookUrl: to }).where('id', '=', id).where('webhookUrl', '=', from).execute();

export const replaceOutboxUrl = (db: Db, id: string, from: string, to: string) =>
  db.updateTable('webhookOutbox').set({ url: to }).where('id', '=', id).where('url', '=', from).execute();
