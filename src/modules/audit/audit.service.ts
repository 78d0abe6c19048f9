import type { AppContext } from '../../context.ts';
import { invalid } from '../../errors.ts';
import { pageOf, type PageRequest } from '../../lib/pagination.ts';
import { DAY_MS, iso, parseQueryTime } from '../../lib/time.ts';
import { listAudit, pruneAudit, type AuditFilter } from './audit.repository.ts';
import type { Selectable } from 'kysely';
import type { AuditLogTable } from '../../db/schema.ts';

export interface AuditQuery {
  action?: string;
  actor?: string;
  from?: string;
  to?: string;
}

function filterOf(query: AuditQuery): AuditFilter {
  const from = query.from === undefined ? undefined : parseQueryTime('from', query.from);
  const to = query.to === undefined ? undefined : parseQueryTime('to', query.to);
  if (from !== undefined && to !== undefined && from > to) throw invalid('from', 'from must not be after to');
  return { action: query.action, actor: query.actor, from, to };
}

export function toAuditView(row: Selectable<AuditLogTable>) {
  return {
    id: row.id,
    at: iso(row.at)!,
    action: row.action,
    actor: { kind: row.actorKind, accountId: row.actorAccountId, username: row.actorUsername },
    ip: row.ip,
    target: row.target,
    details: JSON.parse(row.details) as Record<string, unknown>,
  };
}

async function page(ctx: AppContext, filter: AuditFilter, request: PageRequest) {
  const { rows, total } = await listAudit(ctx.db, filter, request.limit, request.offset);
  return pageOf(rows.map(toAuditView), total, request);
}

/** A service's entries (service actions on it, and the account actions that named it). */
export const listServiceAudit = (ctx: AppContext, serviceId: string, query: AuditQuery, request: PageRequest) =>
  page(ctx, { ...filterOf(query), serviceId }, request);

/** Everything in an account's log: its account actions and the service actions on all its services. */
export const listAccountAudit = (ctx: AppContext, accountId: string, query: AuditQuery, request: PageRequest) =>
  page(ctx, { ...filterOf(query), accountId }, request);

/** Drops entries older than AUDIT_RETENTION_DAYS. */
export const pruneExpiredAudit = (ctx: AppContext) => pruneAudit(ctx.db, ctx.clock() - ctx.config.auditRetentionDays * DAY_MS);

/**
 * Writing an entry, for every other module: pass the executor that makes the change (a Kysely transaction is one), so
 * the entry and the change commit or roll back together. `recordServiceAudit` files a service action under the
 * service and its owner; `recordAudit` an account action.
 */
export { recordAudit, recordServiceAudit } from './audit.repository.ts';
