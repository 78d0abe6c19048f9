// Bulk actions (contract §7.3): one action on up to 1,000 of a service's keys, in one transaction with its audit entry.
import type { AppContext } from '../../context.ts';
import { invalid, notFound } from '../../errors.ts';
import { DAY_MS, iso, LATEST_TIME_MS } from '../../lib/time.ts';
import { recordServiceAudit } from '../audit/audit.service.ts';
import { resellerScope, type Actor } from '../audit/actor.ts';
import * as repo from './keys-bulk.repository.ts';
import { findServiceAccess, getAccountService, roleMay } from '../services/services.service.ts';
import type { KeyStatus } from './keys.service.ts';
import { findActiveKey, findGeneratedKey } from './keys.repository.ts';
import { chatIdsOfKeys, syncChatRoles } from '../discord-role/discord-role.service.ts';
import { emitEvent, hasEventEndpoints, keyEventData, type EventType } from '../events/events.service.ts';
import type { Db } from '../../db/database.ts';
import { inTransaction } from '../../db/transaction.ts';
import { lockKeyRows } from './key-locks.repository.ts';
import { banPatch } from './key-bans.ts';
import { endSessions, type EndReason } from '../sessions/session-ending.service.ts';

const EVENT_OF: Partial<Record<BulkAction, EventType>> = { ban: 'key.banned', delete: 'key.deleted', resetHwid: 'key.hwidReset' };

/** Each key's event data, read inside the bulk's transaction (before a delete, after any other change). */
async function keyEvents(trx: Db, serviceId: string, active: string[], generated: string[]) {
  const rows = [];
  for (const key of active) {
    const row = await findActiveKey(trx, serviceId, key);
    if (row) rows.push(keyEventData(serviceId, row));
  }
  for (const key of generated) {
    const row = await findGeneratedKey(trx, serviceId, key);
    if (row) rows.push(keyEventData(serviceId, { ...row, hwid: null }));
  }
  return rows;
}

export type BulkAction = 'delete' | 'ban' | 'pause' | 'activate' | 'resetHwid' | 'extend' | 'setNote' | 'move';

export interface BulkInput {
  action: BulkAction;
  keys: string[];
  days?: number;
  note?: string;
  toService?: string;
  /** `ban`: the reason; `days` then ends the ban (contract §19). */
  reason?: string;
}

/** As a single extension: an afterRedeem key runs at most this long once redeemed (about 100 years). */
const MAX_DURATION_DAYS = 36_500;

/** Why a bulk action ends the keys' live sessions; a moved key is no longer this service's. */
const SESSION_END_OF: Partial<Record<BulkAction, EndReason>> = {
  ban: 'KEY_BANNED',
  pause: 'KEY_PAUSED',
  delete: 'KEY_DELETED',
  resetHwid: 'HWID_RESET',
  move: 'KEY_DELETED',
};

const STATUS_OF: Partial<Record<BulkAction, KeyStatus>> = { ban: 'banned', pause: 'paused', activate: 'active' };

function checkBulkInput(input: BulkInput) {
  if (input.action === 'extend' && input.days === undefined) throw invalid('days', 'days is required when action is extend');
  if (input.action !== 'extend' && input.action !== 'ban' && input.days !== undefined)
    throw invalid('days', 'days is only used when action is extend or ban');
  if (input.action !== 'ban' && input.reason !== undefined) throw invalid('reason', 'reason is only used when action is ban');
  if (input.action === 'setNote' && input.note === undefined) throw invalid('note', 'note is required when action is setNote');
  if (input.action !== 'setNote' && input.note !== undefined) throw invalid('note', 'note is only used when action is setNote');
  if (input.action === 'move' && input.toService === undefined) throw invalid('toService', 'toService is required when action is move');
  if (input.action !== 'move' && input.toService !== undefined) throw invalid('toService', 'toService is only used when action is move');
}

/**
 * Where a bulk move may put keys (contract §27): one of the owner's services in which the acting account may generate
 * keys. A member (a manager) is a stranger to the owner's other services unless it is a member there too; such a
 * target reads as one that does not exist.
 */
async function moveTarget(ctx: AppContext, actor: Actor, ownerAccountId: string, ref: string) {
  const destination = await getAccountService(ctx, ownerAccountId, ref);
  if (actor.role === undefined || actor.role === 'owner' || actor.accountId === null) return destination;
  const access = await findServiceAccess(ctx.db, actor.accountId, ref);
  if (access?.service.id !== destination.id || !roleMay(access.role, 'keys.generate')) throw notFound('Service');
  return destination;
}

