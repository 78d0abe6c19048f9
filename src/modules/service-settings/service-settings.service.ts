import type { AppContext } from '../../context.ts';
import { recordServiceAudit } from '../audit/audit.service.ts';
import type { Actor } from '../audit/actor.ts';
import { invalid, notFound } from '../../errors.ts';
import { iso } from '../../lib/time.ts';
import { maskWebhookUrl, parseChatWebhookUrl, sealWebhookUrl } from '../../lib/webhook-url.ts';
import { countBansInForce } from '../blacklist/blacklist.service.ts';
import { countKeyless } from '../keyless/keyless.service.ts';
import { countKeyExecution, countKeys } from '../keys/keys.service.ts';
import { countServiceExecution, findServiceByRef, updateService, type ServiceRow } from '../services/services.service.ts';
import { forgetService } from '../services/services.service.ts';
import type { ServicesTable } from '../../db/schema.ts';
import type { Updateable } from 'kysely';
import { forgetRoleMembers, retryRefusedGrants } from '../discord-role/discord-role.service.ts';
import { countLiveSessions } from '../sessions/sessions.service.ts';
import { syncCommandsQuietly } from '../chat/chat-setup.service.ts';

export function settingsOf(row: ServiceRow) {
  return {
    webhookUrl: maskWebhookUrl(row.webhookUrl),
    webhookEnabled: row.webhookEnabled === 1,
    hwidResetCooldownFreeHours: row.hwidResetCooldownFreeHours,
    hwidResetCooldownPremiumHours: row.hwidResetCooldownPremiumHours,
    chatInteractionsPublicKey: row.chatInteractionsPublicKey,
    chat: row.chatGuildId ? { guildId: row.chatGuildId, guildName: row.chatGuildName ?? '' } : null,
    chatBotToken: row.chatBotTokenSealed ? '****' : null,
    chatRoleId: row.chatRoleId ?? null,
    chatApplicationId: row.chatApplicationId ?? null,
    chatLogChannelId: row.chatLogChannelId ?? null,
    sessionHeartbeatSeconds: row.sessionHeartbeatSeconds,
  };
}

export const serviceInfo = (row: ServiceRow) => ({
  id: row.id,
  identifier: row.identifier,
  name: row.name,
  createdAt: iso(row.createdAt)!,
  settings: settingsOf(row),
});

export async function serviceStatus(ctx: AppContext, row: ServiceRow) {
  const [keys, keylessEntries, blacklistedHwids, fresh, liveSessions] = await Promise.all([
    countKeys(ctx.db, row.id),
    countKeyless(ctx.db, row.id),
    countBansInForce(ctx.db, row.id, ctx.clock()),
    findServiceByRef(ctx.db, row.id),
    countLiveSessions(ctx, row.id),
  ]);
  return {
    activeKeys: keys.active,
    generatedKeys: keys.generated,
    keylessEntries,
    blacklistedHwids,
    totalExecutions: fresh?.executions ?? row.executions,
    liveSessions,
  };
}

/** Counts one execution for the service, and for the key when one is named (404 if it is not the service's). */
export async function recordExecution(ctx: AppContext, serviceId: string, key?: string) {
  const now = ctx.clock();
  const counted = await ctx.db.transaction().execute(async (trx) => {
    if (key !== undefined) {
      const result = await countKeyExecution(trx, serviceId, key, now);
      if (Number(result.numUpdatedRows) === 0) throw notFound('Key');
    }
    const row = await countServiceExecution(trx, serviceId, now);
    return { executions: row.executions, lastActiveAt: iso(row.lastActiveAt) };
  });
  ctx.analytics.countExecution(serviceId, null);
  return counted;
}

export async function executionCount(ctx: AppContext, serviceId: string) {
  const row = await findServiceByRef(ctx.db, serviceId);
  if (!row) throw notFound('Service');
  return { executions: row.executions, lastActiveAt: iso(row.lastActiveAt) };
}

