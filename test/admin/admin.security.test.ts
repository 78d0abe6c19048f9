import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, seedAccount } from '../helpers/seed.ts';
import { signIn, SIGNIN_ENV } from '../signin/helpers.ts';

const testApp = useTestApp(SIGNIN_ENV);

describe('who may use staff tools', () => {
  it('answers 403 SESSION_REQUIRED to an admin’s account key', async () => {
    const { app, ctx } = testApp();
    const admin = await seedAccount(ctx, 'admin');
    const user = await seedAccount(ctx);
    for (const [method, url] of [
      ['GET', '/api/v1/admin/accounts'],
      ['GET', '/api/v1/admin/services'],
      ['POST', `/api/v1/admin/accounts/${user.id}/disable`],
    ] as const) {
      const res = await call(app, method, url, { key: admin.accountKey });
      expect(res.status, url).toBe(403);
      expect(res.body.code).toBe('SESSION_REQUIRED');
    }
    const patch = await call(app, 'PATCH', `/api/v1/admin/accounts/${user.id}`, { key: admin.accountKey, body: { role: 'admin' } });
    expect(patch.body.code).toBe('SESSION_REQUIRED');
    expect((await ctx.db.selectFrom('accounts').select('role').where('id', '=', user.id).executeTakeFirstOrThrow()).role).toBe('user');
  });

  it('answers 401 without any credentials', async () => {
    const { app } = testApp();
    expect((await call(app, 'GET', '/api/v1/admin/accounts')).status).toBe(401);
  });

  it('answers 403 FORBIDDEN to a plain user’s session', async () => {
    const { app, ctx } = testApp();
    const user = await seedAccount(ctx);
    const victim = await seedAccount(ctx);
    const { cookie, headers } = await signIn(app, user);
    const list = await call(app, 'GET', '/api/v1/admin/accounts', { headers: { cookie } });
    expect(list.status).toBe(403);
    expect(list.body.code).toBe('FORBIDDEN');
    const disable = await call(app, 'POST', `/api/v1/admin/accounts/${victim.id}/disable`, { headers });
    expect(disable.status).toBe(403);
    expect(disable.body.code).toBe('FORBIDDEN');
    expect((await ctx.db.selectFrom('accounts').select('disabled').where('id', '=', victim.id).executeTakeFirstOrThrow()).disabled).toBe(0);
  });

  it('does not let a moderator change roles', async () => {
    const { app, ctx } = testApp();
    const moderator = await seedAccount(ctx, 'moderator');
    const user = await seedAccount(ctx);
    const { headers } = await signIn(app, moderator);
    const res = await call(app, 'PATCH', `/api/v1/admin/accounts/${user.id}`, { headers, body: { role: 'admin' } });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('FORBIDDEN');
    const self = await call(app, 'PATCH', `/api/v1/admin/accounts/${moderator.id}`, { headers, body: { role: 'admin' } });
    expect(self.status).toBe(403);
    expect((await ctx.db.selectFrom('accounts').select('role').where('id', '=', user.id).executeTakeFirstOrThrow()).role).toBe('user');
  });

  it('does not let a moderator disable staff, nor anyone disable themselves', async () => {
    const { app, ctx } = testApp();
    const moderator = await seedAccount(ctx, 'moderator');
    const admin = await seedAccount(ctx, 'admin');
    const mod = await signIn(app, moderator);
    expect((await call(app, 'POST', `/api/v1/admin/accounts/${admin.id}/disable`, { headers: mod.headers })).status).toBe(403);
    expect((await call(app, 'POST', `/api/v1/admin/accounts/${moderator.id}/disable`, { headers: mod.headers })).status).toBe(403);
    const adm = await signIn(app, admin);
    expect((await call(app, 'POST', `/api/v1/admin/accounts/${admin.id}/disable`, { headers: adm.headers })).status).toBe(403);
    expect((await call(app, 'PATCH', `/api/v1/admin/accounts/${admin.id}`, { headers: adm.headers, body: { role: 'user' } })).status).toBe(
      403,
    );
  });

  it('needs the CSRF token on staff mutations', async () => {
    const { app, ctx } = testApp();
    const admin = await seedAccount(ctx, 'admin');
    const user = await seedAccount(ctx);
    const { cookie } = await signIn(app, admin);
    const res = await call(app, 'POST', `/api/v1/admin/accounts/${user.id}/disable`, { headers: { cookie } });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('CSRF_FAILED');
  });

  it('drops staff powers as soon as the role is taken away', async () => {
    const { app, ctx } = testApp();
    const admin = await seedAccount(ctx, 'admin');
    const moderator = await seedAccount(ctx, 'moderator');
    const adm = await signIn(app, admin);
    const mod = await signIn(app, moderator);
    expect((await call(app, 'GET', '/api/v1/admin/accounts', { headers: { cookie: mod.cookie } })).status).toBe(200);
    expect(
      (await call(app, 'PATCH', `/api/v1/admin/accounts/${moderator.id}`, { headers: adm.headers, body: { role: 'user' } })).status,
    ).toBe(200);
    expect((await call(app, 'GET', '/api/v1/admin/accounts', { headers: { cookie: mod.cookie } })).status).toBe(403);
  });
});
