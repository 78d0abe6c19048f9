import type { AppContext } from '../../context.ts';
import { notFound, unauthorized } from '../../errors.ts';
import { verifyEd25519 } from '../../lib/ed25519.ts';
import { findServiceByRef, type ServiceRow } from '../services/services.service.ts';
import { forgetService } from '../services/services.service.ts';
import { settingsOf } from '../service-settings/service-settings.service.ts';
import { recordServiceAudit } from '../audit/audit.service.ts';
import type { Actor } from '../audit/actor.ts';
import * as repo from './chat.repository.ts';

// ---- Server binding -------------------------------------------------------------------------

export async function connectGuild(ctx: AppContext, service: ServiceRow, guildId: string, guildName: string, actor: Actor) {
  await ctx.db.transaction().execute(async (trx) => {
    await repo.bindGuild(trx, service.id, guildId, guildName);
    await recordServiceAudit(trx, actor, service, 'chat.connect', guildId, { guildName }, ctx.clock());
  });
  forgetService(ctx, service);
  return settingsOf({ ...service, chatGuildId: guildId, chatGuildName: guildName });
}

export async function disconnectGuild(ctx: AppContext, service: ServiceRow, actor: Actor) {
  await ctx.db.transaction().execute(async (trx) => {
    const result = await repo.unbindGuild(trx, service.id);
    if (Number(result.numUpdatedRows) === 0) throw notFound('Chat server binding');
    await recordServiceAudit(trx, actor, service, 'chat.disconnect', service.chatGuildId, {}, ctx.clock());
  });
  forgetService(ctx, service);
  return settingsOf({ ...service, chatGuildId: null, chatGuildName: null });
}

// ---- HTTP interactions ----------------------------------------------------------------------

/** Signatures older or newer than this are refused, so a captured request cannot be replayed later. */
export const SIGNATURE_WINDOW_MS = 5 * 60_000;

/**
 * Checks the platform's signature over timestamp + raw body with the service's public key, before
 * anything in the body is looked at. A service without a key accepts nothing.
 */
export async function authenticInteractionService(
  ctx: AppContext,
  serviceRef: string,
  rawBody: Buffer,
  signature: string | undefined,
  timestamp: string | undefined,
): Promise<ServiceRow> {
  const service = await findServiceByRef(ctx.db, serviceRef);
  if (!service) throw notFound('Service');
  const refuse = () => unauthorized('The interaction signature is not valid');
  if (!service.chatInteractionsPublicKey || !signature || !timestamp || !/^\d{1,12}$/.test(timestamp)) throw refuse();
  if (Math.abs(ctx.clock() - Number(timestamp) * 1000) > SIGNATURE_WINDOW_MS) throw refuse();
  const message = Buffer.concat([Buffer.from(timestamp, 'utf8'), rawBody]);
  if (!verifyEd25519(service.chatInteractionsPublicKey, message, signature)) throw refuse();
  return service;
}

export { handleInteraction, type Interaction } from './chat-interactions.ts';

/**
 * For the delivery job: the outbox senders of Discord posts and deferred interaction work. The staff-channel notices
 * (contract §24.4) are chat-notices.service.ts, which the keys and sessions modules import directly: through this file
 * they would import the interactions, which call the keys and sessions services back (an import loop).
 */
export { discordMessageSender } from './chat-outbox.ts';
export { discordTaskSender } from './chat-tasks.ts';

/** For the prune job: interaction ids and refusal counts a day old are no longer read. */
export const pruneChatRecords = (ctx: AppContext) => repo.pruneChatRecords(ctx.db, ctx.clock() - 86_400_000);
