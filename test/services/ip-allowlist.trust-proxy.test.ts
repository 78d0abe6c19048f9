import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, seedService } from '../helpers/seed.ts';

const t = useTestApp({ TRUST_PROXY: 'true' });

describe('IP allowlist behind a trusted proxy (TRUST_PROXY=true)', () => {
  it('takes the client address from X-Forwarded-For', async () => {
    const s = await seedService(t().ctx);
    await call(t().app, 'PUT', `/api/v1/services/${s.id}/ip-allowlist`, { key: s.account.accountKey, body: { entries: ['1.2.3.4'] } });
    const inside = await call(t().app, 'GET', '/api/v1/keys/api/service/info', {
      key: s.serviceKey,
      remoteAddress: '10.0.0.1',
      headers: { 'x-forwarded-for': '1.2.3.4' },
    });
    expect(inside.status).toBe(200);
    const outside = await call(t().app, 'GET', '/api/v1/keys/api/service/info', {
      key: s.serviceKey,
      remoteAddress: '1.2.3.4',
      headers: { 'x-forwarded-for': '9.9.9.9' },
    });
    expect(outside.status).toBe(403);
    expect(outside.body.code).toBe('IP_NOT_ALLOWED');
  });

  it('uses the socket address when no X-Forwarded-For is sent', async () => {
    const s = await seedService(t().ctx);
    await call(t().app, 'PUT', `/api/v1/services/${s.id}/ip-allowlist`, { key: s.account.accountKey, body: { entries: ['1.2.3.4'] } });
    expect((await call(t().app, 'GET', '/api/v1/keys/api/service/info', { key: s.serviceKey, remoteAddress: '1.2.3.4' })).status).toBe(200);
    expect((await call(t().app, 'GET', '/api/v1/keys/api/service/info', { key: s.serviceKey, remoteAddress: '1.2.3.5' })).status).toBe(403);
  });
});
