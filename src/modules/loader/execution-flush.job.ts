import type { Job } from '../../jobs/runner.ts';

/**
 * Writes this instance's counted fetch executions (ExecutionCounter). Not exclusive: each instance writes
 * its own counts and the updates add up. The pass on stop is what makes a clean shutdown lose none.
 */
export const executionFlushJob: Job = {
  name: 'execution-flush',
  intervalMs: (ctx) => ctx.config.analyticsFlushMs,
  async run(ctx) {
    await ctx.executions.flush(ctx.db);
  },
  async onStop(ctx) {
    await ctx.executions.flush(ctx.db);
  },
};
