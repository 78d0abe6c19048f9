import type { Job } from '../../jobs/runner.ts';
import { discordRoleSender } from '../discord-role/discord-role.service.ts';
import { eventSender } from '../events/events.service.ts';
import { runOutboxPass } from './outbox.service.ts';
import { runWebhookWorkerPass } from './webhook.service.ts';

/**
 * Delivers the outbox: chat messages, Discord role calls and events (each kind its own claim, so a slow one does not
 * hold the others' order). Every instance runs it (WEBHOOK_WORKER_INTERVAL_MS, 0 turns it off); the claim in the
 * outbox keeps instances from sending one row twice. A row given up is a warning, so a failed delivery is never silent.
 */
export const webhookDeliveryJob: Job = {
  name: 'webhook-delivery',
  intervalMs: (ctx) => ctx.config.webhookWorkerIntervalMs,
  async run(ctx) {
    await runWebhookWorkerPass(ctx, (message) =>
      ctx.log.warn({ messageId: message.id, serviceId: message.serviceId, lastError: message.lastError }, 'webhook message given up'),
    );
    for (const sender of [discordRoleSender, eventSender]) {
      await runOutboxPass(ctx, sender, (row) =>
        ctx.log.warn({ messageId: row.id, kind: row.kind, serviceId: row.serviceId, lastError: row.lastError }, 'outbox row given up'),
      );
    }
  },
};
