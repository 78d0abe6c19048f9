import type { Job } from '../../jobs/runner.ts';
import { runOutboxLanes } from './outbox-lanes.ts';

/**
 * Delivers the outbox: chat messages, Discord role calls and events, in one lane per (kind, service) so that one
 * service's stuck receiver never holds up another's (outbox-lanes.ts). Every instance runs it
 * (WEBHOOK_WORKER_INTERVAL_MS, 0 turns it off); passes overlap, so a kick starts new lanes while an earlier pass waits
 * on a slow receiver. The claim in the outbox keeps instances from sending one row twice. A row given up is a
 * warning, so a failed delivery is never silent.
 */
export const webhookDeliveryJob: Job = {
  name: 'webhook-delivery',
  intervalMs: (ctx) => ctx.config.webhookWorkerIntervalMs,
  overlap: true,
  async run(ctx) {
    await runOutboxLanes(ctx);
  },
};
