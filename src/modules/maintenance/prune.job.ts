import type { AppContext } from '../../context.ts';
import type { Job } from '../../jobs/runner.ts';
import { hasPlainToken, sealWebhookUrl } from '../../lib/webhook-url.ts';
import * as repo from './prune.repository.ts';
import { pruneChatRecords } from '../chat/chat.service.ts';

const DAY_MS = 86_400_000;

export interface Pruned {
  outbox: number;
  captchas: number;
  sessions: number;
  loginFailures: number;
  /** Discord interaction ids past their retry window (contract §28). */
  chatInteractions: number;
}

/**
 * Removes rows nothing reads any more: settled webhook messages older than OUTBOX_RETENTION_DAYS (kept that
 * long so a seller can see what failed), spent captchas past their lifetime, dead sessions, and the
 * failure counts of unknown sign-in names after a quiet day.
 */
export async function pruneOnce(ctx: AppContext): Promise<Pruned> {
  const now = ctx.clock();
  const { maintenance, signin } = ctx.config;
  return {
    outbox: await repo.deleteSettledOutboxRows(ctx.db, now - maintenance.outboxRetentionDays * DAY_MS),
    captchas: await repo.deleteUsedCaptchas(ctx.db, now),
    sessions: await repo.deleteDeadSessions(ctx.db, now, signin.sessionIdleMinutes * 60_000),
    loginFailures: await repo.deleteQuietLoginFailures(ctx.db, now - DAY_MS, now),
    chatInteractions: await pruneChatRecords(ctx),
  };
}

/**
 * Seals webhook tokens still stored in clear (rows written before migration 0006; they are readable as they
 * are meanwhile). A migration cannot do it: it runs without the server secret. Answers how many it sealed.
 */
export async function sealPlainWebhookTokens(ctx: AppContext): Promise<number> {
  const { services, outbox } = await repo.plainWebhookUrls(ctx.db);
  let sealed = 0;
  for (const row of services) {
    if (!row.url || !hasPlainToken(row.url)) continue;
    await repo.replaceServiceWebhookUrl(ctx.db, row.id, row.url, sealWebhookUrl(ctx.sealer, row.url));
    sealed += 1;
  }
  for (const row of outbox) {
    if (!hasPlainToken(row.url)) continue;
    await repo.replaceOutboxUrl(ctx.db, row.id, row.url, sealWebhookUrl(ctx.sealer, row.url));
    sealed += 1;
  }
  return sealed;
}

/** Exclusive: one instance at a time is enough, though the deletes are safe to run concurrently. */
export const pruneJob: Job = {
  name: 'prune',
  intervalMs: (ctx) => ctx.config.maintenance.pruneIntervalMs,
  exclusive: true,
  async run(ctx) {
    await sealPlainWebhookTokens(ctx);
    await pruneOnce(ctx);
  },
};
