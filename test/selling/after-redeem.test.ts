import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, generateKeys, seedService, type SeededService } from '../helpers/seed.ts';

const t = useTestApp();
const DAY_MS = 86_400_000;

const api = (s: SeededService, method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown) =>
  call(t().app, method, `/api/v1${path}`, { key: s.serviceKey, body });
const validate = (s: SeededService, key: string, hwid = 'pc-1') =>
  call(t().app, 'POST', '/api/v1/keys/validate', { body: { service: s.identifier, key, hwid } });
const generatedRow = (key: string) => t().ctx.db.selectFrom('generatedKeys').selectAll().where('key', '=', key).executeTakeFirst();
const activeRow = (key: string) => t().ctx.db.selectFrom('activeKeys').selectAll().where('key', '=', key).executeTakeFirst();
const listed = async (s: SeededService, query: Record<string, string>) =>
  (await api(s, 'GET', `/keys/api/keys?${new URLSearchParams(query)}`)).body.data.items.map((k: { key: string }) => k.key);

describe('expirationType afterRedeem (contract §12.1)', () => {
  it('generates keys with no expiry and durationDays, and others with durationDays null', async () => {
    const s = await seedService(t().ctx);
    const res = await api(s, 'POST', '/keys/api/generate', { expirationType: 'afterRedeem', days: 30, count: 2 });
    expect(res.status).toBe(201);
    for (const key of res.body.data.keys) {
      expect(key).toMatchObject({ expirationType: 'afterRedeem', expiresAt: null, durationDays: 30 });
      expect(await generatedRow(key.key)).toMatchObject({ expiresAt: null, durationDays: 30, expirationType: 'afterRedeem' });
    }
    const byDays = await api(s, 'POST', '/keys/api/generate', { expirationType: 'byDays', days: 3 });
    expect(byDays.body.data.keys[0].durationDays).toBeNull();
    const lifetime = await api(s, 'POST', '/keys/api/generate', { expirationType: 'lifetime' });
    expect(lifetime.body.data.keys[0]).toMatchObject({ expiresAt: null, durationDays: null, expirationType: 'lifetime' });
  });

  it.each([
    [{ expirationType: 'afterRedeem' }, 'days'],
    [{ expirationType: 'afterRedeem', days: 0 }, 'days'],
    [{ expirationType: 'afterRedeem', days: 3651 }, 'days'],
    [{ expirationType: 'afterRedeem', days: '7' }, 'days'],
    [{ expirationType: 'afterRedeem', days: 7, expiresAt: '2030-01-01T00:00:00Z' }, 'expiresAt'],
    [{ expirationType: 'lifetime', days: 7 }, 'days'],
  ])('refuses %j with a 400 naming %s and makes nothing', async (body, field) => {
    const s = await seedService(t().ctx);
    const res = await api(s, 'POST', '/keys/api/generate', body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR', field });
    expect((await api(s, 'GET', '/keys/api/keys')).body.data.total).toBe(0);
  });

  it('starts the time at redemption, atomically with it, and expires N days after', async () => {
    const s = await seedService(t().ctx);
    const [key] = await generateKeys(t().app, s.serviceKey, { expirationType: 'afterRedeem', days: 10 });
    t().clock.advance(100 * DAY_MS);
    const redeemedAt = t().clock.now;
    const first = await validate(s, key!);
    expect(first.body.data).toMatchObject({ valid: true, code: 'KEY_VALID', expiresAt: new Date(redeemedAt + 10 * DAY_MS).toISOString() });
    expect(await generatedRow(key!)).toBeUndefined();
    expect((await activeRow(key!))!.expiresAt).toBe(redeemedAt + 10 * DAY_MS);

    t().clock.advance(10 * DAY_MS - 1);
    expect((await validate(s, key!)).body.data.code).toBe('KEY_VALID');
    t().clock.advance(1);
    expect((await validate(s, key!)).body.data.code).toBe('KEY_EXPIRED');
  });

  it('never counts an unredeemed afterRedeem key as expired in the listing', async () => {
    const s = await seedService(t().ctx);
    const [waiting] = await generateKeys(t().app, s.serviceKey, { expirationType: 'afterRedeem', days: 1 });
    const [dated] = await generateKeys(t().app, s.serviceKey, { expirationType: 'byDays', days: 1 });
    t().clock.advance(400 * DAY_MS);
    expect(await listed(s, { expired: 'true' })).toEqual([dated]);
    expect(await listed(s, { expired: 'false' })).toEqual([waiting]);
  });

  it('edits a generated key to start at redemption, and back to a date', async () => {
    const s = await seedService(t().ctx);
    const [key] = await generateKeys(t().app, s.serviceKey, { expirationType: 'byDays', days: 5 });
    const toAfter = await api(s, 'PUT', '/keys/api/generated-key', { key, expirationType: 'afterRedeem', days: 14 });
    expect(toAfter.status).toBe(200);
    expect(toAfter.body.data).toMatchObject({ expirationType: 'afterRedeem', expiresAt: null, durationDays: 14 });

    const date = new Date(t().clock.now + 20 * DAY_MS).toISOString();
    const toDate = await api(s, 'PUT', '/keys/api/generated-key', { key, expiresAt: date });
    expect(toDate.status).toBe(200);
    expect(toDate.body.data).toMatchObject({ expirationType: 'byDate', expiresAt: date, durationDays: null });
  });

  it.each([
    [{ days: 3 }, 'days'],
    [{ expirationType: 'afterRedeem' }, 'days'],
    [{ expirationType: 'afterRedeem', days: 3, expiresAt: '2031-01-01T00:00:00Z' }, 'expiresAt'],
    [{ expirationType: 'byDays', days: 3 }, 'expirationType'],
  ])('refuses the generated-key edit %j naming %s and changes nothing', async (edit, field) => {
    const s = await seedService(t().ctx);
    const [key] = await generateKeys(t().app, s.serviceKey, { expirationType: 'byDays', days: 5 });
    const before = await generatedRow(key!);
    const res = await api(s, 'PUT', '/keys/api/generated-key', { key, ...edit });
    expect(res.status).toBe(400);
    expect(res.body.field).toBe(field);
    expect(await generatedRow(key!)).toEqual(before);
  });

  it('extends an unredeemed afterRedeem key by adding to its length', async () => {
    const s = await seedService(t().ctx);
    const [key] = await generateKeys(t().app, s.serviceKey, { expirationType: 'afterRedeem', days: 10 });
    const res = await api(s, 'POST', '/keys/api/key/extend-expiration', { key, days: 5 });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ expiresAt: null, durationDays: 15 });
    expect((await generatedRow(key!))!.durationDays).toBe(15);
  });
});
