import type { Job } from '../../jobs/runner.ts';
import { pruneExpiredAudit } from './audit.service.ts';

/**
 * Drops audit entries older than AUDIT_RETENTION_DAYS (contract §7.6). One instance at a time; hourly is plenty for a
 * retention counted in days.
 */
export const auditPruneJob: Job = {
  name: 'audit-prune',
  intervalMs: 60 * 60_000,
  exclusive: true,
  async run(ctx) {
    await pruneExpiredAudit(ctx);
  },
};
