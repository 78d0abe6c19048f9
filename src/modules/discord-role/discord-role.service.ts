import type { AppContext } from '../../context.ts';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import { iso } from '../../lib/time.ts';
import { OutboundNetworkError, OutboundRefused, send, type OutboundPolicy, type OutboundResponse } from '../../net/outbound.ts';
import type { ServiceRow } from '../services/services.service.ts';
import { dayLongRetryDelayMs, enqueueOutbox, outboxReport, type OutboxAttempt, type OutboxSender } from '../webhook/outbox.service.ts';
import { retryAfterMs } from '../webhook/webhook.service.ts';
import * as repo from './discord-role.repository.ts';

/**
 * The Discord buyer role (contract §12.3). discord_role_members holds the users Keyward granted the role to; every
 * change that can make a user's keys valid or not calls syncChatRoles in its own transaction, which adds or removes
 * the member row and queues the one PUT or DELETE that goes with it (the row decides, so two concurrent changes
 * send one call). The sweep (discord-role.job.ts) does the same for expiry, which no request notices, and repairs
 * anything a path without a sync changed.
 */

export const DISCORD_ORIGIN = 'https://discord.com';

/** Discord itself is a platform origin (public addresses only); another DISCORD_API_URL is the operator's (tests). */
export function discordPolicy(config: Config): OutboundPolicy {
  const origin = new URL(config.discordApiUrl).origin;
  return {
    platformOrigins: origin === DISCORD_ORIGIN ? [origin] : [],
    explicitOrigins: origin === DISCORD_ORIGIN ? [] : [origin],
    timeoutMs: 10_000,
    maxResponseBytes: 64 * 1024,
  };
}

interface RoleCall {
  method: 'PUT' | 'DELETE';
  guildId: string;
  userId: string;
  roleId: string;
}

type RoleSettings = { chatGuildId: string | null; chatRoleId: string | null; chatBotTokenSealed: string | null };
const configured = (s: RoleSettings | undefined): s is { chatGuildId: string; chatRoleId: string; chatBotTokenSealed: string } =>
  Boolean(s?.chatGuildId && s.chatRoleId && s.chatBotTokenSealed);

const rolePath = (call: Omit<RoleCall, 'method'>) => `/api/v10/guilds/${call.guildId}/members/${call.userId}/roles/${call.roleId}`;

/**
 * Brings the role of each named user in line with their keys, inside the caller's transaction (`now` is the
 * change's time). Null ids (keys without a chat id) are ignored.
 */
export async function syncChatRoles(trx: Db, serviceId: string, chatIds: ReadonlyArray<string | null>, now: number): Promise<number> {
  // In one order everywhere, so two changes locking several users' rows never wait on each other in a circle.
  const ids = [...new Set(chatIds.filter((id): id is string => typeof id === 'string' && id.length > 0))].sort();
  if (ids.length === 0) return 0;
  const settings = await repo.roleSettings(trx, serviceId);
  let queued = 0;
  for (const userId of ids) {
    await repo.lockMember(trx, serviceId, userId);
    const valid = configured(settings) && (await repo.holdsValidKey(trx, serviceId, userId, now));
    if (valid) {
      if (!(await repo.addMember(trx, serviceId, userId, now))) continue;
    } else if (!(await repo.removeMember(trx, serviceId, userId)) || !configured(settings)) {
      // Not a member, or the role is no longer set up (nothing to call: the row only goes).
      continue;
    }
    const call: RoleCall = { method: valid ? 'PUT' : 'DELETE', guildId: settings!.chatGuildId!, userId, roleId: settings!.chatRoleId! };
    await enqueueOutbox(trx, { kind: 'discordRole', serviceId, target: userId, url: rolePath(call), payload: JSON.stringify(call), now });
    queued += 1;
  }
  return queued;
}

/**
 * "Get role" (contract §24.2): when the user holds a valid key, queues the grant now even if Keyward already granted it
 * once (a user who lost the role in Discord gets it back). False when there is nothing to grant.
 */
