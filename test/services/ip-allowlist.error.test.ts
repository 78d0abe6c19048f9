import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, seedService } from '../helpers/seed.ts';

const t = useTestApp();

describe('PUT /api/v1/services/:id/ip-allowlist: bad entries', () => {
  it.each([
    ['a leading zero', '01.2.3.4'],
    ['a prefix over 32', '1.2.3.4/33'],
    ['an IPv6 address', '::1'],
    ['a hex octet', '0x7f.0.0.1'],
    ['three octets', '1.2.3'],
    ['an octet over 255', '1.2.3.256'],
    ['a negative prefix', '1.2.3.4/-1'],
    ['an empty prefix', '1.2.3.4/'],
    ['a prefix with a leading zero', '1.2.3.4/08'],
    ['surrounding spaces', ' 1.2.3.4'],
    ['a hostname', 'localhost'],
    ['an empty string', ''],
    ['five octets', '1.2.3.4.5'],
  ])('refuses an entry with %s and names it', async (_label, bad) => {
    const s = await seedService(t().ctx);
    const res = await call(t().app, 'PUT', `/api/v1/services/${s.id}/ip-allowlist`, {
      key: s.account.accountKey,
      body: { entries: ['10.0.0.1', '10.0.0.2', bad] },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR', field: 'entries.2' });
    const row = await t().ctx.db.selectFrom('services').select('ipAllowlist').where('id', '=', s.id).executeTakeFirstOrThrow();
    expect(row.ipAllowlist).toBe('[]');
  });

  it('refuses more than 100 entries', async () => {
    const s = await seedService(t().ctx);
    const entries = Array.from({ length: 101 }, (_, i) => `10.0.${i}.1`);
    const res = await call(t().app, 'PUT', `/api/v1/services/${s.id}/ip-allowlist`, { key: s.account.accountKey, body: { entries } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', field: 'entries' });
  });

  it.each([
    ['a missing list', {}, 'entries'],
    ['a string instead of a list', { entries: '1.2.3.4' }, 'entries'],
    ['a number entry', { entries: ['1.2.3.4', 5] }, 'entries.1'],
    ['an unknown field', { entries: [], mode: 'deny' }, 'mode'],
  ])('refuses %s', async (_label, body, field) => {
    const s = await seedService(t().ctx);
    const res = await call(t().app, 'PUT', `/api/v1/services/${s.id}/ip-allowlist`, { key: s.account.accountKey, body });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', field });
  });
});
