import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, seedAccount, seedService } from '../helpers/seed.ts';

const t = useTestApp();
const routes = [
  ['GET', '/api/v1/account'],
  ['GET', '/api/v1/account/api-key'],
  ['POST', '/api/v1/account/api-key/regenerate'],
  ['GET', '/api/v1/account/audit'],
] as const;

describe('account routes: authentication', () => {
  it.each(routes)('%s %s refuses a call without a key', async (method, url) => {
    const res = await call(t().app, method, url);
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ success: false, code: 'UNAUTHORIZED' });
  });

  it.each(routes)('%s %s refuses an account key sent only in the query string', async (method, url) => {
    const a = await seedAccount(t().ctx);
    const res = await call(t().app, method, `${url}?apiKey=${a.accountKey}`);
    expect(res.status).toBe(401);
  });

  it.each(routes)('%s %s refuses a service key', async (method, url) => {
    const s = await seedService(t().ctx);
    const res = await call(t().app, method, url, { key: s.serviceKey });
    expect(res.status).toBe(401);
  });

  it.each(routes)('%s %s refuses an unknown key of the right shape', async (method, url) => {
    const res = await call(t().app, method, url, { key: `kw_${'a'.repeat(40)}` });
    expect(res.status).toBe(401);
  });

  it("regenerating one account key leaves other accounts' keys working", async () => {
    const a = await seedAccount(t().ctx);
    const b = await seedAccount(t().ctx);
    const res = await call(t().app, 'POST', '/api/v1/account/api-key/regenerate', { key: b.accountKey });
    expect(res.status).toBe(200);
    expect((await call(t().app, 'GET', '/api/v1/account', { key: a.accountKey })).status).toBe(200);
    expect((await call(t().app, 'GET', '/api/v1/account', { key: b.accountKey })).status).toBe(401);
  });

  it('refuses the key of a disabled account at once', async () => {
    const a = await seedAccount(t().ctx);
    await t().ctx.db.updateTable('accounts').set({ disabled: 1 }).where('id', '=', a.id).execute();
    const res = await call(t().app, 'GET', '/api/v1/account', { key: a.accountKey });
    expect(res.status).toBe(401);
  });
});
