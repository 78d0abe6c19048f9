import type { Job } from '../../jobs/runner.ts';
import { runWebhookWorkerPass } from './webhook.service.ts';

/**
 * Delivers queued webhook messages. Every instance runs it (WEBHOOK_WORKER_INTERVAL_MS, 0 turns it off); the
 * claim in the outbox keeps instances from sending one message twice. A message given up is a warning, so a
 * failed delivery is never silent.
 */
export const webhookDeliveryJob: Job = {
  name: 'webhook-delivery',
  intervalMs: (ctx) => ctx.config.webhookWorkerIntervalMs,
  async run(ctx) {
    await runWebhookWorkerPass(ctx, (message) =>
      ctx.log.warn({ messageId: message.id, serviceId: message.serviceId, lastError: message.lastError }, 'webhook message given up'),
    );
  },
};
