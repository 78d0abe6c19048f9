import type { AppContext } from '../../context.ts';
import { AppError, conflict, notFound } from '../../errors.ts';
import { iso } from '../../lib/time.ts';
import * as repo from './keys.repository.ts';
import { recordServiceAudit } from '../audit/audit.service.ts';
import { resellerScope, type Actor } from '../audit/actor.ts';
import { emitEvent, keyEventData } from '../events/events.service.ts';
import { endSessions } from '../sessions/session-ending.service.ts';
import { actionFingerprint } from '../../lib/fingerprint.ts';
import { resetNotice } from '../chat/chat-notices.service.ts';

// Resetting a key's HWID (contract §4: POST /keys/reset-hwid, the self-serve page, the Discord command): one cooldown rule.

export interface ResetResult {
  key: string;
  hwid: null;
  hwidResetAt: string;
  nextResetAt: string;
}

/** What an HWID reset came to. Refusals are expected answers, not failures: each caller words them its way. */
export type ResetOutcome =
  { kind: 'reset'; result: ResetResult } | { kind: 'cooldown'; retryAfter: number } | { kind: 'not-bound' } | { kind: 'not-found' };

/** Shared by the API route, the self-serve page and chat commands: one cooldown rule. */
export async function resetHwid(
  ctx: AppContext,
  service: { id: string; hwidResetCooldownFreeHours: number; hwidResetCooldownPremiumHours: number },
  key: string,
  actor: Actor,
  /** force: the seller's own reset, not held to the end-user cooldown (Luarmor's `force`, contract §16.2). */
  options: { force?: boolean } = {},
): Promise<ResetOutcome> {
  const now = ctx.clock();
  const row = await repo.findActiveKey(ctx.db, service.id, key);
  // A reseller resets only keys it created (contract §17); another's is answered as missing.
  const scope = resellerScope(actor);
  if (scope !== null && (row ? row.createdBy : (await repo.keyCreator(ctx.db, service.id, key))?.createdBy) !== scope) {
    return { kind: 'not-found' };
  }
  if (!row) return { kind: (await repo.findGeneratedKey(ctx.db, service.id, key)) ? 'not-bound' : 'not-found' };
  const cooldownMs = (row.isPremium === 1 ? service.hwidResetCooldownPremiumHours : service.hwidResetCooldownFreeHours) * 3_600_000;
  let noticed = false;
  const reset = await ctx.db.transaction().execute(async (trx) => {
    const result = await repo.resetHwidIfAllowed(trx, service.id, key, now, options.force ? now : now - cooldownMs);
    if (Number(result.numUpdatedRows) !== 1) return false;
    await repo.replaceHwids(trx, service.id, key, []);
    await recordServiceAudit(trx, actor, service.id, 'key.resetHwid', key, options.force ? { force: true } : {}, now);
    await emitEvent(trx, service.id, 'key.hwidReset', keyEventData(service.id, { ...row, hwid: null }), now);
    // Contract §24.4: a buyer's reset (and a staff member's from Discord) tells the staff channel, with the fingerprint
    // that shows one key reset from many places. The new HWID binds at the next run, so it is not known yet.
    if (actor.kind === 'end-user' || actor.via === 'discord') {
      const fingerprint = actionFingerprint({ ip: actor.ip, executor: null, oldHwid: row.hwid, newHwid: null });
      noticed = await resetNotice(trx, service.id, key, actor, fingerprint, options.force === true, now);
    }
    return true;
  });
  // Sessions run under the old binding: they end now (contract §18).
  if (reset) await endSessions(ctx, service.id, { key }, 'HWID_RESET');
  if (noticed) ctx.jobs.kick('webhook-delivery');
  if (reset) return { kind: 'reset', result: { key, hwid: null, hwidResetAt: iso(now)!, nextResetAt: iso(now + cooldownMs)! } };
  // The conditional update refused: find out why from the row as it is now.
  const current = await repo.findActiveKey(ctx.db, service.id, key);
  if (!current) return { kind: 'not-found' };
  if (current.hwid === null) return { kind: 'not-bound' };
  const nextAt = (current.hwidResetAt ?? now) + cooldownMs;
  return { kind: 'cooldown', retryAfter: Math.max(1, Math.ceil((nextAt - now) / 1000)) };
}

/** The API's answer to a reset (POST /keys/reset-hwid and the self-serve page's route): the result, or the contract's error. */
export function resetAnswer(outcome: ResetOutcome): ResetResult {
  switch (outcome.kind) {
    case 'reset':
      return outcome.result;
    case 'not-found':
      throw notFound('Key');
    case 'not-bound':
      throw conflict('This key is not bound to an HWID');
    case 'cooldown':
      throw new AppError('HWID_RESET_COOLDOWN', `This key's HWID was reset recently; try again in ${outcome.retryAfter} seconds`, {
        retryAfter: outcome.retryAfter,
      });
  }
}
