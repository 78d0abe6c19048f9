import type { AppContext } from '../../context.ts';
import { sweepKeySystem } from './key-system.service.ts';

/**
 * Deletes expired key-system sessions, spent provider tokens past their keeping time, and per-address
 * grants older than a day. Shaped as the shared runner's Job (src/lib/jobs.ts); one instance at a time.
 */
export const keySystemSweepJob = {
  name: 'key-system-sweep',
  intervalMs: 10 * 60_000,
  exclusive: true,
  async run(ctx: AppContext): Promise<void> {
    await sweepKeySystem(ctx);
  },
};
