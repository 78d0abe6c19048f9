import type { Db } from '../../db/database.ts';
import { newId } from '../../lib/random.ts';
import type { AuditLogTable } from '../../db/schema.ts';

/** Contract §7.6: who made a change. */
export type ActorKind = 'service-key' | 'account-key' | 'session' | 'end-user' | 'system';

/**
 * Who made a change, handed from the route (or job) into the domain call, so domain code records
 * the entry in its own transaction without knowing about HTTP.
 */
export interface Actor {
  kind: ActorKind;
  /** The account behind the caller's key or session; null for an end user or the system. */
  accountId: string | null;
  ip: string | null;
}

export const SERVICE_ACTIONS = [
  'key.generate',
  'key.update',
  'key.delete',
  'key.extend',
  'key.resetHwid',
  'keys.bulk',
  'keys.import',
  'keys.compensate',
  'keyless.add',
  'keyless.delete',
  'blacklist.add',
  'blacklist.delete',
  'settings.update',
  'chat.connect',
  'chat.disconnect',
  'script.create',
  'script.update',
  'script.delete',
  'keySystem.update',
  // Selling (contract §12.2).
  'product.create',
  'product.update',
  'product.delete',
  'shop.update',
  'order.delivered',
  // Event webhooks (contract §12.4).
  'eventEndpoint.create',
  'eventEndpoint.delete',
] as const;

export const ACCOUNT_ACTIONS = [
  'service.create',
  'service.update',
  'service.delete',
  'serviceKey.regenerate',
  'accountKey.regenerate',
  'permissions.update',
  'ipAllowlist.update',
  'login',
  'login.failed',
  'twoFactor.enable',
  'twoFactor.disable',
] as const;

export const AUDIT_ACTIONS = [...SERVICE_ACTIONS, ...ACCOUNT_ACTIONS] as const;
export type ServiceAuditAction = (typeof SERVICE_ACTIONS)[number];
export type AccountAuditAction = (typeof ACCOUNT_ACTIONS)[number];
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** Plain data only: callers list what changed and never put a secret (key, token, password, code) in here. */
export type AuditDetails = Record<string, unknown>;

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
      ip: actor.ip,
      target: entry.target,
      details: JSON.stringify(entry.details ?? {}),
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
      ip: actor.ip,
      target,
      details: JSON.stringify(details),
    })
    .execute();
}

export const SYSTEM_ACTOR: Actor = { kind: 'system', accountId: null, ip: null };
export const endUserActor = (ip: string | null): Actor => ({ kind: 'end-user', accountId: null, ip });

export interface AuditFilter {
  serviceId?: string;
  accountId?: string;
  action?: string;
  from?: number;
  to?: number;
}

function filtered(db: Db, filter: AuditFilter) {
  let query = db.selectFrom('auditLog');
  if (filter.serviceId !== undefined) query = query.where('serviceId', '=', filter.serviceId);
  if (filter.accountId !== undefined) query = query.where('accountId', '=', filter.accountId);
  if (filter.action !== undefined) query = query.where('action', '=', filter.action);
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
): Promise<{ rows: AuditLogTable[]; total: number }> {
  const [rows, count] = await Promise.all([
    filtered(db, filter)
      .select(['id', 'at', 'accountId', 'serviceId', 'action', 'actorKind', 'actorAccountId', 'ip', 'target', 'details'])
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
