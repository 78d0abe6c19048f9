import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, seedService } from '../helpers/seed.ts';
import { DAY_MS } from '../../src/lib/time.ts';

const t = useTestApp();
const URL = '/api/v1/keys/api/keyless';

describe('POST /api/v1/keys/api/keyless', () => {
  it('adds an entry, by default not premium and expiring one calendar year after creation', async () => {
    const s = await seedService(t().ctx);
    const created = new Date(t().clock.now).toISOString();
    const res = await call(t().app, 'POST', URL, { key: s.serviceKey, body: { hwid: 'pc-default' } });
    expect(res.status).toBe(201);
    const nextYear = new Date(t().clock.now);
    nextYear.setUTCFullYear(nextYear.getUTCFullYear() + 1);
    expect(res.body).toEqual({
      success: true,
      data: { hwid: 'pc-default', isPremium: false, expiresAt: nextYear.toISOString(), createdAt: created },
    });
    const row = await t().ctx.db.selectFrom('keyless').selectAll().where('serviceId', '=', s.id).executeTakeFirstOrThrow();
    expect(Number(row.expiresAt)).toBe(nextYear.getTime());
  });

  it('counts the default year in calendar terms, not 365 days, across a leap day', async () => {
    const s = await seedService(t().ctx);
    const saved = t().clock.now;
    t().clock.now = Date.UTC(2027, 5, 1, 12, 0, 0); // a year that contains 29 February 2028
    try {
      const res = await call(t().app, 'POST', URL, { key: s.serviceKey, body: { hwid: 'pc-leap' } });
      expect(res.body.data.expiresAt).toBe('2028-06-01T12:00:00.000Z');
    } finally {
      t().clock.now = saved;
    }
  });

  it('takes isPremium and an expiry as ISO string or epoch milliseconds', async () => {
    const s = await seedService(t().ctx);
    const iso = new Date(t().clock.now + 3 * DAY_MS).toISOString();
    const a = await call(t().app, 'POST', URL, { key: s.serviceKey, body: { hwid: 'pc-a', isPremium: true, expiresAt: iso } });
    expect(a.status).toBe(201);
    expect(a.body.data).toMatchObject({ hwid: 'pc-a', isPremium: true, expiresAt: iso });
    const ms = t().clock.now + 5 * DAY_MS;
    const b = await call(t().app, 'POST', URL, { key: s.serviceKey, body: { hwid: 'pc-b', expiresAt: ms } });
    expect(b.status).toBe(201);
    expect(b.body.data.expiresAt).toBe(new Date(ms).toISOString());
  });

  it('lets an entry that has lapsed be added again', async () => {
    const s = await seedService(t().ctx);
    await call(t().app, 'POST', URL, { key: s.serviceKey, body: { hwid: 'pc-lapse', expiresAt: t().clock.now + DAY_MS } });
    t().clock.advance(2 * DAY_MS);
    const res = await call(t().app, 'POST', URL, { key: s.serviceKey, body: { hwid: 'pc-lapse', isPremium: true } });
    expect(res.status).toBe(201);
    expect(res.body.data.isPremium).toBe(true);
  });

  it('lets the whitelisted HWID validate without a key', async () => {
    const s = await seedService(t().ctx);
    await call(t().app, 'POST', URL, { key: s.serviceKey, body: { hwid: 'pc-kl', isPremium: true } });
    const res = await call(t().app, 'GET', `/api/v1/keys/validate?service=${s.id}&hwid=pc-kl`);
    expect(res.body.data).toMatchObject({ valid: true, code: 'KEYLESS', isPremium: true });
  });
});

describe('GET /api/v1/keys/api/keyless', () => {
  it('reads one entry by HWID', async () => {
    const s = await seedService(t().ctx);
    await call(t().app, 'POST', URL, { key: s.serviceKey, body: { hwid: 'pc read/?&=' } });
    const res = await call(t().app, 'GET', `${URL}?hwid=${encodeURIComponent('pc read/?&=')}`, { key: s.serviceKey });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ hwid: 'pc read/?&=', isPremium: false });
  });
});

describe('DELETE /api/v1/keys/api/keyless', () => {
  it('removes an entry named in the query string', async () => {
    const s = await seedService(t().ctx);
    await call(t().app, 'POST', URL, { key: s.serviceKey, body: { hwid: 'pc-del' } });
    const res = await call(t().app, 'DELETE', `${URL}?hwid=pc-del`, { key: s.serviceKey });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { deleted: 1 } });
    expect(await t().ctx.db.selectFrom('keyless').select('hwid').where('serviceId', '=', s.id).execute()).toHaveLength(0);
  });

  it('removes an entry named in a JSON body', async () => {
    const s = await seedService(t().ctx);
    await call(t().app, 'POST', URL, { key: s.serviceKey, body: { hwid: 'pc-del-body' } });
    const res = await call(t().app, 'DELETE', URL, { key: s.serviceKey, body: { hwid: 'pc-del-body' } });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ deleted: 1 });
    expect((await call(t().app, 'GET', `${URL}?hwid=pc-del-body`, { key: s.serviceKey })).status).toBe(404);
  });
});
