import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, generateKeys, type SeededService } from '../helpers/seed.ts';
import { HOUR_MS, expectError, iso, redeem, serviceSeeder } from '../helpers/records.ts';

const t = useTestApp();
const newService = serviceSeeder(t);

const reset = (s: SeededService, key: string) => call(t().app, 'POST', '/api/v1/keys/reset-hwid', { key: s.serviceKey, body: { key } });
const validate = (s: SeededService, key: string, hwid: string) =>
  call(t().app, 'GET', `/api/v1/keys/validate?${new URLSearchParams({ service: s.identifier, key, hwid })}`);

async function boundKey(s: SeededService, isPremium = false, hwid = 'pc-1') {
  const [key] = await generateKeys(t().app, s.serviceKey, { expirationType: 'lifetime', isPremium });
  await redeem(t().app, s.identifier, key!, hwid);
  return key!;
}

function expectCooldown(res: Awaited<ReturnType<typeof reset>>, retryAfterSeconds: number) {
  expectError(res, 429, 'HWID_RESET_COOLDOWN');
  expect(res.body.retryAfter).toBe(retryAfterSeconds);
  expect(res.headers['retry-after']).toBe(String(retryAfterSeconds));
}

describe('POST /api/v1/keys/reset-hwid', () => {
  it('unbinds the HWID and answers { key, hwid: null, hwidResetAt, nextResetAt } with the free cooldown', async () => {
    const s = await newService();
    const key = await boundKey(s);
    const now = t().clock.now;
    const res = await reset(s, key);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { key, hwid: null, hwidResetAt: iso(now), nextResetAt: iso(now + 24 * HOUR_MS) } });

    const stored = await call(t().app, 'GET', `/api/v1/keys/api/key?key=${key}`, { key: s.serviceKey });
    expect(stored.body.data.keys[0]).toMatchObject({ hwid: null, hwidResetAt: iso(now), hwidResetCount: 1 });
    // The next machine binds.
    expect((await validate(s, key, 'pc-2')).body.data).toMatchObject({ valid: true, code: 'KEY_VALID' });
    expect((await validate(s, key, 'pc-1')).body.data.code).toBe('KEY_HWID_LOCKED');
  });

  it('refuses a second reset inside the free cooldown with 429, retryAfter and Retry-After, until it has passed', async () => {
    const s = await newService();
    const key = await boundKey(s);
    expect((await reset(s, key)).status).toBe(200);
    await validate(s, key, 'pc-2');

    expectCooldown(await reset(s, key), 24 * 3600);
    t().clock.advance(23 * HOUR_MS + 59 * 60_000 + 30_000);
    expectCooldown(await reset(s, key), 30);
    t().clock.advance(30_000);
    const res = await reset(s, key);
    expect(res.status).toBe(200);
    expect(res.body.data.hwidResetAt).toBe(iso(t().clock.now));
    const stored = await call(t().app, 'GET', `/api/v1/keys/api/key?key=${key}`, { key: s.serviceKey });
    expect(stored.body.data.keys[0].hwidResetCount).toBe(2);
  });

  it('applies the premium cooldown to premium keys', async () => {
    const s = await newService();
    const key = await boundKey(s, true);
    const now = t().clock.now;
    const first = await reset(s, key);
    expect(first.body.data.nextResetAt).toBe(iso(now + 6 * HOUR_MS));
    await validate(s, key, 'pc-2');
    expectCooldown(await reset(s, key), 6 * 3600);
    t().clock.advance(6 * HOUR_MS);
    expect((await reset(s, key)).status).toBe(200);
  });

  it('takes both cooldowns from the service settings', async () => {
    const s = await newService();
    const settings = await call(t().app, 'PUT', '/api/v1/keys/api/settings', {
      key: s.serviceKey,
      body: { hwidResetCooldownFreeHours: 2, hwidResetCooldownPremiumHours: 1 },
    });
    expect(settings.status).toBe(200);
    const free = await boundKey(s, false, 'f-1');
    const premium = await boundKey(s, true, 'p-1');
    const now = t().clock.now;
    expect((await reset(s, free)).body.data.nextResetAt).toBe(iso(now + 2 * HOUR_MS));
    expect((await reset(s, premium)).body.data.nextResetAt).toBe(iso(now + 1 * HOUR_MS));
    await validate(s, free, 'f-2');
    await validate(s, premium, 'p-2');
    t().clock.advance(HOUR_MS);
    expectCooldown(await reset(s, free), 3600);
    expect((await reset(s, premium)).status).toBe(200);
  });

  it('has no cooldown when the setting is 0', async () => {
    const s = await newService();
    await call(t().app, 'PUT', '/api/v1/keys/api/settings', { key: s.serviceKey, body: { hwidResetCooldownFreeHours: 0 } });
    const key = await boundKey(s);
    expect((await reset(s, key)).status).toBe(200);
    await validate(s, key, 'pc-2');
    expect((await reset(s, key)).status).toBe(200);
  });

  it('follows the key turning premium after a reset', async () => {
    const s = await newService();
    const key = await boundKey(s);
    expect((await reset(s, key)).status).toBe(200);
    await validate(s, key, 'pc-2');
    await call(t().app, 'PUT', '/api/v1/keys/api/key', { key: s.serviceKey, body: { key, isPremium: true } });
    t().clock.advance(6 * HOUR_MS);
    expect((await reset(s, key)).status).toBe(200);
  });

  it('is a 409 CONFLICT for a key without an HWID, active or generated', async () => {
    const s = await newService();
    const key = await boundKey(s);
    expect((await reset(s, key)).status).toBe(200);
    // Unbound now; a second reset has nothing to do (409 wins over the cooldown).
    expectError(await reset(s, key), 409, 'CONFLICT');
    const [generated] = await generateKeys(t().app, s.serviceKey);
    expectError(await reset(s, generated!), 409, 'CONFLICT');
    const [unbound] = await generateKeys(t().app, s.serviceKey, { expirationType: 'lifetime', noHwidValidation: true });
    await redeem(t().app, s.identifier, unbound!, 'pc-x');
    expectError(await reset(s, unbound!), 409, 'CONFLICT');
  });

  it('is a 404 for an unknown key', async () => {
    const s = await newService();
    expectError(await reset(s, 'Z'.repeat(32)), 404, 'NOT_FOUND');
  });

  it('lets exactly one of two concurrent resets through', async () => {
    const s = await newService();
    const key = await boundKey(s);
    const results = await Promise.all([reset(s, key), reset(s, key)]);
    const statuses = results.map((r) => r.status).sort();
    expect(statuses[0]).toBe(200);
    expect([409, 429]).toContain(statuses[1]);
    const stored = await call(t().app, 'GET', `/api/v1/keys/api/key?key=${key}`, { key: s.serviceKey });
    expect(stored.body.data.keys[0].hwidResetCount).toBe(1);
  });
});
