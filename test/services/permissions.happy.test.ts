import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, seedService } from '../helpers/seed.ts';

const t = useTestApp();

describe('GET/PATCH /api/v1/services/:id/permissions', () => {
  it('starts with every flag on', async () => {
    const s = await seedService(t().ctx);
    const res = await call(t().app, 'GET', `/api/v1/services/${s.id}/permissions`, { key: s.account.accountKey });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { allowUrlShortener: true, allowManageKeys: true, allowVss: true } });
  });

  it('changes only the flags a partial PATCH names and answers the record after the change', async () => {
    const s = await seedService(t().ctx);
    const res = await call(t().app, 'PATCH', `/api/v1/services/${s.identifier}/permissions`, {
      key: s.account.accountKey,
      body: { allowManageKeys: false },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { allowUrlShortener: true, allowManageKeys: false, allowVss: true } });
    const second = await call(t().app, 'PATCH', `/api/v1/services/${s.id}/permissions`, {
      key: s.account.accountKey,
      body: { allowVss: false, allowUrlShortener: false },
    });
    expect(second.body.data).toEqual({ allowUrlShortener: false, allowManageKeys: false, allowVss: false });
    const back = await call(t().app, 'PATCH', `/api/v1/services/${s.id}/permissions`, {
      key: s.account.accountKey,
      body: { allowVss: true },
    });
    expect(back.body.data).toEqual({ allowUrlShortener: false, allowManageKeys: false, allowVss: true });
    const read = await call(t().app, 'GET', `/api/v1/services/${s.id}/permissions`, { key: s.account.accountKey });
    expect(read.body.data).toEqual({ allowUrlShortener: false, allowManageKeys: false, allowVss: true });
  });

  it('answers the current record for an empty PATCH', async () => {
    const s = await seedService(t().ctx);
    const res = await call(t().app, 'PATCH', `/api/v1/services/${s.id}/permissions`, { key: s.account.accountKey, body: {} });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ allowUrlShortener: true, allowManageKeys: true, allowVss: true });
  });

  it('takes effect on the service key at once', async () => {
    const s = await seedService(t().ctx);
    const body = { hwid: 'pc-flag' };
    expect((await call(t().app, 'POST', '/api/v1/keys/api/blacklist', { key: s.serviceKey, body })).status).toBe(201);
    await call(t().app, 'PATCH', `/api/v1/services/${s.id}/permissions`, { key: s.account.accountKey, body: { allowManageKeys: false } });
    const denied = await call(t().app, 'DELETE', '/api/v1/keys/api/blacklist?hwid=pc-flag', { key: s.serviceKey });
    expect(denied.status).toBe(403);
    await call(t().app, 'PATCH', `/api/v1/services/${s.id}/permissions`, { key: s.account.accountKey, body: { allowManageKeys: true } });
    expect((await call(t().app, 'DELETE', '/api/v1/keys/api/blacklist?hwid=pc-flag', { key: s.serviceKey })).status).toBe(200);
  });
});
