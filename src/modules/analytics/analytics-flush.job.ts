import type { Job } from '../../jobs/runner.ts';

/**
 * Writes this instance's in-memory counts (contract §7.5: at most 5 s late). Not exclusive: every
 * instance flushes its own counts, and the additive upserts sum them. The final flush on stop is what
 * makes a clean shutdown lose nothing.
 */
export const analyticsFlushJob: Job = {
  name: 'analytics-flush',
  intervalMs: (ctx) => (ctx.config.analytics ? ctx.config.analyticsFlushMs : 0),
  async run(ctx) {
    await ctx.analytics.flush(ctx.db);
  },
  async onStop(ctx) {
    await ctx.analytics.flush(ctx.db);
  },
};
