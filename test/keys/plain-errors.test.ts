import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, generateKeys, seedService } from '../helpers/seed.ts';
import { DAY_MS, expectValidationError, redeem } from '../helpers/records.ts';

// Contract §15: out-of-range numbers are refused (a 400 naming the field), never clamped, and the sentence a
// seller reads names no internal field. Issue 22 item 9: an edit cannot set an expiry in the past.
const t = useTestApp();
const INTERNAL = /expiresAt|chatId|totp|hwidResetCooldown|chat-platform/;

describe('refusals a seller reads', () => {
  it('count 0 generates nothing; days -30 and extend by -10 change nothing', async () => {
    const s = await seedService(t().ctx);
    const zero = await call(t().app, 'POST', '/api/v1/keys/api/generate', {
      key: s.serviceKey,
      body: { expirationType: 'lifetime', count: 0 },
    });
    expectValidationError(zero, 'count');
    expect(zero.body.error).toBe('count must be a whole number from 1 to 1000');
    const negative = await call(t().app, 'POST', '/api/v1/keys/api/generate', {
      key: s.serviceKey,
      body: { expirationType: 'byDays', days: -30 },
    });
    expectValidationError(negative, 'days');
    expect(await t().ctx.db.selectFrom('generatedKeys').select('key').where('serviceId', '=', s.id).execute()).toEqual([]);

    const [key] = await generateKeys(t().app, s.serviceKey, { expirationType: 'byDays', days: 1 });
    await redeem(t().app, s.id, key!, 'pc-1');
    t().clock.advance(2 * DAY_MS);
    const before = await t().ctx.db.selectFrom('activeKeys').select('expiresAt').where('key', '=', key!).executeTakeFirstOrThrow();
    const extend = await call(t().app, 'POST', '/api/v1/keys/api/key/extend-expiration', { key: s.serviceKey, body: { key, days: -10 } });
    expectValidationError(extend, 'days');
    const after = await t().ctx.db.selectFrom('activeKeys').select('expiresAt').where('key', '=', key!).executeTakeFirstOrThrow();
    expect(Number(after.expiresAt)).toBe(Number(before.expiresAt));
  });

  it('a cooldown of -3 or 99999 hours is refused in words, and the stored one stays', async () => {
    const s = await seedService(t().ctx);
    const settings = async () => (await call(t().app, 'GET', '/api/v1/keys/api/service/info', { key: s.serviceKey })).body.data.settings;
    const stored = await settings();
    for (const body of [{ hwidResetCooldownFreeHours: -3 }, { hwidResetCooldownPremiumHours: 99999 }]) {
      const res = await call(t().app, 'PUT', '/api/v1/keys/api/settings', { key: s.serviceKey, body });
      expectValidationError(res, Object.keys(body)[0]!);
      expect(res.body.error).toMatch(/^The HWID reset cooldown for (free|premium) keys \(hours\) must be/);
      expect(res.body.error).not.toMatch(INTERNAL);
    }
    expect(await settings()).toEqual(stored);
  });

  it('a Discord user id that is not 17–20 digits is said as a Discord user id', async () => {
    const s = await seedService(t().ctx);
    const res = await call(t().app, 'POST', '/api/v1/keys/api/generate', {
      key: s.serviceKey,
      body: { expirationType: 'lifetime', chatId: 'someone' },
    });
    expectValidationError(res, 'chatId');
    expect(res.body.error).toBe('The Discord user id must be 17 to 20 digits');
  });

  it('an edit refuses an expiry in the past on active and generated keys, and the key keeps its expiry', async () => {
    const s = await seedService(t().ctx);
    const [active, generated] = await generateKeys(t().app, s.serviceKey, { expirationType: 'byDays', days: 30, count: 2 });
    await redeem(t().app, s.id, active!, 'pc-1');
    for (const [path, key, table] of [
      ['/api/v1/keys/api/key', active!, 'activeKeys'],
      ['/api/v1/keys/api/generated-key', generated!, 'generatedKeys'],
    ] as const) {
      const before = await t().ctx.db.selectFrom(table).select('expiresAt').where('key', '=', key).executeTakeFirstOrThrow();
      const res = await call(t().app, 'PUT', path, { key: s.serviceKey, body: { key, expiresAt: '2001-01-01T00:00:00Z', note: 'typo' } });
      expectValidationError(res, 'expiresAt');
      expect(res.body.error).toMatch(/^The expiry date must be in the future/);
      const after = await t().ctx.db.selectFrom(table).select(['expiresAt', 'note']).where('key', '=', key).executeTakeFirstOrThrow();
      expect(Number(after.expiresAt)).toBe(Number(before.expiresAt));
      expect(after.note).toBeNull();
    }
  });
});
