import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, seedService, type SeededService } from '../helpers/seed.ts';
import { DAY_MS, HOUR_MS } from '../../src/lib/time.ts';

const t = useTestApp();
const URL = '/api/v1/keys/api/blacklist';

const ban = (s: SeededService, body: Record<string, unknown>) => call(t().app, 'POST', URL, { key: s.serviceKey, body });
const list = (s: SeededService, query = '') => call(t().app, 'GET', `${URL}${query}`, { key: s.serviceKey });

describe('POST /api/v1/keys/api/blacklist', () => {
  it('adds a permanent ban without reason by default', async () => {
    const s = await seedService(t().ctx);
    const res = await ban(s, { hwid: 'pc-perm' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      success: true,
      data: { hwid: 'pc-perm', reason: null, expiresAt: null, createdAt: new Date(t().clock.now).toISOString() },
    });
  });

  it('stores a reason of 512 characters and an expiry', async () => {
    const s = await seedService(t().ctx);
    const reason = 'r'.repeat(512);
    const expiresAt = new Date(t().clock.now + DAY_MS).toISOString();
    const res = await ban(s, { hwid: 'pc-r', reason, expiresAt });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ hwid: 'pc-r', reason, expiresAt });
  });

  it('lets a lapsed ban be added again', async () => {
    const s = await seedService(t().ctx);
    await ban(s, { hwid: 'pc-again', expiresAt: t().clock.now + HOUR_MS });
    t().clock.advance(2 * HOUR_MS);
    const res = await ban(s, { hwid: 'pc-again', reason: 'second time' });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ reason: 'second time', expiresAt: null });
  });

  it('makes client validation refuse the HWID', async () => {
    const s = await seedService(t().ctx);
    await ban(s, { hwid: 'pc-banned' });
    const res = await call(t().app, 'GET', `/api/v1/keys/validate?service=${s.id}&hwid=pc-banned`);
    expect(res.body.data).toMatchObject({ valid: false, code: 'HWID_BLACKLISTED' });
  });
});

describe('GET /api/v1/keys/api/blacklist', () => {
  it('pages entries newest first with page, limit, total and totalPages', async () => {
    const s = await seedService(t().ctx);
    for (let i = 0; i < 25; i++) {
      await ban(s, { hwid: `pc-${String(i).padStart(2, '0')}` });
      t().clock.advance(1000);
    }
    const first = await list(s);
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ page: 1, limit: 20, total: 25, totalPages: 2 });
    expect(first.body.data.items).toHaveLength(20);
    expect(first.body.data.items[0].hwid).toBe('pc-24');
    expect(first.body.data.items[19].hwid).toBe('pc-05');

    const third = await list(s, '?page=3&limit=10');
    expect(third.body.data).toMatchObject({ page: 3, limit: 10, total: 25, totalPages: 3 });
    expect(third.body.data.items.map((e: { hwid: string }) => e.hwid)).toEqual(['pc-04', 'pc-03', 'pc-02', 'pc-01', 'pc-00']);

    const beyond = await list(s, '?page=4&limit=10');
    expect(beyond.status).toBe(200);
    expect(beyond.body.data.items).toEqual([]);

    const max = await list(s, '?limit=100');
    expect(max.body.data.items).toHaveLength(25);
  });

  it('answers an empty page for an empty blacklist', async () => {
    const s = await seedService(t().ctx);
    const res = await list(s);
    expect(res.body.data).toEqual({ items: [], page: 1, limit: 20, total: 0, totalPages: 0 });
  });

  it('searches a substring of hwid or reason, case-insensitively', async () => {
    const s = await seedService(t().ctx);
    await ban(s, { hwid: 'Alpha-PC', reason: 'chargeback' });
    await ban(s, { hwid: 'beta-pc', reason: 'Shared KEY on forum' });
    await ban(s, { hwid: 'gamma', reason: 'spam' });
    const hwid = await list(s, '?search=ALPHA');
    expect(hwid.body.data.items.map((e: { hwid: string }) => e.hwid)).toEqual(['Alpha-PC']);
    expect(hwid.body.data.total).toBe(1);
    const reason = await list(s, '?search=key%20on');
    expect(reason.body.data.items.map((e: { hwid: string }) => e.hwid)).toEqual(['beta-pc']);
    const both = await list(s, '?search=pc');
    expect(both.body.data.total).toBe(2);
  });

  it('treats % and _ in the search literally', async () => {
    const s = await seedService(t().ctx);
    await ban(s, { hwid: 'a%b' });
    await ban(s, { hwid: 'axb' });
    await ban(s, { hwid: 'c_d' });
    await ban(s, { hwid: 'cyd', reason: '100% sure' });
    await ban(s, { hwid: 'back\\slash' });
    const percent = await list(s, `?search=${encodeURIComponent('%')}`);
    expect(percent.body.data.items.map((e: { hwid: string }) => e.hwid).sort()).toEqual(['a%b', 'cyd']);
    const underscore = await list(s, `?search=${encodeURIComponent('_')}`);
    expect(underscore.body.data.items.map((e: { hwid: string }) => e.hwid)).toEqual(['c_d']);
    const slash = await list(s, `?search=${encodeURIComponent('\\')}`);
    expect(slash.body.data.items.map((e: { hwid: string }) => e.hwid)).toEqual(['back\\slash']);
  });
});

describe('DELETE /api/v1/keys/api/blacklist', () => {
  it('removes a ban named in the query string', async () => {
    const s = await seedService(t().ctx);
    await ban(s, { hwid: 'pc-q' });
    const res = await call(t().app, 'DELETE', `${URL}?hwid=pc-q`, { key: s.serviceKey });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { deleted: 1 } });
    expect(await t().ctx.db.selectFrom('blacklist').select('hwid').where('serviceId', '=', s.id).execute()).toHaveLength(0);
  });

  it('removes a ban named in a JSON body', async () => {
    const s = await seedService(t().ctx);
    await ban(s, { hwid: 'pc-b' });
    const res = await call(t().app, 'DELETE', URL, { key: s.serviceKey, body: { hwid: 'pc-b' } });
    expect(res.status).toBe(200);
    expect(await t().ctx.db.selectFrom('blacklist').select('hwid').where('serviceId', '=', s.id).execute()).toHaveLength(0);
  });
});

describe('GET /api/v1/keys/api/blacklist/check', () => {
  it('reports a ban in force with its reason and expiry', async () => {
    const s = await seedService(t().ctx);
    const expiresAt = new Date(t().clock.now + DAY_MS).toISOString();
    await ban(s, { hwid: 'pc-c', reason: 'abuse', expiresAt });
    const res = await call(t().app, 'GET', `${URL}/check?hwid=pc-c`, { key: s.serviceKey });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ hwid: 'pc-c', blacklisted: true, reason: 'abuse', expiresAt });
  });

  it('reports an HWID without a ban, and one whose ban lapsed, as not blacklisted', async () => {
    const s = await seedService(t().ctx);
    const clean = await call(t().app, 'GET', `${URL}/check?hwid=pc-clean`, { key: s.serviceKey });
    expect(clean.body.data).toEqual({ hwid: 'pc-clean', blacklisted: false, reason: null, expiresAt: null });
    await ban(s, { hwid: 'pc-lapse', reason: 'temp', expiresAt: t().clock.now + HOUR_MS });
    t().clock.advance(HOUR_MS);
    const lapsed = await call(t().app, 'GET', `${URL}/check?hwid=pc-lapse`, { key: s.serviceKey });
    expect(lapsed.body.data).toEqual({ hwid: 'pc-lapse', blacklisted: false, reason: null, expiresAt: null });
  });
});
