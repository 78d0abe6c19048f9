import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Db, Dialect } from '../../db/database.ts';
import type { OutboxKind, OutboxStatus, WebhookOutboxTable } from '../../db/schema.ts';

export type OutboxRow = Selectable<WebhookOutboxTable>;

export const insertMessage = (db: Db, row: Insertable<WebhookOutboxTable>) => db.insertInto('webhookOutbox').values(row).execute();

/** The latest time any waiting message of the service may be sent: a new message queues behind it. */
export async function backlogUntil(db: Db, serviceId: string): Promise<number | null> {
  const row = await db
    .selectFrom('webhookOutbox')
    .select((eb) => eb.fn.max('nextAttemptAt').as('until'))
    .where('serviceId', '=', serviceId)
    .where('kind', '=', 'chat')
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return row?.until === null || row?.until === undefined ? null : Number(row.until);
}

/**
 * Claims up to `limit` due messages for one instance in a single statement: pending ones whose time
 * has come, and sending ones whose lease ran out (their instance died). On PostgreSQL the inner
 * select locks with SKIP LOCKED so concurrent claimers take disjoint rows; SQLite runs one writer
 * at a time, so the conditional UPDATE is already exclusive.
 */
export async function claimDue(
  db: Db,
  dialect: Dialect,
  now: number,
  claimToken: string,
  leaseUntil: number,
  limit: number,
  kind: OutboxKind = 'chat',
  serviceId: string | null = null,
) {
  const lock = dialect === 'postgres' ? sql`for update skip locked` : sql``;
  const ofService = serviceId === null ? sql`` : sql`and service_id = ${serviceId}`;
  const result = await sql<OutboxRow>`
    update webhook_outbox
       set status = 'sending', claim_token = ${claimToken}, lease_until = ${leaseUntil}
     where id in (
       select id from webhook_outbox
        where kind = ${kind} ${ofService}
          and ((status = 'pending' and next_attempt_at <= ${now})
           or (status = 'sending' and lease_until < ${now}))
        order by next_attempt_at, id
        limit ${limit}
        ${lock})
       and ((status = 'pending' and next_attempt_at <= ${now}) or (status = 'sending' and lease_until < ${now}))
    returning *`.execute(db);
  return result.rows.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** A (kind, service) pair with something due: one lane of the delivery job (outbox-lanes.ts). */
export interface DueLane {
  kind: OutboxKind;
  serviceId: string;
}

/**
 * The lanes with rows due now, the longest-waiting first, so that when an instance runs as many lanes as it may,
 * the next free slot goes to the service that has waited longest (no service is passed over for ever).
 */
export async function dueLanes(db: Db, now: number, limit: number): Promise<DueLane[]> {
  const result = await sql<{ kind: OutboxKind; serviceId: string; oldest: number | string }>`
    select kind, service_id as "serviceId", min(next_attempt_at) as oldest
      from webhook_outbox
     where (status = 'pending' and next_attempt_at <= ${now}) or (status = 'sending' and lease_until < ${now})
     group by kind, service_id
     order by oldest, service_id
     limit ${limit}`.execute(db);
  return result.rows.map((row) => ({ kind: row.kind, serviceId: row.serviceId }));
}

/** Updates a message only while this claim still holds it, so a stale claimer cannot undo a newer one. */
export const settleClaim = (db: Db, id: string, claimToken: string, patch: Updateable<WebhookOutboxTable>) =>
  db
    .updateTable('webhookOutbox')
    .set({ ...patch, claimToken: null, leaseUntil: null })
    .where('id', '=', id)
    .where('claimToken', '=', claimToken)
    .where('status', '=', 'sending')
    .executeTakeFirst();

/**
 * Extends this claim just before a send: false when the claim was lost (its lease ran out and another
 * instance took the message), in which case this instance must not send it.
 */
export async function renewClaim(db: Db, id: string, claimToken: string, leaseUntil: number): Promise<boolean> {
  const result = await db
    .updateTable('webhookOutbox')
    .set({ leaseUntil })
    .where('id', '=', id)
    .where('claimToken', '=', claimToken)
    .where('status', '=', 'sending')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** The service's webhook as it is now: a queued message follows a changed address and stops when switched off. */
export const currentWebhook = (db: Db, serviceId: string) =>
  db.selectFrom('services').select(['webhookUrl', 'webhookEnabled']).where('id', '=', serviceId).executeTakeFirst();

/** After a 429 every waiting message of the service (of that kind) waits at least as long. */
export const deferService = (db: Db, serviceId: string, until: number, kind: OutboxKind = 'chat') =>
  db
    .updateTable('webhookOutbox')
    .set({ nextAttemptAt: until })
    .where('serviceId', '=', serviceId)
    .where('kind', '=', kind)
    .where('status', '=', 'pending')
    .where('nextAttemptAt', '<', until)
    .execute();

/** One page of a service's messages, newest first, without the URL (it carries the token). */
export async function listMessages(db: Db, serviceId: string, status: OutboxStatus | undefined, offset: number, limit: number) {
  const base = db
    .selectFrom('webhookOutbox')
    .where('serviceId', '=', serviceId)
    .where('kind', '=', 'chat')
    .$if(status !== undefined, (q) => q.where('status', '=', status!));
  const [rows, count] = await Promise.all([
    base
      .select(['id', 'status', 'attempts', 'lastError', 'createdAt', 'deliveredAt', 'nextAttemptAt'])
      .orderBy('id', 'desc')
      .offset(offset)
      .limit(limit)
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.total) };
}

/** Messages waiting to be sent, by status (pending, sending): the outbox depth /metrics reports. */
export async function outboxDepth(db: Db): Promise<Array<{ status: string; count: number }>> {
  const rows = await db
    .selectFrom('webhookOutbox')
    .select((eb) => ['status', eb.fn.countAll<number>().as('count')])
    .where('status', 'in', ['pending', 'sending'])
    .groupBy('status')
    .execute();
  return rows.map((row) => ({ status: row.status, count: Number(row.count) }));
}

/** A service's last given-up rows of one kind, newest first: what the dashboard words as failures. */
export const recentFailures = (db: Db, serviceId: string, kind: OutboxKind, limit: number) =>
  db
    .selectFrom('webhookOutbox')
    .select(['id', 'target', 'payload', 'lastError', 'attempts', 'createdAt'])
    .where('serviceId', '=', serviceId)
    .where('kind', '=', kind)
    .where('status', '=', 'failed')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();

/** Rows of one kind still to send (pending or being sent), with the last error of a retried one. */
export const waitingRows = (db: Db, serviceId: string, kind: OutboxKind, limit: number) =>
  db
    .selectFrom('webhookOutbox')
    .select(['id', 'target', 'payload', 'lastError', 'attempts', 'nextAttemptAt', 'createdAt'])
    .where('serviceId', '=', serviceId)
    .where('kind', '=', kind)
    .where('status', 'in', ['pending', 'sending'])
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
