import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, seedService } from '../helpers/seed.ts';

const t = useTestApp();
const URL = '/api/v1/keys/api/keyless';

describe('keyless: bad input and missing entries', () => {
  it('answers 409 CONFLICT for an HWID already whitelisted and keeps the first entry', async () => {
    const s = await seedService(t().ctx);
    await call(t().app, 'POST', URL, { key: s.serviceKey, body: { hwid: 'pc-dup' } });
    const res = await call(t().app, 'POST', URL, { key: s.serviceKey, body: { hwid: 'pc-dup', isPremium: true } });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('CONFLICT');
    const row = await t().ctx.db.selectFrom('keyless').selectAll().where('serviceId', '=', s.id).executeTakeFirstOrThrow();
    expect(row.isPremium).toBe(0);
  });

  it('refuses an expiry in the past or now', async () => {
    const s = await seedService(t().ctx);
    for (const expiresAt of [t().clock.now - 1, t().clock.now, new Date(t().clock.now - 60_000).toISOString()]) {
      const res = await call(t().app, 'POST', URL, { key: s.serviceKey, body: { hwid: 'pc-past', expiresAt } });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', field: 'expiresAt' });
    }
    expect(await t().ctx.db.selectFrom('keyless').select('hwid').where('serviceId', '=', s.id).execute()).toHaveLength(0);
  });

  it.each([
    ['a missing hwid', {}, 'hwid'],
    ['an empty hwid', { hwid: '' }, 'hwid'],
    ['an hwid over 256 characters', { hwid: 'h'.repeat(257) }, 'hwid'],
    ['a non-printable hwid', { hwid: 'pc\n1' }, 'hwid'],
    ['a numeric hwid', { hwid: 42 }, 'hwid'],
    ['a string isPremium', { hwid: 'pc', isPremium: 'true' }, 'isPremium'],
    ['an expiry that is not a date', { hwid: 'pc', expiresAt: 'next week' }, 'expiresAt'],
    ['a fractional epoch expiry', { hwid: 'pc', expiresAt: 1.5 }, 'expiresAt'],
    ['an unknown field', { hwid: 'pc', note: 'x' }, 'note'],
  ])('refuses %s', async (_label, body, field) => {
    const s = await seedService(t().ctx);
    const res = await call(t().app, 'POST', URL, { key: s.serviceKey, body });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR', field });
  });

  it('answers 404 for an HWID that is not whitelisted, on GET and DELETE', async () => {
    const s = await seedService(t().ctx);
    const get = await call(t().app, 'GET', `${URL}?hwid=nobody`, { key: s.serviceKey });
    expect(get.status).toBe(404);
    expect(get.body.code).toBe('NOT_FOUND');
    const del = await call(t().app, 'DELETE', `${URL}?hwid=nobody`, { key: s.serviceKey });
    expect(del.status).toBe(404);
  });

  it('needs hwid on GET and DELETE', async () => {
    const s = await seedService(t().ctx);
    const get = await call(t().app, 'GET', URL, { key: s.serviceKey });
    expect(get.status).toBe(400);
    expect(get.body.field).toBe('hwid');
    const del = await call(t().app, 'DELETE', URL, { key: s.serviceKey });
    expect(del.status).toBe(400);
  });

  it('refuses a DELETE body that is not an object', async () => {
    const s = await seedService(t().ctx);
    const res = await call(t().app, 'DELETE', URL, { key: s.serviceKey, body: '["pc"]' });
    expect(res.status).toBe(400);
  });
});
