import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, generateKeys, seedService } from '../helpers/seed.ts';

const t = useTestApp();

const validate = (service: string, query: Record<string, string>) =>
  call(t().app, 'GET', `/api/v1/keys/validate?${new URLSearchParams({ service, ...query })}`);

describe('GET /api/v1/keys/validate', () => {
  it('redeems a generated key on first use and binds the HWID', async () => {
    const s = await seedService(t().ctx);
    const [key] = await generateKeys(t().app, s.serviceKey, { expirationType: 'byDays', days: 3, note: 'n1' });
    const first = await validate(s.identifier, { key: key!, hwid: 'pc-1' });
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ valid: true, code: 'KEY_VALID', isPremium: false });

    const row = await t().ctx.db.selectFrom('activeKeys').selectAll().where('key', '=', key!).executeTakeFirstOrThrow();
    expect(row.hwid).toBe('pc-1');
    expect(row.note).toBe('n1');
    const generated = await t().ctx.db.selectFrom('generatedKeys').selectAll().where('key', '=', key!).execute();
    expect(generated).toHaveLength(0);

    const other = await validate(s.id, { key: key!, hwid: 'pc-2' });
    expect(other.body.data).toMatchObject({ valid: false, code: 'KEY_HWID_LOCKED' });
  });
});
