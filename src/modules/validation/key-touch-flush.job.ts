import type { Job } from '../../jobs/runner.ts';

/**
 * Writes the lastUsedAt of keys this instance validated (KeyTouches). Not exclusive: each instance writes
 * its own and times only move forward. The pass on stop is what makes a clean shutdown lose none.
 */
export const keyTouchFlushJob: Job = {
  name: 'key-touch-flush',
  intervalMs: (ctx) => ctx.config.analyticsFlushMs,
  async run(ctx) {
    await ctx.touches.flush(ctx.db, ctx.dialect);
  },
  async onStop(ctx) {
    await ctx.touches.flush(ctx.db, ctx.dialect);
  },
};
