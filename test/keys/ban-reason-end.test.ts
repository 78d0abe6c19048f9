// Contract §19: bans with a reason and an end, in Keyward's own API; the lapse holds on every instance.
import { describe, expect, it } from 'vitest';
import type { App } from '../../src/app.ts';
import { anotherInstance, useTestApp } from '../helpers/app.ts';
import { call, generateKeys, type SeededService } from '../helpers/seed.ts';
import { DAY_MS, expectActiveKey, expectValidationError, iso, redeem, serviceSeeder } from '../helpers/records.ts';

const t = useTestApp();
const newService = serviceSeeder(t);

const validate = (app: App, s: SeededService, key: string, hwid = 'pc-1') =>
  call(app, 'GET', `/api/v1/keys/validate?${new URLSearchParams({ service: s.identifier, key, hwid })}`);
const edit = (s: SeededService, body: Record<string, unknown>) => call(t().app, 'PUT', '/api/v1/keys/api/key', { key: s.serviceKey, body });
const lookup = async (s: SeededService, key: string) =>
  (await call(t().app, 'GET', `/api/v1/keys/api/key?key=${key}`, { key: s.serviceKey })).body.data.keys[0];

async function boundKey(s: SeededService) {
  const [key] = await generateKeys(t().app, s.serviceKey);
  await redeem(t().app, s.identifier, key!, 'pc-1');
  return key!;
}

describe('PUT /keys/api/key with status banned (§19)', () => {
  it('sets banReason and banExpiresAt; KEY_BANNED carries the reason', async () => {
    const s = await newService();
    const key = await boundKey(s);
    const end = t().clock.now + DAY_MS;
    const res = await edit(s, { key, status: 'banned', banReason: 'chargeback', banExpiresAt: iso(end) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expectActiveKey(res.body.data);
    expect(res.body.data).toMatchObject({ status: 'banned', banReason: 'chargeback', banExpiresAt: iso(end) });
    const verdict = await validate(t().app, s, key);
    expect(verdict.body.data).toMatchObject({ valid: false, code: 'KEY_BANNED', message: 'This key is banned: chargeback' });
  });

  it('bans without a reason or an end as before (null, null), and another status clears both', async () => {
    const s = await newService();
    const key = await boundKey(s);
    expect((await edit(s, { key, status: 'banned' })).body.data).toMatchObject({ status: 'banned', banReason: null, banExpiresAt: null });
    expect((await validate(t().app, s, key)).body.data.message).toBe('The key is banned');
    await edit(s, { key, status: 'banned', banReason: 'x', banExpiresAt: t().clock.now + DAY_MS });
    expect((await edit(s, { key, status: 'paused' })).body.data).toMatchObject({ status: 'paused', banReason: null, banExpiresAt: null });
    const row = await t()
      .ctx.db.selectFrom('activeKeys')
      .select(['banReason', 'banExpiresAt'])
      .where('key', '=', key)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ banReason: null, banExpiresAt: null });
  });

  it('refuses a ban field without status banned, a past end, and an over-long reason', async () => {
    const s = await newService();
    const key = await boundKey(s);
    expectValidationError(await edit(s, { key, banReason: 'x' }), 'banReason');
    expectValidationError(await edit(s, { key, status: 'active', banExpiresAt: t().clock.now + DAY_MS }), 'banExpiresAt');
    expectValidationError(await edit(s, { key, status: 'banned', banExpiresAt: t().clock.now - 1 }), 'banExpiresAt');
    expectValidationError(await edit(s, { key, status: 'banned', banReason: 'r'.repeat(257) }), 'banReason');
  });
});

describe('a ban that ends (§19)', () => {
  it('validates again once its end passes, on a second instance sharing the database, and the record says active', async () => {
    const s = await newService();
    const key = await boundKey(s);
    const second = await anotherInstance(t());
    try {
      await edit(s, { key, status: 'banned', banReason: 'cool off', banExpiresAt: t().clock.now + 5_000 });
      // Both instances judge (and cache) the ban while it is in force.
      expect((await validate(t().app, s, key)).body.data.code).toBe('KEY_BANNED');
      expect((await validate(second, s, key)).body.data.code).toBe('KEY_BANNED');
      t().clock.advance(5_000);
      expect((await validate(second, s, key)).body.data).toMatchObject({ valid: true, code: 'KEY_VALID' });
      expect((await validate(t().app, s, key)).body.data).toMatchObject({ valid: true, code: 'KEY_VALID' });
      expect(await lookup(s, key)).toMatchObject({ status: 'active', banReason: null, banExpiresAt: null });
      const listed = await call(second, 'GET', '/api/v1/keys/api/keys?status=active', { key: s.serviceKey });
      expect(listed.body.data.items.map((k: { key: string }) => k.key)).toContain(key);
      const banned = await call(second, 'GET', '/api/v1/keys/api/keys?status=banned', { key: s.serviceKey });
      expect(banned.body.data.items.map((k: { key: string }) => k.key)).not.toContain(key);
    } finally {
      await second.close();
    }
  });

  it('lets an unredeemed key whose ban ended be redeemed', async () => {
    const s = await newService();
    const [key] = await generateKeys(t().app, s.serviceKey);
    await t()
      .ctx.db.updateTable('generatedKeys')
      .set({ status: 'banned', banReason: 'wait', banExpiresAt: t().clock.now + 1000 })
      .where('key', '=', key!)
      .execute();
    expect((await validate(t().app, s, key!)).body.data).toMatchObject({ code: 'KEY_BANNED', message: 'This key is banned: wait' });
    t().clock.advance(1000);
    expect((await validate(t().app, s, key!)).body.data).toMatchObject({ valid: true, code: 'KEY_VALID' });
  });
});

describe('bulk ban with reason and days (§19, §7.3)', () => {
  it('bans every key with the reason and an end `days` ahead; days is refused on other actions but extend', async () => {
    const s = await newService();
    const a = await boundKey(s);
    const [b] = await generateKeys(t().app, s.serviceKey);
    const now = t().clock.now;
    const res = await call(t().app, 'POST', '/api/v1/keys/api/keys/bulk', {
      key: s.serviceKey,
      body: { action: 'ban', keys: [a, b], reason: 'raid', days: 3 },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await lookup(s, a)).toMatchObject({ status: 'banned', banReason: 'raid', banExpiresAt: iso(now + 3 * DAY_MS) });
    expect((await validate(t().app, s, a)).body.data.message).toBe('This key is banned: raid');
    expectValidationError(
      await call(t().app, 'POST', '/api/v1/keys/api/keys/bulk', { key: s.serviceKey, body: { action: 'pause', keys: [a], reason: 'x' } }),
      'reason',
    );
    await call(t().app, 'POST', '/api/v1/keys/api/keys/bulk', { key: s.serviceKey, body: { action: 'activate', keys: [a] } });
    expect(await lookup(s, a)).toMatchObject({ status: 'active', banReason: null, banExpiresAt: null });
  });
});
