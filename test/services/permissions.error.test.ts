import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, seedService } from '../helpers/seed.ts';

const t = useTestApp();

describe('PATCH /api/v1/services/:id/permissions: bad input', () => {
  it.each([
    ['a string for a boolean', { allowVss: 'false' }, 'allowVss'],
    ['a number for a boolean', { allowManageKeys: 0 }, 'allowManageKeys'],
    ['null for a boolean', { allowUrlShortener: null }, 'allowUrlShortener'],
    ['an unknown field', { allowEverything: true }, 'allowEverything'],
  ])('refuses %s with 400 and changes nothing', async (_label, body, field) => {
    const s = await seedService(t().ctx);
    const res = await call(t().app, 'PATCH', `/api/v1/services/${s.id}/permissions`, { key: s.account.accountKey, body });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR', field });
    const row = await t()
      .ctx.db.selectFrom('services')
      .select(['allowVss', 'allowManageKeys', 'allowUrlShortener'])
      .where('id', '=', s.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ allowVss: 1, allowManageKeys: 1, allowUrlShortener: 1 });
  });

  it('refuses a body that is not an object', async () => {
    const s = await seedService(t().ctx);
    for (const body of ['[]', '"allowVss"', 'true']) {
      const res = await call(t().app, 'PATCH', `/api/v1/services/${s.id}/permissions`, { key: s.account.accountKey, body });
      expect(res.status).toBe(400);
    }
  });
});
