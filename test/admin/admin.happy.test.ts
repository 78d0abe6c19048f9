import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, seedAccount, seedService } from '../helpers/seed.ts';
import { signIn, SIGNIN_ENV } from '../signin/helpers.ts';

const testApp = useTestApp(SIGNIN_ENV);

describe('staff tools', () => {
  it('lists accounts page by page with the contract’s page shape', async () => {
    const { app, ctx } = testApp();
    const admin = await seedAccount(ctx, 'admin');
    for (let i = 0; i < 3; i++) await seedAccount(ctx);
    const { cookie } = await signIn(app, admin);
    const res = await call(app, 'GET', '/api/v1/admin/accounts?page=1&limit=2', { headers: { cookie } });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ page: 1, limit: 2 });
    expect(res.body.data.items).toHaveLength(2);
    const total = res.body.data.total as number;
    expect(total).toBeGreaterThanOrEqual(4);
    expect(res.body.data.totalPages).toBe(Math.ceil(total / 2));
    expect(res.body.data.items[0]).toEqual({
      id: expect.any(String),
      username: expect.any(String),
      role: expect.any(String),
      twoFactorEnabled: false,
      disabled: false,
      discordUserId: null,
      createdAt: expect.any(String),
    });
    const searched = await call(app, 'GET', `/api/v1/admin/accounts?search=${admin.username}`, { headers: { cookie } });
    expect(searched.body.data.items.map((a: { id: string }) => a.id)).toEqual([admin.id]);
  });

  it('lists services of every account for a moderator', async () => {
    const { app, ctx } = testApp();
    const moderator = await seedAccount(ctx, 'moderator');
    const service = await seedService(ctx);
    const { cookie } = await signIn(app, moderator);
    const res = await call(app, 'GET', `/api/v1/admin/services?limit=100&search=${service.identifier}`, { headers: { cookie } });
    expect(res.status).toBe(200);
    expect(res.body.data.items).toEqual([
      expect.objectContaining({
        id: service.id,
        identifier: service.identifier,
        accountId: service.account.id,
        ownerUsername: service.account.username,
      }),
    ]);
  });

  it('lets a moderator disable and enable a user, ending the user’s sessions', async () => {
    const { app, ctx } = testApp();
    const moderator = await seedAccount(ctx, 'moderator');
    const user = await seedService(ctx);
    const staff = await signIn(app, moderator);
    const userSession = await signIn(app, user.account);

    const disabled = await call(app, 'POST', `/api/v1/admin/accounts/${user.account.id}/disable`, { headers: staff.headers });
    expect(disabled.status).toBe(200);
    expect(disabled.body.data).toMatchObject({ id: user.account.id, disabled: true });
    expect(await ctx.db.selectFrom('sessions').selectAll().where('accountId', '=', user.account.id).execute()).toEqual([]);
    expect((await call(app, 'GET', '/api/v1/account', { headers: { cookie: userSession.cookie } })).status).toBe(401);
    expect((await call(app, 'GET', '/api/v1/account', { key: user.account.accountKey })).status).toBe(401);
    expect((await call(app, 'GET', '/api/v1/keys/api/service/info', { key: user.serviceKey })).status).toBe(401);

    const enabled = await call(app, 'POST', `/api/v1/admin/accounts/${user.account.id}/enable`, { headers: staff.headers });
    expect(enabled.status).toBe(200);
    expect(enabled.body.data.disabled).toBe(false);
    expect((await call(app, 'GET', '/api/v1/account', { key: user.account.accountKey })).status).toBe(200);
    expect((await call(app, 'GET', '/api/v1/keys/api/service/info', { key: user.serviceKey })).status).toBe(200);
  });

  it('lets an admin change a role', async () => {
    const { app, ctx } = testApp();
    const admin = await seedAccount(ctx, 'admin');
    const user = await seedAccount(ctx);
    const { headers } = await signIn(app, admin);
    const res = await call(app, 'PATCH', `/api/v1/admin/accounts/${user.id}`, { headers, body: { role: 'moderator' } });
    expect(res.status).toBe(200);
    expect(res.body.data.role).toBe('moderator');
    const row = await ctx.db.selectFrom('accounts').select('role').where('id', '=', user.id).executeTakeFirstOrThrow();
    expect(row.role).toBe('moderator');
  });
});
