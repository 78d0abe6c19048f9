import type { AppContext } from '../../context.ts';
import { conflict, notFound } from '../../errors.ts';
import { isUniqueViolation } from '../../db/database.ts';
import { addCalendarYear, iso, parseFutureTime } from '../../lib/time.ts';
import { pageOf, type PageRequest } from '../../lib/pagination.ts';
import * as repo from './keyless.repository.ts';
import { recordServiceAudit } from '../audit/audit.service.ts';
import type { Actor } from '../audit/actor.ts';

export const toKeylessView = (row: repo.KeylessRow) => ({
  hwid: row.hwid,
  isPremium: row.isPremium === 1,
  expiresAt: iso(row.expiresAt)!,
  createdAt: iso(row.createdAt)!,
});

export async function listKeyless(ctx: AppContext, serviceId: string, page: PageRequest, search?: string) {
  const { items, total } = await repo.pageKeyless(ctx.db, serviceId, { search, offset: page.offset, limit: page.limit });
  return pageOf(items.map(toKeylessView), total, page);
}

export async function getKeyless(ctx: AppContext, serviceId: string, hwid: string) {
  const row = await repo.findKeyless(ctx.db, serviceId, hwid);
  if (!row) throw notFound('Keyless entry');
  return row;
}

export async function addKeyless(
  ctx: AppContext,
  serviceId: string,
  input: { hwid: string; isPremium?: boolean; expiresAt?: string | number },
  actor: Actor,
) {
  const now = ctx.clock();
  let expiresAt = addCalendarYear(now);
  if (input.expiresAt !== undefined) expiresAt = parseFutureTime('expiresAt', input.expiresAt, now);
  const row = { serviceId, hwid: input.hwid, isPremium: input.isPremium ? 1 : 0, expiresAt, createdAt: now } as const;
  try {
    await ctx.db.transaction().execute(async (trx) => {
      await repo.deleteExpiredKeyless(trx, serviceId, input.hwid, now);
      await repo.insertKeyless(trx, row);
      await recordServiceAudit(
        trx,
        actor,
        serviceId,
        'keyless.add',
        input.hwid,
        { isPremium: row.isPremium === 1, expiresAt: iso(expiresAt) },
        now,
      );
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict('This HWID is already whitelisted');
    throw error;
  }
  return row;
}

export async function removeKeyless(ctx: AppContext, serviceId: string, hwid: string, actor: Actor) {
  await ctx.db.transaction().execute(async (trx) => {
    const result = await repo.deleteKeyless(trx, serviceId, hwid);
    if (Number(result.numDeletedRows) === 0) throw notFound('Keyless entry');
    await recordServiceAudit(trx, actor, serviceId, 'keyless.delete', hwid, {}, ctx.clock());
  });
}

/** For validation (is this HWID whitelisted?) and the service status page (how many entries). */
export { countKeyless, findKeyless } from './keyless.repository.ts';
