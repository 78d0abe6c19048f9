import type { Job } from '../../jobs/runner.ts';
import { sweepKeySystem } from './key-system.service.ts';

/**
 * Deletes expired key-system sessions, spent provider tokens past their keeping time, and per-address
 * grants older than a day. One instance at a time.
 */
export const keySystemSweepJob: Job = {
  name: 'key-system-sweep',
  intervalMs: 10 * 60_000,
  exclusive: true,
  async run(ctx) {
    await sweepKeySystem(ctx);
  },
};
