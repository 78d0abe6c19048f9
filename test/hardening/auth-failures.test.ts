import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, anotherInstance, type TestApp } from '../helpers/app.ts';
import type { App } from '../../src/app.ts';
import { call, seedService } from '../helpers/seed.ts';

/** Contract §10: unknown or revoked keys and forged tokens spend RATE_LIMIT_AUTH_FAILURES_PER_MINUTE per address. */
const REDIS_URL = process.env.KEYWARD_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
let local: TestApp;
let shared: TestApp;
let sharedSecond: App;

beforeAll(async () => {
  local = await startTestApp({ RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: '3' });
  shared = await startTestApp({ RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: '3', REDIS_URL });
  sharedSecond = await anotherInstance(shared);
});
afterAll(async () => {
  await sharedSecond?.close();
  for (const t of [local, shared]) {
    await t?.app.close();
    await t?.database.drop();
  }
});

const info = (app: App, key: string, remoteAddress: string, headers: Record<string, string> = {}) =>
  call(app, 'GET', '/api/v1/keys/api/service/info', { key, remoteAddress, headers });
// Each run its own addresses: Redis counters outlive the test databases.
const address = () => `198.18.${randomInt(256)}.${randomInt(1, 255)}`;

describe('failed authentication is limited per address', () => {
  it('answers 429 with Retry-After once an address spent its budget, even for a valid key, before the key is looked up', async () => {
    const s = await seedService(local.ctx);
    const attacker = address();
    expect((await info(local.app, 'kws_unknown-key-1', attacker)).status).toBe(401);
    expect((await info(local.app, 'kw_forged-account-key', attacker)).status).toBe(401);
    expect(
      (await call(local.app, 'GET', '/api/v1/auth/session', { remoteAddress: attacker, headers: { cookie: 'kw_session=forged' } })).status,
    ).toBe(401);
    const limited = await info(local.app, s.serviceKey, attacker);
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ success: false, code: 'RATE_LIMITED' });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // Another address is untouched, and public client routes stay open to the limited one.
    expect((await info(local.app, s.serviceKey, address())).status).toBe(200);
    expect(
      (await call(local.app, 'GET', `/api/v1/keys/validate?service=${s.id}&key=nope&hwid=pc`, { remoteAddress: attacker })).status,
    ).toBe(200);
  });

  it('does not count successful calls', async () => {
    const s = await seedService(local.ctx);
    const caller = address();
    for (let i = 0; i < 5; i++) expect((await info(local.app, s.serviceKey, caller)).status).toBe(200);
  });

  it('shares the count between instances through Redis', async () => {
    const s = await seedService(shared.ctx);
    const attacker = address();
    for (const app of [shared.app, sharedSecond, shared.app]) expect((await info(app, 'kws_nope', attacker)).status).toBe(401);
    expect((await info(sharedSecond, s.serviceKey, attacker)).status).toBe(429);
  });
});