export async function grantRoleNow(trx: Db, serviceId: string, userId: string, now: number): Promise<boolean> {
  const settings = await repo.roleSettings(trx, serviceId);
  if (!configured(settings)) return false;
  await repo.lockMember(trx, serviceId, userId);
  if (!(await repo.holdsValidKey(trx, serviceId, userId, now))) return false;
  await repo.addMember(trx, serviceId, userId, now);
  const call: RoleCall = { method: 'PUT', guildId: settings.chatGuildId, userId, roleId: settings.chatRoleId };
  await enqueueOutbox(trx, { kind: 'discordRole', serviceId, target: userId, url: rolePath(call), payload: JSON.stringify(call), now });
  return true;
}

/** The chat ids of some of the service's active keys, for a change about to touch them (read before a delete). */
export const chatIdsOfKeys = (db: Db, serviceId: string, keys: readonly string[]) => repo.chatIdsOfKeys(db, serviceId, keys);

/** A changed role or server: the members of the old one are forgotten, and the sweep grants the new one. */
export const forgetRoleMembers = (db: Db, serviceId: string) => repo.forgetMembers(db, serviceId);

const SWEEP_BATCH = 500;

/** The wait before refused grant n is tried again: 1 min, doubling, never more than an hour apart (contract §22). */
export const refusedRetryDelayMs = (refusals: number) => Math.min(3_600_000, 60_000 * 2 ** Math.max(0, refusals - 1));

/**
 * Queues the grant again for refused members whose try is due (all of the service's when `now` is null), each taken
 * by one caller only. The sender checks membership before it sends, so a user who lost the key since gets nothing.
 */
async function retryRefused(db: Db, serviceId: string | null, now: number | null, at: number): Promise<number> {
  let queued = 0;
  for (const row of await repo.refusedDue(db, serviceId, now, SWEEP_BATCH)) {
    queued += await db.transaction().execute(async (trx) => {
      const settings = await repo.roleSettings(trx, row.serviceId);
      if (!configured(settings) || !(await repo.takeRetry(trx, row.serviceId, row.chatId, row.retryAt!))) return 0;
      const call: RoleCall = { method: 'PUT', guildId: settings.chatGuildId, userId: row.chatId, roleId: settings.chatRoleId };
      await enqueueOutbox(trx, {
        kind: 'discordRole',
        serviceId: row.serviceId,
        target: row.chatId,
        url: rolePath(call),
        payload: JSON.stringify(call),
        now: at,
      });
      return 1;
    });
  }
  return queued;
}

/**
 * "Save Discord role": the seller fixed something in Discord or here, so every grant Discord refused is tried again
 * at once, not at its next retry time. Called after the settings committed.
 */
export async function retryRefusedGrants(ctx: AppContext, serviceId: string): Promise<number> {
  const queued = await retryRefused(ctx.db, serviceId, null, ctx.clock());
  if (queued > 0) ctx.jobs.kick('webhook-delivery');
  return queued;
}

/** One sweep: grants missed, refused grants due again, revocations due (keys that expired since); every 30 s. */
export async function sweepChatRoles(ctx: AppContext): Promise<number> {
  const now = ctx.clock();
  const due = [...(await repo.staleMembers(ctx.db, now, SWEEP_BATCH)), ...(await repo.missingMembers(ctx.db, now, SWEEP_BATCH))];
  let queued = 0;
  for (const { serviceId, chatId } of due) {
    queued += await ctx.db.transaction().execute((trx) => syncChatRoles(trx, serviceId, [chatId], now));
  }
  queued += await retryRefused(ctx.db, null, now, now);
  if (queued > 0) ctx.jobs.kick('webhook-delivery');
  return queued;
}

/** What a Discord answer means for the seller, in words (the dashboard shows them as they are). */
function refusal(response: OutboundResponse, call: RoleCall): OutboxAttempt {
  switch (response.status) {
    case 401:
      return { kind: 'permanent', error: 'Discord refused the bot token (401): paste the token of your bot again' };
    case 403:
      return {
        kind: 'permanent',
        error:
          "Discord refused (403): the bot needs the Manage Roles permission, and its own role must sit above the buyer role in the server's role list",
      };
    case 404:
      return call.method === 'DELETE'
        ? { kind: 'skipped', reason: 'the user is no longer in the Discord server' }
        : { kind: 'permanent', error: 'Discord answered 404: the user is not in your Discord server, or the role id is wrong' };
    default:
      return { kind: 'permanent', error: `Discord refused the call (HTTP ${response.status})` };
  }
}

