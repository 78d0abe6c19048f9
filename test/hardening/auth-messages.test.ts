import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, seedAccount } from '../helpers/seed.ts';

/** Issue 8: an account key the server does not know was answered "key is required", which misled new users. */
const t = useTestApp();

describe('an unknown account key', () => {
  it.each([
    ['GET', '/api/v1/account'],
    ['GET', '/api/v1/services'],
    ['POST', '/api/v1/vault-v3/session/token'],
  ] as const)('on %s %s is "not valid", not "required"', async (method, url) => {
    const res = await call(t().app, method, url, { key: 'kw_' + 'z'.repeat(40) });
    expect(res.status).toBe(401);
    expect(res.body.error).toMatch(/not valid/);
    expect(res.body.error).not.toMatch(/required/);
  });

  it('is still told a key is required when none is sent, and a known key works', async () => {
    const res = await call(t().app, 'GET', '/api/v1/services');
    expect(res.status).toBe(401);
    expect(res.body.error).toMatch(/required|Sign in/);
    const account = await seedAccount(t().ctx);
    expect((await call(t().app, 'GET', '/api/v1/services', { key: account.accountKey })).status).toBe(200);
  });
});
