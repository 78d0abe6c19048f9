import type { Job } from '../../jobs/runner.ts';
import { pruneOrphanedAnalytics } from '../analytics/analytics.repository.ts';
import { pruneExpiredAudit } from './audit.service.ts';

/**
 * Drops audit entries older than AUDIT_RETENTION_DAYS (contract §7.6) and the analytics rows of
 * services that are gone (analytics are kept as long as the service). One instance at a time; hourly is plenty for a retention counted in days.
 */
export const auditPruneJob: Job = {
  name: 'audit-prune',
  intervalMs: 60 * 60_000,
  exclusive: true,
  async run(ctx) {
    await pruneExpiredAudit(ctx);
    await pruneOrphanedAnalytics(ctx.db);
  },
};