export const discordRoleSender: OutboxSender = {
  kind: 'discordRole',
  rateLimitSharedByService: true,
  retryDelayMs: dayLongRetryDelayMs,
  async send(ctx, row): Promise<OutboxAttempt> {
    const call = JSON.parse(row.payload) as RoleCall;
    const settings = await repo.roleSettings(ctx.db, row.serviceId);
    if (!settings?.chatBotTokenSealed) return { kind: 'permanent', error: 'the bot token was removed from the settings' };
    // A later change undid this one (granted then revoked, or back): the member row says which is current.
    const member = await repo.isMember(ctx.db, row.serviceId, call.userId);
    if (call.method === 'PUT' && !member) return { kind: 'skipped', reason: 'the user lost the key before the role was granted' };
    if (call.method === 'DELETE' && member) return { kind: 'skipped', reason: 'the user holds a valid key again' };
    let response: OutboundResponse;
    try {
      response = await send(`${ctx.config.discordApiUrl}${rolePath(call)}`, ctx.outbound.discord, {
        method: call.method,
        headers: { authorization: `Bot ${ctx.sealer.open(settings.chatBotTokenSealed)}`, 'x-audit-log-reason': 'Keyward buyer role' },
        userAgent: 'DiscordBot (https://github.com/keyward/keyward, 1) Keyward',
      });
    } catch (error) {
      if (error instanceof OutboundRefused) return { kind: 'permanent', error: `refused: ${error.message}` };
      if (error instanceof OutboundNetworkError) return { kind: 'transient', error: `Discord did not answer: ${error.message}` };
      throw error;
    }
    if (response.status >= 200 && response.status < 300) {
      if (call.method === 'PUT') await repo.markConfirmed(ctx.db, row.serviceId, call.userId, ctx.clock());
      return { kind: 'delivered' };
    }
    if (response.status === 429) {
      const waitMs = retryAfterMs(response, ctx.clock());
      return waitMs === null ? { kind: 'transient', error: 'Discord asked to slow down (429)' } : { kind: 'rate-limited', waitMs };
    }
    if (response.status >= 500) return { kind: 'transient', error: `Discord had a problem (HTTP ${response.status}); retrying` };
    const refused = refusal(response, call);
    // A refused grant is not held: the member row waits for the sweep's next try (or the next save of the settings).
    if (call.method === 'PUT' && refused.kind === 'permanent') {
      const at = ctx.clock();
      await repo.markRefused(ctx.db, row.serviceId, call.userId, refused.error, (n) => at + refusedRetryDelayMs(n));
    }
    return refused;
  },
};

/** The dashboard's account of the role: set up or not, how many hold it, what waits, and the last failures in words. */
export async function roleStatus(ctx: AppContext, service: ServiceRow) {
  const settings = await repo.roleSettings(ctx.db, service.id);
  const [members, report] = await Promise.all([repo.countMembers(ctx.db, service.id), outboxReport(ctx, service.id, 'discordRole', 10)]);
  const action = (payload: string): 'grant' | 'remove' => ((JSON.parse(payload) as RoleCall).method === 'PUT' ? 'grant' : 'remove');
  return {
    configured: configured(settings),
    botTokenSet: Boolean(settings?.chatBotTokenSealed),
    roleId: settings?.chatRoleId ?? null,
    serverBound: Boolean(settings?.chatGuildId),
    members,
    waiting: report.waiting.map((r) => ({
      userId: r.target ?? '',
      action: action(r.payload),
      attempts: r.attempts,
      lastError: r.lastError,
      nextAttemptAt: iso(r.nextAttemptAt)!,
    })),
    failures: report.failed.map((r) => ({
      userId: r.target ?? '',
      action: action(r.payload),
      reason: r.lastError ?? 'unknown',
      at: iso(r.createdAt)!,
    })),
  };
}
