import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, seedService } from '../helpers/seed.ts';
import { configure } from './helpers.ts';

const t = useTestApp({ RATE_LIMIT_CLIENT_PER_MINUTE: '3' });

describe('key-system routes and the client rate limit', () => {
  it('share one budget per address and service across the page and the session API, named by id or identifier', async () => {
    const s = await seedService(t().ctx);
    await configure(t().app, s, { enabled: true });
    const other = await seedService(t().ctx);
    await configure(t().app, other, { enabled: true });
    const ip = { remoteAddress: '198.51.100.20' };
    expect((await t().app.inject({ method: 'GET', url: `/key/${s.identifier}`, ...ip })).statusCode).toBe(200);
    expect((await call(t().app, 'POST', `/api/v1/public/key-system/${s.id}/sessions`, { body: { captcha: 'x' }, ...ip })).status).toBe(400);
    expect(
      (await call(t().app, 'GET', `/api/v1/public/key-system/${s.identifier}/sessions/3f2504e0-4f89-11d3-9a0c-0305e82c3301`, ip)).status,
    ).not.toBe(429);
    const limited = await call(t().app, 'GET', `/key/${s.identifier}/return?session=x`, ip);
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe('RATE_LIMITED');
    // Another service, or another address, has its own budget.
    expect((await t().app.inject({ method: 'GET', url: `/key/${other.identifier}`, ...ip })).statusCode).toBe(200);
    expect((await t().app.inject({ method: 'GET', url: `/key/${s.identifier}`, remoteAddress: '198.51.100.21' })).statusCode).toBe(200);
  });
});
