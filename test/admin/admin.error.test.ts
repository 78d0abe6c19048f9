import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { useTestApp } from '../helpers/app.ts';
import { call, seedAccount } from '../helpers/seed.ts';
import { signIn, SIGNIN_ENV } from '../signin/helpers.ts';

const testApp = useTestApp(SIGNIN_ENV);

describe('staff tool input', () => {
  it('answers 404 for an unknown account id', async () => {
    const { app, ctx } = testApp();
    const { headers } = await signIn(app, await seedAccount(ctx, 'admin'));
    for (const id of [randomUUID(), 'not-a-uuid']) {
      expect((await call(app, 'POST', `/api/v1/admin/accounts/${id}/disable`, { headers })).status).toBe(404);
      expect((await call(app, 'PATCH', `/api/v1/admin/accounts/${id}`, { headers, body: { role: 'user' } })).status).toBe(404);
    }
  });

  it('rejects an unknown role, unknown fields and wrong types', async () => {
    const { app, ctx } = testApp();
    const { headers } = await signIn(app, await seedAccount(ctx, 'admin'));
    const user = await seedAccount(ctx);
    const cases: Array<[unknown, string]> = [
      [{ role: 'root' }, 'role'],
      [{ role: 1 }, 'role'],
      [{}, 'role'],
      [{ role: 'user', disabled: true }, 'disabled'],
    ];
    for (const [body, field] of cases) {
      const res = await call(app, 'PATCH', `/api/v1/admin/accounts/${user.id}`, { headers, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.field).toBe(field);
    }
  });

  it('parses paging strictly', async () => {
    const { app, ctx } = testApp();
    const { cookie } = await signIn(app, await seedAccount(ctx, 'admin'));
    for (const query of ['limit=101', 'limit=1.5', 'limit=abc', 'page=0', 'bogus=1']) {
      const res = await call(app, 'GET', `/api/v1/admin/accounts?${query}`, { headers: { cookie } });
      expect(res.status, query).toBe(400);
    }
    expect((await call(app, 'GET', '/api/v1/admin/services?limit=101', { headers: { cookie } })).status).toBe(400);
  });
});
