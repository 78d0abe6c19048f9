import type { Job } from './runner.ts';
import { analyticsFlushJob } from '../modules/analytics/analytics-flush.job.ts';
import { analyticsPruneJob } from '../modules/analytics/analytics-prune.job.ts';
import { auditPruneJob } from '../modules/audit/audit-prune.job.ts';
import { discordRoleSweepJob } from '../modules/discord-role/discord-role.job.ts';
import { executionFlushJob } from '../modules/loader/execution-flush.job.ts';
import { keySystemSweepJob } from '../modules/key-system/key-system-sweep.job.ts';
import { pruneJob } from '../modules/maintenance/prune.job.ts';
import { obfuscationJob } from '../modules/scripts/obfuscation.job.ts';
import { keyTouchFlushJob } from '../modules/validation/key-touch-flush.job.ts';
import { webhookDeliveryJob } from '../modules/webhook/webhook.job.ts';
import { sessionFlushJob } from '../modules/sessions/session-flush.job.ts';

/** Every background job of the app; the runner (jobs/runner.ts) starts them with the server and stops them with it. */
export const jobs: readonly Job[] = [
  webhookDeliveryJob,
  obfuscationJob,
  analyticsFlushJob,
  executionFlushJob,
  keyTouchFlushJob,
  pruneJob,
  auditPruneJob,
  analyticsPruneJob,
  keySystemSweepJob,
  discordRoleSweepJob,
  sessionFlushJob,
];
