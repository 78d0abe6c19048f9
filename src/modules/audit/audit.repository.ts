import type { Selectable } from 'kysely';
import type { Db } from '../../db/database.ts';
import { newId } from '../../lib/random.ts';
import type { AuditLogTable } from '../../db/schema.ts';
import type { Actor, AuditAction, AuditDetails, ServiceAuditAction } from './actor.ts';

export interface AuditEntryInput {
  action: AuditAction;
  /** The account that owns what changed (the service's owner for service actions). */
  accountId: string | null;
  /** The service changed or acted on; null for account-wide actions (login, account key, two-factor). */
  serviceId: string | null;
  /** The key, HWID, script or service changed, or null. */
  target: string | null;
  details?: AuditDetails;
  /** Epoch ms; the caller's clock so tests control it. */
  at: number;
}

/** The door an action came through (contract §24.3: `via: "discord"`), so one domain call writes the entry for all. */
const withVia = (actor: Actor, details: AuditDetails): AuditDetails => (actor.via ? { ...details, via: actor.via } : details);

/**
 * Writes one audit entry. Pass the transaction that makes the change (a Kysely Transaction is a Db), so
 * the entry and the change commit or roll back together.
 */
export async function recordAudit(db: Db, actor: Actor, entry: AuditEntryInput): Promise<void> {
  await db
    .insertInto('auditLog')
    .values({
      id: newId(),
      at: entry.at,
      accountId: entry.accountId,
      serviceId: entry.serviceId,
      action: entry.action,
      actorKind: actor.kind,
      actorAccountId: actor.accountId,
      actorUsername: actor.username ?? null,
      ip: actor.ip,
      target: entry.target,
      details: JSON.stringify(withVia(actor, entry.details ?? {})),
    })
    .execute();
}

/**
 * A service action: the entry belongs to the service and to the service's owner. Callers holding only the
 * service id pass it alone; the owner is then read from the services table inside the same statement.
 */
export async function recordServiceAudit(
  db: Db,
  actor: Actor,
  service: string | { id: string; accountId: string },
  action: ServiceAuditAction,
  target: string | null,
  details: AuditDetails,
  at: number,
): Promise<void> {
  const serviceId = typeof service === 'string' ? service : service.id;
  await db
    .insertInto('auditLog')
    .values({
      id: newId(),
      at,
      accountId:
        typeof service === 'string' ? db.selectFrom('services').select('accountId').where('id', '=', serviceId) : service.accountId,
      serviceId,
      action,
      actorKind: actor.kind,
      actorAccountId: actor.accountId,
      actorUsername: actor.username ?? null,
      ip: actor.ip,
      target,
      details: JSON.stringify(withVia(actor, details)),
    })
    .execute();
}

export interface AuditFilter {
  serviceId?: string;
  accountId?: string;
  action?: string;
  /** Entries made by this account (contract §17: GET /keys/api/audit?actor=). */
  actor?: string;
  from?: number;
  to?: number;
}

function filtered(db: Db, filter: AuditFilter) {
  let query = db.selectFrom('auditLog');
  if (filter.serviceId !== undefined) query = query.where('serviceId', '=', filter.serviceId);
  if (filter.accountId !== undefined) query = query.where('accountId', '=', filter.accountId);
  if (filter.action !== undefined) query = query.where('action', '=', filter.action);
  if (filter.actor !== undefined) query = query.where('actorAccountId', '=', filter.actor);
  if (filter.from !== undefined) query = query.where('at', '>=', filter.from);
  if (filter.to !== undefined) query = query.where('at', '<=', filter.to);
  return query;
}

/** Newest first; the id breaks ties between entries of the same millisecond so pages never overlap. */
export async function listAudit(
  db: Db,
  filter: AuditFilter,
  limit: number,
  offset: number,
): Promise<{ rows: Selectable<AuditLogTable>[]; total: number }> {
  const [rows, count] = await Promise.all([
    filtered(db, filter)
      .select(['id', 'at', 'accountId', 'serviceId', 'action', 'actorKind', 'actorAccountId', 'actorUsername', 'ip', 'target', 'details'])
      .orderBy('at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute(),
    filtered(db, filter)
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.total) };
}

/** Removes entries older than the cutoff in slices, so one prune never holds a long lock. Answers how many went. */
export async function pruneAudit(db: Db, before: number, batch = 5000): Promise<number> {
  let removed = 0;
  for (;;) {
    const ids = db.selectFrom('auditLog').select('id').where('at', '<', before).limit(batch);
    const result = await db.deleteFrom('auditLog').where('id', 'in', ids).executeTakeFirst();
    const count = Number(result.numDeletedRows);
    removed += count;
    if (count < batch) return removed;
  }
}
