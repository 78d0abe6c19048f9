import type { AppContext } from '../../context.ts';
import { enqueueDiscordMessage } from './chat-outbox.ts';
import { messageData, type MessageData } from './chat-words.ts';
import { storeInteractionAnswer } from './chat.repository.ts';

/**
 * The end of a deferred interaction (contract §24.3): the result replaces Discord's "thinking…" through
 * `PATCH /api/v10/webhooks/<app>/<token>/messages/@original`, sent by the durable outbox; the answer is kept under the
 * interaction id, so a late retry of the same id reads it instead of acting again.
 */

export interface FollowUpTarget {
  interactionId: string;
  applicationId: string;
  token: string;
}

export const followUpPath = (target: FollowUpTarget) => `/api/v10/webhooks/${target.applicationId}/${target.token}/messages/@original`;

export async function followUp(ctx: AppContext, serviceId: string, target: FollowUpTarget, content: string | MessageData) {
  const data = typeof content === 'string' ? messageData(content) : content;
  await ctx.db.transaction().execute(async (trx) => {
    await storeInteractionAnswer(trx, target.interactionId, JSON.stringify({ type: 4, data }));
    await enqueueDiscordMessage(
      trx,
      serviceId,
      { method: 'PATCH', path: followUpPath(target), json: data, bot: false },
      ctx.clock(),
      'follow-up',
    );
  });
  ctx.jobs.kick('webhook-delivery');
}
