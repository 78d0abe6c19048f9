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

  it('bulk extend lengthens unused afterRedeem keys and still skips lifetime ones', async () => {
    const s = await seedService(t().ctx);
    const [waiting] = await generateKeys(t().app, s.serviceKey, { expirationType: 'afterRedeem', days: 10 });
    const [lifetime] = await generateKeys(t().app, s.serviceKey, { expirationType: 'lifetime' });
    const res = await api(s, 'POST', '/keys/api/keys/bulk', { action: 'extend', keys: [waiting, lifetime], days: 4 });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ action: 'extend', updated: 1, notFound: [], skipped: [lifetime] });
    expect(await generatedRow(waiting!)).toMatchObject({ expiresAt: null, durationDays: 14 });
    expect(await generatedRow(lifetime!)).toMatchObject({ expiresAt: null, durationDays: null });
  });

  describe('export and import carry durationDays', () => {
    let n = 0;
    const importKey = () => `imp${process.pid}x${++n}`.padEnd(12, '0');
    const importKeys = (s: SeededService, body: unknown) => api(s, 'POST', '/keys/api/keys/import', body);
    const header =
      'key,type,status,hwids,note,isPremium,noHwidValidation,maxHwids,expiresAt,chatId,executions,createdAt,activatedAt,lastUsedAt,durationDays';

    it('writes durationDays as the CSV column after lastUsedAt and as a JSON field', async () => {
      const s = await seedService(t().ctx);
      const [key] = await generateKeys(t().app, s.serviceKey, { expirationType: 'afterRedeem', days: 9 });
      const csv = await t().app.inject({ method: 'GET', url: '/api/v1/keys/api/keys/export', headers: { 'x-api-key': s.serviceKey } });
      const [head, row] = csv.body.split('\r\n');
      expect(head).toBe(header);
      expect(row!.startsWith(`${key},generated,`)).toBe(true);
      expect(row!.endsWith(',,,9')).toBe(true);
      const json = await t().app.inject({
        method: 'GET',
        url: '/api/v1/keys/api/keys/export?format=json',
        headers: { 'x-api-key': s.serviceKey },
      });
      expect(JSON.parse(json.body)).toMatchObject([{ key, expirationType: 'afterRedeem', expiresAt: null, durationDays: 9 }]);
    });

    it('imports a CSV durationDays as a key whose time starts at redemption', async () => {
      const s = await seedService(t().ctx);
      const key = importKey();
      const data = `${header}\r\n${key},generated,active,,,false,false,1,,,0,,,,21\r\n`;
      const res = await importKeys(s, { format: 'keyward-csv', data });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(await generatedRow(key)).toMatchObject({ expirationType: 'afterRedeem', expiresAt: null, durationDays: 21 });
    });

    it.each([
      [{ type: 'active', hwids: ['pc'], executions: 3, durationDays: 5 }, 'durationDays'],
      [{ expiresAt: '2030-01-01T00:00:00.000Z', durationDays: 5 }, 'durationDays'],
      [{ durationDays: 0 }, 'durationDays'],
      [{ durationDays: 3651 }, 'durationDays'],
      [{ expirationType: 'afterRedeem' }, 'expirationType'],
    ])('refuses the JSON record %j naming %s and imports nothing', async (fields, field) => {
      const s = await seedService(t().ctx);
      const key = importKey();
      const res = await importKeys(s, { format: 'keyward-json', data: [{ key, ...fields }] });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([expect.objectContaining({ index: 0, field })]);
      expect(await generatedRow(key)).toBeUndefined();
    });

    it("maps Luarmor's key_days of an unused key, and ignores it on a used one", async () => {
      const s = await seedService(t().ctx);
      const [unused, used, none] = [importKey(), importKey(), importKey()];
      const res = await importKeys(s, {
        format: 'luarmor',
        data: [
          { user_key: unused, identifier: '', auth_expire: -1, key_days: 30 },
          { user_key: used, identifier: 'pc-9', auth_expire: 1_900_000_000, key_days: 30 },
          { user_key: none, identifier: '', auth_expire: -1, key_days: -1 },
        ],
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(await generatedRow(unused)).toMatchObject({ expirationType: 'afterRedeem', expiresAt: null, durationDays: 30 });
      expect(await activeRow(used)).toMatchObject({ expiresAt: 1_900_000_000_000 });
      expect(await generatedRow(none)).toMatchObject({ expirationType: 'lifetime', expiresAt: null, durationDays: null });

      const bad = await importKeys(s, { format: 'luarmor', data: [{ user_key: importKey(), key_days: 'thirty' }] });
      expect(bad.status).toBe(400);
      expect(bad.body.errors).toEqual([expect.objectContaining({ index: 0, field: 'key_days' })]);
    });
  });
});
