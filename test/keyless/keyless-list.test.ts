import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, seedService } from '../helpers/seed.ts';
import { expectValidationError } from '../helpers/records.ts';

// Contract §15: GET /keys/api/keyless/list, paged, `search` on the HWID.
const t = useTestApp();
const LIST = '/api/v1/keys/api/keyless/list';

describe('GET /keys/api/keyless/list', () => {
  it('pages the service’s entries newest first and searches part of the HWID, ignoring case', async () => {
    const s = await seedService(t().ctx);
    for (const hwid of ['PC-Alpha', 'pc-beta', 'laptop-gamma']) {
      expect((await call(t().app, 'POST', '/api/v1/keys/api/keyless', { key: s.serviceKey, body: { hwid } })).status).toBe(201);
      t().clock.advance(1000);
    }
    const all = await call(t().app, 'GET', `${LIST}?limit=2`, { key: s.serviceKey });
    expect(all.status).toBe(200);
    expect(all.body.data).toMatchObject({ page: 1, limit: 2, total: 3, totalPages: 2 });
    expect(all.body.data.items.map((e: { hwid: string }) => e.hwid)).toEqual(['laptop-gamma', 'pc-beta']);
    expect(all.body.data.items[0]).toEqual({
      hwid: 'laptop-gamma',
      isPremium: false,
      expiresAt: expect.any(String),
      createdAt: expect.any(String),
    });
    const second = await call(t().app, 'GET', `${LIST}?limit=2&page=2`, { key: s.serviceKey });
    expect(second.body.data.items.map((e: { hwid: string }) => e.hwid)).toEqual(['PC-Alpha']);
    const found = await call(t().app, 'GET', `${LIST}?search=PC-`, { key: s.serviceKey });
    expect(found.body.data.items.map((e: { hwid: string }) => e.hwid).sort()).toEqual(['PC-Alpha', 'pc-beta']);
    const literal = await call(t().app, 'GET', `${LIST}?search=${encodeURIComponent('%')}`, { key: s.serviceKey });
    expect(literal.body.data.total).toBe(0);
  });

  it('never shows another service’s entries, and refuses bad paging', async () => {
    const mine = await seedService(t().ctx);
    const other = await seedService(t().ctx);
    await call(t().app, 'POST', '/api/v1/keys/api/keyless', { key: other.serviceKey, body: { hwid: 'their-pc' } });
    const res = await call(t().app, 'GET', LIST, { key: mine.serviceKey });
    expect(res.body.data).toMatchObject({ items: [], total: 0 });
    expectValidationError(await call(t().app, 'GET', `${LIST}?limit=101`, { key: mine.serviceKey }), 'limit');
    expectValidationError(await call(t().app, 'GET', `${LIST}?page=abc`, { key: mine.serviceKey }), 'page');
    expect((await call(t().app, 'GET', LIST)).status).toBe(401);
  });
});
