import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, seedService } from '../helpers/seed.ts';

/**
 * Inputs that once reached the database and came back as 500s: NUL bytes (PostgreSQL refuses them in
 * text), dates that parse to nothing, and times past year 9999 that could be stored but never shown.
 */
const t = useTestApp();

describe('hostile input is a 400 naming the field, never a 500', () => {
  it('refuses a NUL byte in a key lookup', async () => {
    const s = await seedService(t().ctx);
    const res = await call(t().app, 'GET', '/api/v1/keys/api/key?key=%00', { key: s.serviceKey });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', field: 'key' });
  });

  it('refuses control characters in a note', async () => {
    const s = await seedService(t().ctx);
    const res = await call(t().app, 'POST', '/api/v1/keys/api/generate', {
      key: s.serviceKey,
      body: { expirationType: 'lifetime', note: 'a\u0000b' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', field: 'note' });
    const stored = await t().ctx.db.selectFrom('generatedKeys').select('key').where('serviceId', '=', s.id).execute();
    expect(stored).toHaveLength(0);
  });

  it.each(['keyless', 'blacklist'])('refuses a leap-second date on POST /keys/api/%s that parses to no time', async (route) => {
    const s = await seedService(t().ctx);
    const res = await call(t().app, 'POST', `/api/v1/keys/api/${route}`, {
      key: s.serviceKey,
      body: { hwid: 'pc-1', expiresAt: '2099-12-31T23:59:60Z' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', field: 'expiresAt' });
  });

  it.each(['keyless', 'blacklist'])('refuses an epoch expiry past year 9999 on POST /keys/api/%s', async (route) => {
    const s = await seedService(t().ctx);
    const res = await call(t().app, 'POST', `/api/v1/keys/api/${route}`, {
      key: s.serviceKey,
      body: { hwid: 'pc-1', expiresAt: 253_402_300_800_000 },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', field: 'expiresAt' });
  });

  it.each([
    ['/api/v1/vss/fetch/%00', 'scriptId'],
    ['/api/v1/vss/fetch/00000000-0000-4000-8000-000000000000?key=%00', 'key'],
    ['/api/v1/lua/check/00000000-0000-4000-8000-000000000000?hwid=%00', 'hwid'],
  ])('refuses a NUL byte on the client route %s', async (url, field) => {
    const res = await call(t().app, 'GET', url);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', field });
  });
});
