import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, seedService } from '../helpers/seed.ts';

const t = useTestApp();
const URL = '/api/v1/keys/api/blacklist';

describe('blacklist: bad input', () => {
  it.each([
    ['limit=1.5', 'limit'],
    ['limit=abc', 'limit'],
    ['limit=101', 'limit'],
    ['limit=0', 'limit'],
    ['limit=-1', 'limit'],
    ['limit=', 'limit'],
    ['limit=1e1', 'limit'],
    ['page=0', 'page'],
    ['page=1.0', 'page'],
    ['page=x', 'page'],
    [`search=${'s'.repeat(257)}`, 'search'],
  ])('refuses ?%s when listing', async (query, field) => {
    const s = await seedService(t().ctx);
    const res = await call(t().app, 'GET', `${URL}?${query}`, { key: s.serviceKey });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR', field });
  });

  it('answers 409 CONFLICT for an HWID already banned and keeps the first ban', async () => {
    const s = await seedService(t().ctx);
    await call(t().app, 'POST', URL, { key: s.serviceKey, body: { hwid: 'pc-dup', reason: 'first' } });
    const res = await call(t().app, 'POST', URL, { key: s.serviceKey, body: { hwid: 'pc-dup', reason: 'second' } });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('CONFLICT');
    const row = await t().ctx.db.selectFrom('blacklist').selectAll().where('serviceId', '=', s.id).executeTakeFirstOrThrow();
    expect(row.reason).toBe('first');
  });

  it.each([
    ['a reason over 512 characters', { hwid: 'pc', reason: 'r'.repeat(513) }, 'reason'],
    ['a numeric reason', { hwid: 'pc', reason: 5 }, 'reason'],
    ['a missing hwid', { reason: 'x' }, 'hwid'],
    ['an empty hwid', { hwid: '' }, 'hwid'],
    ['an hwid over 256 characters', { hwid: 'h'.repeat(257) }, 'hwid'],
    ['a past expiry', { hwid: 'pc', expiresAt: Date.UTC(2020, 0, 1) }, 'expiresAt'],
    ['an expiry that is not a date', { hwid: 'pc', expiresAt: 'soon' }, 'expiresAt'],
    ['a string epoch expiry', { hwid: 'pc', expiresAt: '1900000000000' }, 'expiresAt'],
    ['an unknown field', { hwid: 'pc', permanent: true }, 'permanent'],
  ])('refuses %s', async (_label, body, field) => {
    const s = await seedService(t().ctx);
    const res = await call(t().app, 'POST', URL, { key: s.serviceKey, body });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', field });
    expect(await t().ctx.db.selectFrom('blacklist').select('hwid').where('serviceId', '=', s.id).execute()).toHaveLength(0);
  });

  it('answers 404 when deleting an HWID that is not banned', async () => {
    const s = await seedService(t().ctx);
    const res = await call(t().app, 'DELETE', `${URL}?hwid=nobody`, { key: s.serviceKey });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('NOT_FOUND');
  });

  it('needs hwid to check and to delete', async () => {
    const s = await seedService(t().ctx);
    expect((await call(t().app, 'GET', `${URL}/check`, { key: s.serviceKey })).body.field).toBe('hwid');
    expect((await call(t().app, 'DELETE', URL, { key: s.serviceKey })).status).toBe(400);
    expect((await call(t().app, 'DELETE', URL, { key: s.serviceKey, body: { hwid: 7 } })).status).toBe(400);
  });
});
