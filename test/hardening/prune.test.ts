import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { jobs } from '../../src/jobs/registry.ts';
import { pruneJob, pruneOnce } from '../../src/modules/maintenance/prune.job.ts';
import { useTestApp } from '../helpers/app.ts';
import { seedService } from '../helpers/seed.ts';

/** Issue 8, finding 9: one job prunes settled outbox rows, spent captchas, dead sessions and stale sign-in failures. */
const t = useTestApp({ OUTBOX_RETENTION_DAYS: '7', SESSION_IDLE_MINUTES: '60' });
const DAY = 86_400_000;

describe('the pruning job', () => {
  it('removes exactly the rows nothing reads any more', async () => {
    const { ctx, clock } = t();
    const now = clock.now;
    const s = await seedService(ctx);
    const outbox = (status: 'pending' | 'sending' | 'delivered' | 'failed', ageDays: number) => ({
      id: randomUUID(),
      serviceId: s.id,
      url: 'https://discord.com/api/webhooks/1/x',
      payload: '{}',
      status,
      attempts: 1,
      nextAttemptAt: now,
      createdAt: now - ageDays * DAY,
      deliveredAt: status === 'delivered' ? now - ageDays * DAY : null,
    });
    const keep = [outbox('delivered', 6), outbox('failed', 6), outbox('pending', 30), outbox('sending', 30)];
    const drop = [outbox('delivered', 8), outbox('failed', 8)];
    await ctx.db
      .insertInto('webhookOutbox')
      .values([...keep, ...drop])
      .execute();
    await ctx.db
      .insertInto('captchaUses')
      .values([
        { signature: 'spent-old', expiresAt: now - 1 },
        { signature: 'spent-live', expiresAt: now + 60_000 },
      ])
      .execute();
    const session = (tokenDigest: string, lastSeenAgo: number, expiresIn: number) => ({
      tokenDigest,
      accountId: s.account.id,
      createdAt: now - DAY,
      lastSeenAt: now - lastSeenAgo,
      expiresAt: now + expiresIn,
    });
    await ctx.db
      .insertInto('sessions')
      .values([session('live', 60_000, DAY), session('idle', 61 * 60_000, DAY), session('expired', 0, -1)])
      .execute();
    await ctx.db
      .insertInto('loginFailures')
      .values([
        { username: 'quiet', failures: 2, lockedUntil: null, updatedAt: now - 2 * DAY },
        { username: 'recent', failures: 2, lockedUntil: null, updatedAt: now - 60_000 },
        { username: 'still-locked', failures: 20, lockedUntil: now + 60_000, updatedAt: now - 2 * DAY },
      ])
      .execute();

    expect(await pruneOnce(ctx)).toEqual({ outbox: 2, captchas: 1, sessions: 2, loginFailures: 1, chatInteractions: 0 });

    const ids = (await ctx.db.selectFrom('webhookOutbox').select('id').where('serviceId', '=', s.id).execute()).map((r) => r.id);
    expect(ids.sort()).toEqual(keep.map((r) => r.id).sort());
    expect((await ctx.db.selectFrom('captchaUses').select('signature').execute()).map((r) => r.signature)).toEqual(['spent-live']);
    expect((await ctx.db.selectFrom('sessions').select('tokenDigest').execute()).map((r) => r.tokenDigest)).toEqual(['live']);
    const names = (await ctx.db.selectFrom('loginFailures').select('username').execute()).map((r) => r.username).sort();
    expect(names).toEqual(['recent', 'still-locked']);
    // A second run finds nothing more.
    expect(await pruneOnce(ctx)).toEqual({ outbox: 0, captchas: 0, sessions: 0, loginFailures: 0, chatInteractions: 0 });
  });

  it("is one of the app's background jobs, exclusive, run hourly by default", () => {
    expect(jobs).toContain(pruneJob);
    expect(pruneJob.exclusive).toBe(true);
    expect(typeof pruneJob.intervalMs === 'function' ? pruneJob.intervalMs(t().ctx) : pruneJob.intervalMs).toBe(3_600_000);
  });
});
