import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, useTestApp, type TestApp } from '../helpers/app.ts';
import { call, generateKeys, seedService, type SeededService } from '../helpers/seed.ts';

/** Contract §26: what a buyer reads on a ban and at the device limit, and that a refused run binds nothing. */
const t = useTestApp();
const HEARTBEAT_SECONDS = 15;

async function setup(keyBody: Record<string, unknown>) {
  const s = await seedService(t().ctx);
  await call(t().app, 'PUT', '/api/v1/keys/api/settings', { key: s.serviceKey, body: { sessionHeartbeatSeconds: HEARTBEAT_SECONDS } });
  const [key] = await generateKeys(t().app, s.serviceKey, { expirationType: 'lifetime', ...keyBody });
  return { s, key: key! };
}
const open = (s: SeededService, body: Record<string, unknown>) => call(t().app, 'POST', `/api/v1/public/sessions/${s.id}`, { body });
const validate = async (s: SeededService, key: string, hwid: string) =>
  (await call(t().app, 'GET', `/api/v1/keys/validate?${new URLSearchParams({ service: s.identifier, key, hwid })}`)).body.data as {
    code: string;
    message: string;
  };
const hwidsOf = async (s: SeededService, key: string) =>
  (await call(t().app, 'GET', `/api/v1/keys/api/key?key=${key}`, { key: s.serviceKey })).body.data.keys[0].hwids as string[];

describe('the buyer is told a device ban and its reason', () => {
  it('reads "This device is banned: <reason>" on a blacklisted device, with the end when the entry has one', async () => {
    const { s, key } = await setup({});
    expect((await validate(s, key, 'pc-1')).code).toBe('KEY_VALID');
    await call(t().app, 'POST', '/api/v1/keys/api/blacklist', { key: s.serviceKey, body: { hwid: 'pc-1', reason: 'chargeback' } });
    // Twice: the second answer may come from this instance's cached lookup.
    for (let i = 0; i < 2; i++) {
      expect(await validate(s, key, 'pc-1')).toMatchObject({ code: 'HWID_BLACKLISTED', message: 'This device is banned: chargeback' });
    }
    const ends = new Date(Date.now() + 86_400_000).toISOString();
    await call(t().app, 'POST', '/api/v1/keys/api/blacklist', {
      key: s.serviceKey,
      body: { hwid: 'pc-2', reason: 'spam', expiresAt: ends },
    });
    expect(await validate(s, key, 'pc-2')).toMatchObject({ message: `This device is banned: spam, until ${ends}` });
    // Without a key at all (the keyless path) the words are the same.
    const keyless = await call(t().app, 'GET', `/api/v1/keys/validate?${new URLSearchParams({ service: s.identifier, hwid: 'pc-1' })}`);
    expect(keyless.body.data).toMatchObject({ code: 'HWID_BLACKLISTED', message: 'This device is banned: chargeback' });
  });

  it('keeps the plain refusal for an entry without reason or end', async () => {
    const { s, key } = await setup({});
    await call(t().app, 'POST', '/api/v1/keys/api/blacklist', { key: s.serviceKey, body: { hwid: 'pc-1' } });
    expect(await validate(s, key, 'pc-1')).toMatchObject({ code: 'HWID_BLACKLISTED', message: 'This HWID is blacklisted' });
  });
});

describe('SESSION_LIMIT', () => {
  it('says how many devices run the key and what to do, in one sentence', async () => {
    const { s, key } = await setup({ maxSessions: 1, maxHwids: 2 });
    expect((await open(s, { key, hwid: 'pc-1' })).status).toBe(201);
    const refused = await open(s, { key, hwid: 'pc-1' });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({
      code: 'SESSION_LIMIT',
      maxSessions: 1,
      error: `This key is already running on 1 device, its limit. Close the script there, or wait ${2 * HEARTBEAT_SECONDS} seconds after it stopped.`,
    });
  });

  it('binds nothing to a run it refused: the second PC keeps no slot, and binds when its own session opens', async () => {
    const { s, key } = await setup({ maxSessions: 1, maxHwids: 2 });
    const first = await open(s, { key, hwid: 'pc-1' });
    expect(first.status).toBe(201);
    expect((await open(s, { key, hwid: 'laptop', ifNeeded: true })).status).toBe(409);
    expect(await hwidsOf(s, key)).toEqual(['pc-1']);
    await call(t().app, 'DELETE', `/api/v1/public/sessions/${s.id}/${first.body.data.sessionId}`);
    expect((await open(s, { key, hwid: 'laptop', ifNeeded: true })).status).toBe(201);
    expect(await hwidsOf(s, key)).toEqual(['pc-1', 'laptop']);
  });

  it('still binds a new device when the key has no session limit and the script no heartbeat', async () => {
    const { s, key } = await setup({ maxHwids: 2 });
    expect((await open(s, { key, hwid: 'pc-1', ifNeeded: true })).body.data).toEqual({ needed: false });
    expect((await open(s, { key, hwid: 'pc-2', ifNeeded: true })).body.data).toEqual({ needed: false });
    expect(await hwidsOf(s, key)).toEqual(['pc-1', 'pc-2']);
    const third = await open(s, { key, hwid: 'pc-3', ifNeeded: true });
    expect(third.status).toBe(403);
    expect(third.body).toMatchObject({ code: 'KEY_REFUSED', reason: 'KEY_HWID_LOCKED' });
  });
});

// The ended session's ban words, with live sessions in the database and in Redis.
describe.each([
  ['the database', {}],
  ['Redis', { REDIS_URL: process.env.KEYWARD_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379' }],
])('a session ended by a ban, kept in %s', (_, env: Record<string, string>) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(env);
  });
  afterAll(async () => {
    await app?.app.close();
    await app?.database.drop();
  });
  const running = async () => {
    const s = await seedService(app.ctx);
    const [key] = await generateKeys(app.app, s.serviceKey, { expirationType: 'lifetime' });
    const opened = await call(app.app, 'POST', `/api/v1/public/sessions/${s.id}`, { body: { key, hwid: 'pc-1' } });
    expect(opened.status).toBe(201);
    return { s, key: key!, beat: () => call(app.app, 'POST', `/api/v1/public/sessions/${s.id}/${opened.body.data.sessionId}/heartbeat`) };
  };

  it('KEY_BANNED carries banReason and banEndsAt, and its sentence names the reason', async () => {
    const { s, key, beat } = await running();
    const ends = new Date(Date.now() + 3 * 86_400_000).toISOString();
    const banned = await call(app.app, 'PUT', '/api/v1/keys/api/key', {
      key: s.serviceKey,
      body: { key, status: 'banned', banReason: 'sharing the key', banExpiresAt: ends },
    });
    expect(banned.status).toBe(200);
    const res = await beat();
    expect(res.status).toBe(410);
    expect(res.body).toMatchObject({
      code: 'SESSION_ENDED',
      reason: 'KEY_BANNED',
      banReason: 'sharing the key',
      banEndsAt: ends,
      error: `Your key was banned: sharing the key, until ${ends}`,
    });
  });

  it("HWID_BLACKLISTED carries the entry's reason, and null for an end it does not have", async () => {
    const { s, beat } = await running();
    await call(app.app, 'POST', '/api/v1/keys/api/blacklist', { key: s.serviceKey, body: { hwid: 'pc-1', reason: 'chargeback' } });
    const res = await beat();
    expect(res.status).toBe(410);
    expect(res.body).toMatchObject({
      reason: 'HWID_BLACKLISTED',
      banReason: 'chargeback',
      banEndsAt: null,
      error: 'This device is banned: chargeback',
    });
  });
});
