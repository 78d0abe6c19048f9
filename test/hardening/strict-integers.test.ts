import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, seedService } from '../helpers/seed.ts';

/** Contract §1: page and limit are parsed strictly; `0100` is not how anyone writes 100. */
const t = useTestApp();

describe('strict query integers', () => {
  it.each(['0100', '00', '01', '+5', '5.0', '1e1', ' 5'])('refuses limit=%s with a 400 naming limit', async (limit) => {
    const s = await seedService(t().ctx);
    const res = await call(t().app, 'GET', `/api/v1/keys/api/blacklist?limit=${encodeURIComponent(limit)}`, { key: s.serviceKey });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', field: 'limit' });
  });

  it('still takes plain numbers', async () => {
    const s = await seedService(t().ctx);
    const res = await call(t().app, 'GET', '/api/v1/keys/api/blacklist?limit=100&page=1', { key: s.serviceKey });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ page: 1, limit: 100 });
  });
});
