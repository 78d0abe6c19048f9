import type { AppContext } from '../../context.ts';
import { conflict, notFound } from '../../errors.ts';
import { isUniqueViolation } from '../../db/database.ts';
import { pageOf, type PageRequest } from '../../lib/pagination.ts';
import { iso, parseFutureTime } from '../../lib/time.ts';
import * as repo from './blacklist.repository.ts';
import { recordServiceAudit } from '../audit/audit.service.ts';
import type { Actor } from '../audit/actor.ts';
import type { Db } from '../../db/database.ts';
import { endSessions } from '../sessions/session-ending.service.ts';

export const toBlacklistView = (row: repo.BlacklistRow) => ({
  hwid: row.hwid,
  reason: row.reason,
  expiresAt: iso(row.expiresAt),
  createdAt: iso(row.createdAt)!,
});

export async function listBlacklist(ctx: AppContext, serviceId: string, page: PageRequest, search?: string) {
  const { items, total } = await repo.pageBlacklist(ctx.db, serviceId, { search, offset: page.offset, limit: page.limit });
  return pageOf(items.map(toBlacklistView), total, page);
}

export async function addToBlacklist(
  ctx: AppContext,
  serviceId: string,
  input: { hwid: string; reason?: string; expiresAt?: string | number },
  actor: Actor,
) {
  const now = ctx.clock();
  let expiresAt: number | null = null;
  if (input.expiresAt !== undefined) {
    expiresAt = parseFutureTime('expiresAt', input.expiresAt, now, ' (omit it for a permanent ban)');
  }
  const row = { serviceId, hwid: input.hwid, reason: input.reason ?? null, expiresAt, createdAt: now };
  try {
    await ctx.db.transaction().execute(async (trx) => {
      await repo.deleteLapsedBlacklistEntry(trx, serviceId, input.hwid, now);
      await repo.insertBlacklistEntry(trx, row);
      await recordServiceAudit(trx, actor, serviceId, 'blacklist.add', input.hwid, { reason: row.reason, expiresAt: iso(expiresAt) }, now);
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict('This HWID is already blacklisted');
    throw error;
  }
  // The HWID's running sessions end now, not at their next launch (contract §18).
  await endSessions(ctx, serviceId, { hwid: input.hwid }, 'HWID_BLACKLISTED');
  return row;
}

export async function removeFromBlacklist(ctx: AppContext, serviceId: string, hwid: string, actor: Actor) {
  await ctx.db.transaction().execute(async (trx) => {
    const result = await repo.deleteBlacklistEntry(trx, serviceId, hwid);
    if (Number(result.numDeletedRows) === 0) throw notFound('Blacklist entry');
    await recordServiceAudit(trx, actor, serviceId, 'blacklist.delete', hwid, {}, ctx.clock());
  });
}

/**
 * A key's ban blacklists its HWIDs (Luarmor's blacklist, contract §16.2), in the caller's transaction: each entry carries
 * the ban's reason, end and unban token, so the unban removes exactly these. An HWID already under a ban in force keeps
 * the entry it has (the seller's own, which this ban must not take over).
 */
export async function blacklistForBan(
  trx: Db,
  serviceId: string,
  hwids: readonly string[],
  ban: { reason: string | null; expiresAt: number | null; unbanToken: string },
  actor: Actor,
  now: number,
) {
  for (const hwid of hwids) {
    await repo.deleteLapsedBlacklistEntry(trx, serviceId, hwid, now);
    const added = await repo.insertBlacklistEntryIfAbsent(trx, {
      serviceId,
      hwid,
      reason: ban.reason,
      expiresAt: ban.expiresAt,
      createdAt: now,
      unbanToken: ban.unbanToken,
    });
    if (added)
      await recordServiceAudit(trx, actor, serviceId, 'blacklist.add', hwid, { reason: ban.reason, expiresAt: iso(ban.expiresAt) }, now);
  }
}

/** The unban of a key's ban: the entries that ban made go (each audited as blacklist.delete). */
export async function removeBanEntries(trx: Db, serviceId: string, unbanToken: string, actor: Actor, now: number) {
  for (const hwid of await repo.deleteEntriesOfBan(trx, serviceId, unbanToken)) {
    await recordServiceAudit(trx, actor, serviceId, 'blacklist.delete', hwid, {}, now);
  }
}

export async function checkBlacklist(ctx: AppContext, serviceId: string, hwid: string) {
  const row = await repo.findBanInForce(ctx.db, serviceId, hwid, ctx.clock());
  return { hwid, blacklisted: row !== undefined, reason: row?.reason ?? null, expiresAt: iso(row?.expiresAt) };
}

/** For validation (is this HWID banned now?) and the service status page (how many bans are in force). */
export { countBansInForce, findBanInForce } from './blacklist.repository.ts';
