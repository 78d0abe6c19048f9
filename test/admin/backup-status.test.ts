import { describe, expect, it } from 'vitest';
import { recordBackup } from '../../src/modules/admin/admin.service.ts';
import { useTestApp } from '../helpers/app.ts';
import { testDialect } from '../helpers/database.ts';
import { call, seedAccount } from '../helpers/seed.ts';
import { signIn, SIGNIN_ENV } from '../signin/helpers.ts';

/**
 * GET /admin/backup: what `keyward backup` recorded (src/cli/backup.ts calls recordBackup on the live database),
 * for admins only. One app for the file; the tests run in order on its database and move its clock by hand.
 */
const testApp = useTestApp(SIGNIN_ENV);
const DAY = 24 * 60 * 60 * 1000;

describe('backup status for admins', () => {
  it('says there is no backup yet, and that this is overdue', async () => {
    const { app, ctx } = testApp();
    const { cookie } = await signIn(app, await seedAccount(ctx, 'admin'));
    const res = await call(app, 'GET', '/api/v1/admin/backup', { headers: { cookie } });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ databaseKind: testDialect(), staleAfterDays: 7, stale: true, lastBackup: null });
  });

  it('shows the newest backup, fresh for 7 days and overdue after', async () => {
    const { app, ctx, clock } = testApp();
    const admin = await seedAccount(ctx, 'admin');
    const { cookie } = await signIn(app, admin);
    const kind = testDialect();
    await recordBackup(ctx.db, { finishedAt: clock.now - 3 * DAY, sizeBytes: 1000, keyCount: 5, databaseKind: kind });
    await recordBackup(ctx.db, { finishedAt: clock.now - DAY, sizeBytes: 5_000_000_000, keyCount: 1_000_001, databaseKind: kind });
    const fresh = await call(app, 'GET', '/api/v1/admin/backup', { headers: { cookie } });
    expect(fresh.status).toBe(200);
    expect(fresh.body.data).toEqual({
      databaseKind: kind,
      staleAfterDays: 7,
      stale: false,
      lastBackup: {
        finishedAt: new Date(clock.now - DAY).toISOString(),
        sizeBytes: 5_000_000_000,
        keyCount: 1_000_001,
        databaseKind: kind,
      },
    });

    clock.advance(6 * DAY + 1);
    // A new session: the first one has idled out meanwhile.
    const later = await signIn(app, admin);
    const overdue = await call(app, 'GET', '/api/v1/admin/backup', { headers: { cookie: later.cookie } });
    expect(overdue.body.data.stale).toBe(true);
    expect(overdue.body.data.lastBackup.keyCount).toBe(1_000_001);
  });

  it('refuses moderators and sellers (403), an account key (403) and no credentials (401)', async () => {
    const { app, ctx } = testApp();
    for (const role of ['moderator', 'user'] as const) {
      const { cookie } = await signIn(app, await seedAccount(ctx, role));
      const res = await call(app, 'GET', '/api/v1/admin/backup', { headers: { cookie } });
      expect(res.status, role).toBe(403);
      expect(res.body.code, role).toBe('FORBIDDEN');
      expect(JSON.stringify(res.body), role).not.toContain('sizeBytes');
    }
    const admin = await seedAccount(ctx, 'admin');
    const byKey = await call(app, 'GET', '/api/v1/admin/backup', { key: admin.accountKey });
    expect(byKey.status).toBe(403);
    expect(byKey.body.code).toBe('SESSION_REQUIRED');
    expect((await call(app, 'GET', '/api/v1/admin/backup')).status).toBe(401);
  });
});