export interface SettingsPatch {
  webhookUrl?: string | null;
  webhookEnabled?: boolean;
  hwidResetCooldownFreeHours?: number;
  hwidResetCooldownPremiumHours?: number;
  chatInteractionsPublicKey?: string | null;
  chatBotToken?: string | null;
  chatRoleId?: string | null;
  chatApplicationId?: string | null;
  chatLogChannelId?: string | null;
  sessionHeartbeatSeconds?: number;
}

export async function updateSettings(ctx: AppContext, row: ServiceRow, patch: SettingsPatch, actor: Actor) {
  const set: Updateable<ServicesTable> = {};
  if (patch.webhookUrl !== undefined) {
    if (patch.webhookUrl === null) set.webhookUrl = null;
    else {
      const url = parseChatWebhookUrl(patch.webhookUrl, ctx.config.chatWebhookOrigins);
      if (!url) throw invalid('webhookUrl', 'webhookUrl must be a chat-platform webhook (https://discord.com/api/webhooks/<id>/<token>)');
      set.webhookUrl = sealWebhookUrl(ctx.sealer, url);
    }
  }
  if (patch.webhookEnabled !== undefined) set.webhookEnabled = patch.webhookEnabled ? 1 : 0;
  if (patch.hwidResetCooldownFreeHours !== undefined) set.hwidResetCooldownFreeHours = patch.hwidResetCooldownFreeHours;
  if (patch.hwidResetCooldownPremiumHours !== undefined) set.hwidResetCooldownPremiumHours = patch.hwidResetCooldownPremiumHours;
  if (patch.chatInteractionsPublicKey !== undefined) set.chatInteractionsPublicKey = patch.chatInteractionsPublicKey?.toLowerCase() ?? null;
  if (patch.chatBotToken !== undefined) set.chatBotTokenSealed = patch.chatBotToken === null ? null : ctx.sealer.seal(patch.chatBotToken);
  if (patch.chatRoleId !== undefined) set.chatRoleId = patch.chatRoleId;
  if (patch.chatApplicationId !== undefined) set.chatApplicationId = patch.chatApplicationId;
  if (patch.chatLogChannelId !== undefined) set.chatLogChannelId = patch.chatLogChannelId;
  // Running sessions keep the period they opened with; new ones take this.
  if (patch.sessionHeartbeatSeconds !== undefined) set.sessionHeartbeatSeconds = patch.sessionHeartbeatSeconds;
  if (Object.keys(set).length > 0) {
    // The webhook URL and the bot token are secrets: the entry says only whether one is set.
    const details = {
      ...patch,
      ...(patch.webhookUrl !== undefined && { webhookUrl: patch.webhookUrl === null ? null : 'set' }),
      ...(patch.chatBotToken !== undefined && { chatBotToken: patch.chatBotToken === null ? null : 'set' }),
    };
    await ctx.db.transaction().execute(async (trx) => {
      await updateService(trx, row.id, set);
      // Another role: the old one's members are forgotten and the sweep grants the new one to every holder.
      if (patch.chatRoleId !== undefined && patch.chatRoleId !== row.chatRoleId) await forgetRoleMembers(trx, row.id);
      await recordServiceAudit(trx, actor, row, 'settings.update', null, details, ctx.clock());
    });
    forgetService(ctx, row);
    // "Save Discord role" after fixing the bot's place in Discord: refused grants go out again now (contract §22).
    if (patch.chatBotToken !== undefined || patch.chatRoleId !== undefined) await retryRefusedGrants(ctx, row.id);
    // Contract §24.1: saving what the commands need registers them; Discord being down never fails the save (the
    // refusal is kept for the checklist).
    if (patch.chatApplicationId || patch.chatBotToken || patch.chatInteractionsPublicKey) await syncCommandsQuietly(ctx, row.id);
  }
  return settingsOf({ ...row, ...set } as ServiceRow);
}
