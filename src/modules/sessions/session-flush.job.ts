import type { Job } from '../../jobs/runner.ts';

/**
 * Writes the heartbeats this instance holds (the database implementation keeps them in memory so a heartbeat writes
 * nothing) and prunes long-ended sessions. Every 2 s, far inside the shortest heartbeat period (10 s), so a live
 * session's row never looks two periods old to another instance. Not exclusive: times only move forward.
 */
export const SESSION_FLUSH_MS = 2000;

export const sessionFlushJob: Job = {
  name: 'session-flush',
  intervalMs: () => SESSION_FLUSH_MS,
  async run(ctx) {
    await ctx.liveSessions.flush(ctx.clock());
  },
  async onStop(ctx) {
    await ctx.liveSessions.flush(ctx.clock());
  },
};