/** All of it happens or none: one transaction, and the audit entry commits with it. */
/** `service` is the caller's service (its owner is the audit entry's account). */
export async function bulkKeys(ctx: AppContext, actor: Actor, service: { id: string; accountId: string }, input: BulkInput) {
  const serviceId = service.id;
  checkBulkInput(input);
  const now = ctx.clock();
  // Keys are unique per server, so importing an export into a second service is a 409; moving is the way.
  // Only the caller's account's own services are targets: another account's looks like one that does not exist.
  const destination = input.action === 'move' ? await moveTarget(ctx, actor, service.accountId, input.toService!) : null;
  if (destination && destination.id === serviceId) throw invalid('toService', 'toService is the service the keys are already in');
  const result = await inTransaction(ctx.db, async (trx) => {
    // The keys' rows are locked before they are read, in the order every time edit uses (contract §27): two bulk
    // actions on overlapping keys wait for each other rather than deadlock, and each acts on the keys as they are.
    await lockKeyRows(trx, serviceId, input.keys);
    const found = await repo.existingOfService(trx, serviceId, input.keys, resellerScope(actor));
    const known = new Set([...found.active, ...found.generated].map((r) => r.key));
    // Another service's keys are indistinguishable from keys that do not exist.
    const notFound = input.keys.filter((k) => !known.has(k));
    const active = found.active.map((r) => r.key);
    const generated = found.generated.map((r) => r.key);
    let skipped: string[] = [];
    const roleUsers = ['delete', 'ban', 'pause', 'activate'].includes(input.action) ? await chatIdsOfKeys(trx, serviceId, active) : [];
    const eventType = EVENT_OF[input.action];
    const emits = eventType !== undefined && (await hasEventEndpoints(trx, serviceId));
    // A deleted key's data is read before it goes.
    const deletedEvents = emits && input.action === 'delete' ? await keyEvents(trx, serviceId, active, generated) : [];
    switch (input.action) {
      case 'delete':
        await repo.deleteKeys(trx, serviceId, active, generated);
        break;
      case 'ban':
      case 'pause':
      case 'activate':
        await repo.patchKeys(trx, serviceId, active, generated, {
          status: STATUS_OF[input.action],
          // A ban writes its reason and end; any other status clears them (contract §19).
          ...banPatch(STATUS_OF[input.action]!, {
            reason: input.reason,
            expiresAt: input.days === undefined ? null : now + input.days * DAY_MS,
          }),
        });
        break;
      case 'setNote':
        // An empty note clears it, as a null note would.
        await repo.patchKeys(trx, serviceId, active, generated, { note: input.note === '' ? null : input.note });
        break;
      case 'resetHwid': {
        const bound = found.active.filter((r) => r.hwidCount > 0).map((r) => r.key);
        const boundSet = new Set(bound);
        skipped = [...active.filter((k) => !boundSet.has(k)), ...generated];
        await repo.clearHwids(trx, serviceId, bound);
        break;
      }
      case 'move':
        await repo.moveKeys(trx, serviceId, destination!.id, active, generated);
        break;
      case 'extend': {
        const ms = input.days! * DAY_MS;
        const rows = [...found.active, ...found.generated];
        // Keys whose time starts at first use (unused, or bound before it: §23) get longer instead; lifetime keys are
        // left alone.
        const waiting = found.generated.filter((r) => r.durationDays !== null).map((r) => r.key);
        const waitingActive = found.active.filter((r) => r.pendingDays !== null).map((r) => r.key);
        const waitingSet = new Set([...waiting, ...waitingActive]);
        skipped = rows.filter((r) => r.expiresAt === null && !waitingSet.has(r.key)).map((r) => r.key);
        const latest = Math.max(now, ...rows.map((r) => r.expiresAt ?? 0)) + ms;
        if (latest > LATEST_TIME_MS) throw invalid('days', `days would take an expiry past ${iso(LATEST_TIME_MS)}`);
        await repo.extendKeys(
          trx,
          serviceId,
          'activeKeys',
          found.active.filter((r) => r.expiresAt !== null).map((r) => r.key),
          ms,
          now,
        );
        await repo.extendKeys(
          trx,
          serviceId,
          'generatedKeys',
          found.generated.filter((r) => r.expiresAt !== null).map((r) => r.key),
          ms,
          now,
        );
        if ((await repo.lengthenAfterRedeem(trx, serviceId, waiting, input.days!, waitingActive)) > MAX_DURATION_DAYS)
          throw invalid('days', `days would make a key run more than ${MAX_DURATION_DAYS} days from its redemption`);
        break;
      }
    }
    await syncChatRoles(trx, serviceId, roleUsers, now);
    if (emits) {
      const skippedSet = new Set(skipped);
      const data =
        input.action === 'delete'
          ? deletedEvents
          : await keyEvents(
              trx,
              serviceId,
              active.filter((k) => !skippedSet.has(k)),
              input.action === 'resetHwid' ? [] : generated,
            );
      for (const item of data) await emitEvent(trx, serviceId, eventType!, item, now);
    }
    const updated = known.size - skipped.length;
    const details: Record<string, unknown> = { action: input.action, updated, notFound: notFound.length, skipped: skipped.length };
    if (input.days !== undefined) details.days = input.days;
    if (input.note !== undefined) details.note = input.note;
    if (input.reason !== undefined) details.reason = input.reason;
    if (destination) {
      details.toService = destination.identifier;
      // The receiving service's log says where its new keys came from.
      await recordServiceAudit(
        trx,
        actor,
        destination,
        'keys.bulk',
        known.size === 1 ? [...known][0]! : null,
        { ...details, fromService: serviceId },
        now,
      );
    }
    // One key (a row's own button) names it as the target, so the log can say which key was banned.
    const target = known.size === 1 ? [...known][0]! : null;
    await recordServiceAudit(trx, actor, service, 'keys.bulk', target, details, now);
    return { action: input.action, updated, notFound, skipped };
  });
  // What makes these keys' verdict refused ends their running sessions now (contract §18).
  const reason = SESSION_END_OF[input.action];
  if (reason) {
    const untouched = new Set([...result.notFound, ...result.skipped]);
    for (const key of new Set(input.keys)) if (!untouched.has(key)) await endSessions(ctx, serviceId, { key }, reason);
  }
  return result;
}
