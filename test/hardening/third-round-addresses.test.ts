import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressKey } from '../../src/lib/ip.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { call, seedService } from '../helpers/seed.ts';
import { SIGNIN_ENV } from '../signin/helpers.ts';
import { checkpoint, configure, start } from '../key-system/helpers.ts';

// Guarantee: per-address limits and lockouts key an IPv6 client by its /64 and an IPv4-mapped address as its IPv4
// address, whatever the spelling. One function (lib/ip.ts addressKey) feeds every one of them.
const REDIS_URL = process.env.KEYWARD_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
let limited: TestApp;
let shared: TestApp;

beforeAll(async () => {
  limited = await startTestApp({ ...SIGNIN_ENV, RATE_LIMIT_CLIENT_PER_MINUTE: '2', RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: '2' });
  shared = await startTestApp({ RATE_LIMIT_CLIENT_PER_MINUTE: '2', REDIS_URL });
});
afterAll(async () => {
  for (const t of [limited, shared]) {
    await t?.app.close();
    await t?.database.drop();
  }
});

// Each test its own /64 and IPv4 address: Redis counters outlive the test databases.
const prefix = () => `2001:db8:${randomInt(65536).toString(16)}:${randomInt(65536).toString(16)}`;
const v4 = () => `198.18.${randomInt(256)}.${randomInt(1, 255)}`;

describe('addressKey', () => {
  it.each([
    ['203.0.113.77', '203.0.113.77'],
    ['::ffff:203.0.113.77', '203.0.113.77'],
    ['::FFFF:203.0.113.77', '203.0.113.77'],
    ['0:0:0:0:0:ffff:cb00:714d', '203.0.113.77'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['2001:DB8::1', '2001:db8:0:0::/64'],
    ['2001:0db8:0000:0000:ffff:1:2:3', '2001:db8:0:0::/64'],
    ['2001:db8:0:1::1', '2001:db8:0:1::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['garbage', 'garbage'],
  ])('%s counts as %s', (address, key) => {
    expect(addressKey(address)).toBe(key);
  });
});

async function validateFrom(t: TestApp, service: string, remoteAddress: string) {
  return call(t.app, 'GET', `/api/v1/keys/validate?service=${service}&key=nope-nope-nope&hwid=pc`, { remoteAddress });
}

describe('the client budget', () => {
  for (const [name, app] of [
    ['in this process', () => limited],
    ['shared through Redis', () => shared],
  ] as const) {
    it(`counts every address of one /64, in any spelling, as one client (${name})`, async () => {
      const t = app();
      const s = await seedService(t.ctx);
      const p = prefix();
      expect((await validateFrom(t, s.identifier, `${p}::1`)).status).toBe(200);
      expect((await validateFrom(t, s.identifier, `${p.toUpperCase()}:0:0:0:2`)).status).toBe(200);
      const third = await validateFrom(t, s.identifier, `${p}:ffff:ffff:ffff:ffff`);
      expect(third.status).toBe(429);
      expect(third.body.code).toBe('RATE_LIMITED');
      // The next /64 is another client.
      expect((await validateFrom(t, s.identifier, `${p.replace(/:[0-9a-f]+$/, ':ffff')}::1`)).status).toBe(200);
    });

    it(`counts an IPv4-mapped address as its IPv4 address (${name})`, async () => {
      const t = app();
      const s = await seedService(t.ctx);
      const ip = v4();
      expect((await validateFrom(t, s.identifier, ip)).status).toBe(200);
      expect((await validateFrom(t, s.identifier, `::ffff:${ip}`)).status).toBe(200);
      expect((await validateFrom(t, s.identifier, `::FFFF:${ip}`)).status).toBe(429);
    });
  }
});

describe('the failed-authentication lockout', () => {
  it('locks the whole /64 out once its addresses spent the budget', async () => {
    const s = await seedService(limited.ctx);
    const p = prefix();
    const info = (remoteAddress: string, key: string) => call(limited.app, 'GET', '/api/v1/keys/api/service/info', { key, remoteAddress });
    expect((await info(`${p}::a`, 'kws_unknown-1')).status).toBe(401);
    expect((await info(`${p}::b`, 'kws_unknown-2')).status).toBe(401);
    expect((await info(`${p.toUpperCase()}::c`, s.serviceKey)).status).toBe(429);
    expect((await info(v4(), s.serviceKey)).status).toBe(200);
  });
});

describe('the key system keys per address per day', () => {
  it('counts an IPv6 /64 and an IPv4-mapped spelling as the address that earned the key', async () => {
    const t = limited;
    const s = await seedService(t.ctx);
    await configure(t.app, s, { enabled: true, minSecondsPerCheckpoint: 0, checkpoints: 1, maxKeysPerAddressPerDay: 1 });
    const p = prefix();
    const first = await start(t.app, s, `${p}::1`);
    expect((await checkpoint(t.app, s, first.id, first.cookie)).body.data.key).not.toBeNull();
    const again = await start(t.app, s, `${p.toUpperCase()}:1:2:3:4`);
    expect(again.res.status).toBe(429);
    expect(again.res.body.code).toBe('KEY_SYSTEM_LIMIT');

    const ip = v4();
    const mapped = await start(t.app, s, `::ffff:${ip}`);
    expect((await checkpoint(t.app, s, mapped.id, mapped.cookie)).body.data.key).not.toBeNull();
    expect((await start(t.app, s, ip)).res.status).toBe(429);
  });
});
