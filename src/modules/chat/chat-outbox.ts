import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/database.ts';
import { enqueueOutbox, type OutboxAttempt, type OutboxSender } from '../webhook/outbox.service.ts';
import { discordRequest } from './discord-api.ts';

/**
 * Posts to Discord that must not be lost (contract §24.3–24.4): an interaction's follow-up (its result after a
 * deferred answer) and the staff channel's notices. They go through the durable outbox: queued in the change's
 * transaction, retried, 429-aware, none lost on restart. The bot token is read when the row is sent.
 */

export interface DiscordMessage {
  method: 'POST' | 'PATCH';
  path: string;
  json: unknown;
  /** Channel posts need the bot token; an interaction's webhook carries its own token in the path. */
  bot: boolean;
}

/** A follow-up's token lives 15 minutes, a notice's channel for good: quick tries first, then the day-long tail. */
const SCHEDULE_MS = [2_000, 5_000, 15_000, 60_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 5 * 3_600_000, 10 * 3_600_000];

/** A send within this; a stuck Discord holds the service's lane no longer. */
const SEND_TIMEOUT_MS = 10_000;

export function enqueueDiscordMessage(db: Db, serviceId: string, message: DiscordMessage, now: number, target: string | null = null) {
  return enqueueOutbox(db, { kind: 'discordMessage', serviceId, target, url: message.path, payload: JSON.stringify(message), now });
}

export const discordMessageSender: OutboxSender = {
  kind: 'discordMessage',
  rateLimitSharedByService: true,
  retryDelayMs: (failed) => SCHEDULE_MS[failed - 1] ?? null,
  async send(ctx: AppContext, row): Promise<OutboxAttempt> {
    const message = JSON.parse(row.payload) as DiscordMessage;
    let botToken: string | null = null;
    if (message.bot) {
      const service = await ctx.db.selectFrom('services').select('chatBotTokenSealed').where('id', '=', row.serviceId).executeTakeFirst();
      if (!service?.chatBotTokenSealed) return { kind: 'permanent', error: 'the bot token was removed from the settings' };
      botToken = ctx.sealer.open(service.chatBotTokenSealed);
    }
    const result = await discordRequest(ctx, {
      method: message.method,
      path: message.path,
      json: message.json,
      botToken,
      timeoutMs: SEND_TIMEOUT_MS,
    });
    if (result.ok) return { kind: 'delivered' };
    if (result.kind === 'rate-limited') return { kind: 'rate-limited', waitMs: result.waitMs };
    return { kind: result.kind, error: result.error };
  },
};
