import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, generateKeys, seedService } from '../helpers/seed.ts';

/** Issue 8, finding 8: a lookup by note used to stop at 1,000 rows without a word; now the answer says so. */
const t = useTestApp();

describe('GET /keys/api/generated-key?note=', () => {
  it('lists the oldest 1,000 and says more matched', async () => {
    const s = await seedService(t().ctx);
    const first = await generateKeys(t().app, s.serviceKey, { expirationType: 'lifetime', count: 1000, note: 'bulk' });
    t().clock.advance(1000);
    await generateKeys(t().app, s.serviceKey, { expirationType: 'lifetime', count: 1, note: 'bulk' });
    const res = await call(t().app, 'GET', '/api/v1/keys/api/generated-key?note=bulk', { key: s.serviceKey });
    expect(res.status).toBe(200);
    expect(res.body.data.truncated).toBe(true);
    expect(res.body.data.keys).toHaveLength(1000);
    expect(new Set(res.body.data.keys.map((k: { key: string }) => k.key))).toEqual(new Set(first));
  });

  it('keeps the contract shape when all are listed', async () => {
    const s = await seedService(t().ctx);
    await generateKeys(t().app, s.serviceKey, { expirationType: 'lifetime', count: 2, note: 'pair' });
    const res = await call(t().app, 'GET', '/api/v1/keys/api/generated-key?note=pair', { key: s.serviceKey });
    expect(Object.keys(res.body.data)).toEqual(['keys']);
    expect(res.body.data.keys).toHaveLength(2);
  });
});
