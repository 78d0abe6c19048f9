import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, seedService } from '../helpers/seed.ts';
import { expectValidationError } from '../helpers/records.ts';
import { SIGNIN_ENV } from '../signin/helpers.ts';

// Contract §15: `accentColor` (#rrggbb) in the key-system settings colours the get-key page.
const t = useTestApp(SIGNIN_ENV);
const url = '/api/v1/keys/api/key-system';

describe('key-system accentColor', () => {
  it('is saved as #rrggbb (lower case), read back, colours the page, and null restores the default', async () => {
    const s = await seedService(t().ctx);
    const saved = await call(t().app, 'PUT', url, { key: s.serviceKey, body: { enabled: true, accentColor: '#FF8800' } });
    expect(saved.status).toBe(200);
    expect(saved.body.data.accentColor).toBe('#ff8800');
    expect((await call(t().app, 'GET', url, { key: s.serviceKey })).body.data.accentColor).toBe('#ff8800');
    const row = await t()
      .ctx.db.selectFrom('keySystemSettings')
      .select('accentColor')
      .where('serviceId', '=', s.id)
      .executeTakeFirstOrThrow();
    expect(row.accentColor).toBe('#ff8800');
    const page = await t().app.inject({ method: 'GET', url: `/key/${s.identifier}` });
    expect(page.body).toContain('--accent: #ff8800;');
    const cleared = await call(t().app, 'PUT', url, { key: s.serviceKey, body: { accentColor: null } });
    expect(cleared.body.data.accentColor).toBeNull();
    expect((await t().app.inject({ method: 'GET', url: `/key/${s.identifier}` })).body).not.toContain('--accent: #ff8800;');
  });

  it('refuses anything but #rrggbb with a sentence naming the accent colour, and keeps the stored one', async () => {
    const s = await seedService(t().ctx);
    await call(t().app, 'PUT', url, { key: s.serviceKey, body: { accentColor: '#123456' } });
    for (const accentColor of ['red', '#fff', '#12345g', '#1234567', '</style><script>', 12]) {
      const res = await call(t().app, 'PUT', url, { key: s.serviceKey, body: { accentColor } });
      expectValidationError(res, 'accentColor');
      expect(res.body.error).toBe('The accent colour must be a colour written #rrggbb (for example #4c6ef5), or null for the default');
    }
    expect((await call(t().app, 'GET', url, { key: s.serviceKey })).body.data.accentColor).toBe('#123456');
  });

  it('another service’s key cannot read or change it', async () => {
    const mine = await seedService(t().ctx);
    const other = await seedService(t().ctx);
    await call(t().app, 'PUT', url, { key: mine.serviceKey, body: { accentColor: '#abcdef' } });
    await call(t().app, 'PUT', url, { key: other.serviceKey, body: { accentColor: '#000000' } });
    expect((await call(t().app, 'GET', url, { key: mine.serviceKey })).body.data.accentColor).toBe('#abcdef');
  });
});
