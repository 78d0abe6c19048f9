import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, seedService } from '../helpers/seed.ts';

const t = useTestApp({ RATE_LIMIT_API_PER_MINUTE: '3' });
const INFO = '/api/v1/keys/api/service/info';

describe('API-key rate limit (RATE_LIMIT_API_PER_MINUTE=3)', () => {
  it('refuses the 4th call with one key with 429 RATE_LIMITED, Retry-After and RateLimit headers', async () => {
    const s = await seedService(t().ctx);
    const remaining: string[] = [];
    for (let i = 0; i < 3; i++) {
      const ok = await call(t().app, 'GET', INFO, { key: s.serviceKey });
      expect(ok.status).toBe(200);
      expect(ok.headers['ratelimit-limit']).toBe('3');
      remaining.push(String(ok.headers['ratelimit-remaining']));
      expect(ok.headers['ratelimit-reset']).toBeDefined();
    }
    expect(remaining).toEqual(['2', '1', '0']);
    const limited = await call(t().app, 'GET', INFO, { key: s.serviceKey });
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ success: false, code: 'RATE_LIMITED' });
    const retryAfter = Number(limited.headers['retry-after']);
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited.headers['ratelimit-limit']).toBe('3');
    expect(limited.headers['ratelimit-remaining']).toBe('0');
    expect(Number(limited.headers['ratelimit-reset'])).toBeGreaterThan(0);
    expect(limited.headers['x-request-id']).toBeDefined();
  });

  it('leaves another key unaffected', async () => {
    const busy = await seedService(t().ctx);
    const quiet = await seedService(t().ctx);
    for (let i = 0; i < 4; i++) await call(t().app, 'GET', INFO, { key: busy.serviceKey });
    expect((await call(t().app, 'GET', INFO, { key: busy.serviceKey })).status).toBe(429);
    expect((await call(t().app, 'GET', INFO, { key: quiet.serviceKey })).status).toBe(200);
    expect((await call(t().app, 'GET', '/api/v1/account', { key: quiet.account.accountKey })).status).toBe(200);
  });

  it('counts a key the same in X-API-Key and in Authorization: Bearer', async () => {
    const s = await seedService(t().ctx);
    await call(t().app, 'GET', INFO, { key: s.serviceKey });
    await call(t().app, 'GET', INFO, { headers: { authorization: `Bearer ${s.serviceKey}` } });
    await call(t().app, 'GET', INFO, { key: s.serviceKey });
    const fourth = await call(t().app, 'GET', INFO, { headers: { authorization: `Bearer ${s.serviceKey}` } });
    expect(fourth.status).toBe(429);
  });

  it('counts one budget per key across all API-key routes, not one per route', async () => {
    const s = await seedService(t().ctx);
    expect((await call(t().app, 'GET', INFO, { key: s.serviceKey })).status).toBe(200);
    expect((await call(t().app, 'GET', '/api/v1/keys/api/service/status', { key: s.serviceKey })).status).toBe(200);
    expect((await call(t().app, 'GET', '/api/v1/keys/api/blacklist', { key: s.serviceKey })).status).toBe(200);
    const fourth = await call(t().app, 'GET', '/api/v1/keys/api/execution', { key: s.serviceKey });
    expect(fourth.status).toBe(429);
    expect(fourth.body.code).toBe('RATE_LIMITED');
  });

  it('does not limit the public health check', async () => {
    for (let i = 0; i < 5; i++) expect((await call(t().app, 'GET', '/healthz')).status).toBe(200);
  });
});
