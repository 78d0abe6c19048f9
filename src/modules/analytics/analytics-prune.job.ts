import type { Job } from '../../jobs/runner.ts';
import { pruneOrphanedAnalytics } from './analytics.repository.ts';

/**
 * Drops the analytics rows of services that are gone (analytics are kept as long as the service; the tables have no
 * foreign key). One instance at a time; hourly is plenty for rows nobody can read any more.
 */
export const analyticsPruneJob: Job = {
  name: 'analytics-prune',
  intervalMs: 60 * 60_000,
  exclusive: true,
  async run(ctx) {
    await pruneOrphanedAnalytics(ctx.db);
  },
};
