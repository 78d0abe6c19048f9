// Contract §23, "time from first use, as Luarmor counts it": a key bound to an HWID before its first use keeps its
// days until its first validation (POST …/users with identifier + key_days, PATCH identifier on a never-used key, the
// bulk import). Until then it is active, bound, and shows auth_expire -1 with key_days, as an unused key_days key does.
import { describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../src/app.ts';
import { anotherInstance, useTestApp } from '../helpers/app.ts';
import { call, type SeededService } from '../helpers/seed.ts';
import { DAY_MS, serviceSeeder } from '../helpers/records.ts';
import { LuarmorClient } from './luarmor-client.ts';

const t = useTestApp();
const newService = serviceSeeder(t);
const luarmor = (s: SeededService) => new LuarmorClient(() => t().app, s.serviceKey);
const sec = (ms: number) => Math.floor(ms / 1000);
const iso = (ms: number) => new Date(ms).toISOString();
const CHAT_ID = '123456789012345678';

const activeRow = (key: string) => t().ctx.db.selectFrom('activeKeys').selectAll().where('key', '=', key).executeTakeFirst();
const generatedRow = (key: string) => t().ctx.db.selectFrom('generatedKeys').selectAll().where('key', '=', key).executeTakeFirst();

async function validate(app: App, s: SeededService, key: string, hwid: string) {
  const res = await app.inject({
    method: 'GET',
    url: `/api/v1/keys/validate?${new URLSearchParams({ service: s.identifier, key, hwid })}`,
  });
  return res.json().data as { valid: boolean; code: string; expiresAt: string | null };
}
const validateHere = (s: SeededService, key: string, hwid: string) => validate(t().app, s, key, hwid);

async function userRecord(s: SeededService, key: string) {
  const res = await luarmor(s).getUsers(s.identifier, { user_key: key });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.users[0];
}

async function createBound(s: SeededService, body: Record<string, unknown>) {
  const created = await luarmor(s).createUser(s.identifier, body);
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  return created.body.user_key as string;
}

describe('POST …/users with identifier and key_days (§23)', () => {
  it('makes the key bound at once; its time starts at the first validation from that HWID, another HWID is refused', async () => {
    const s = await newService();
    const key = await createBound(s, { identifier: 'pc-1', key_days: 7, note: 'bound early' });
    expect(await activeRow(key)).toMatchObject({ hwid: 'pc-1', hwidCount: 1, expiresAt: null, pendingDays: 7, note: 'bound early' });
    expect(await generatedRow(key)).toBeUndefined();
    // Not started: Luarmor's -1 beside key_days, as for an unused key_days key; bound, so active with its identifier.
    expect(await userRecord(s, key)).toMatchObject({ identifier: 'pc-1', status: 'active', auth_expire: -1, key_days: 7 });
    const view = await call(t().app, 'GET', `/api/v1/keys/api/key?key=${key}`, { key: s.serviceKey });
    expect(view.body.data.keys[0]).toMatchObject({ hwid: 'pc-1', expiresAt: null, durationDays: 7 });

    // Days pass before the buyer first runs it: they do not count.
    t().clock.advance(3 * DAY_MS);
    expect(await validateHere(s, key, 'pc-other')).toMatchObject({ valid: false, code: 'KEY_HWID_LOCKED' });
    // A refusal starts nothing.
    expect(await activeRow(key)).toMatchObject({ expiresAt: null, pendingDays: 7 });

    const firstUse = t().clock.now;
    expect(await validateHere(s, key, 'pc-1')).toEqual(
      expect.objectContaining({ valid: true, code: 'KEY_VALID', expiresAt: iso(firstUse + 7 * DAY_MS) }),
    );
    expect(await activeRow(key)).toMatchObject({ expiresAt: firstUse + 7 * DAY_MS, pendingDays: null });
    const started = await userRecord(s, key);
    expect(started).toMatchObject({ auth_expire: sec(firstUse + 7 * DAY_MS) });
    expect(started).not.toHaveProperty('key_days');
    const after = await call(t().app, 'GET', `/api/v1/keys/api/key?key=${key}`, { key: s.serviceKey });
    expect(after.body.data.keys[0]).toMatchObject({ expiresAt: iso(firstUse + 7 * DAY_MS), durationDays: null });

    // A later validation does not move it; the end comes 7 days after the first use.
    t().clock.advance(DAY_MS);
    expect(await validateHere(s, key, 'pc-1')).toMatchObject({ valid: true, expiresAt: iso(firstUse + 7 * DAY_MS) });
    t().clock.advance(6 * DAY_MS);
    expect(await validateHere(s, key, 'pc-1')).toMatchObject({ valid: false, code: 'KEY_EXPIRED' });
    expect(await validateHere(s, key, 'pc-other')).toMatchObject({ valid: false });
  });

  it('still refuses a taken identifier, key_days beside a dated auth_expire, and a paused key starts no time', async () => {
    const s = await newService();
    const first = await createBound(s, { identifier: 'pc-taken', key_days: 3 });
    expect(await luarmor(s).createUser(s.identifier, { identifier: 'pc-taken', key_days: 3 })).toMatchObject({
      status: 400,
      body: { success: false, message: 'Identifier already exists.' },
    });
    const both = await luarmor(s).createUser(s.identifier, { identifier: 'pc-2', key_days: 3, auth_expire: sec(t().clock.now + DAY_MS) });
    expect(both.status).toBe(400);
    expect(both.body.message).toMatch(/key_days/);
    const paused = await call(t().app, 'PUT', '/api/v1/keys/api/key', { key: s.serviceKey, body: { key: first, status: 'paused' } });
    expect(paused.status, JSON.stringify(paused.body)).toBe(200);
    expect(await validateHere(s, first, 'pc-taken')).toMatchObject({ valid: false, code: 'KEY_PAUSED' });
    expect(await activeRow(first)).toMatchObject({ expiresAt: null, pendingDays: 3 });
  });

  it('PATCH auth_expire -1 makes it lifetime, and a date makes it a fixed expiry: its days are gone', async () => {
    const s = await newService();
    const forever = await createBound(s, { identifier: 'pc-l', key_days: 5 });
    expect((await luarmor(s).updateUser(s.identifier, { user_key: forever, auth_expire: -1 })).status).toBe(200);
    expect(await activeRow(forever)).toMatchObject({ expiresAt: null, pendingDays: null });
    const dated = await createBound(s, { identifier: 'pc-d', key_days: 5 });
    const end = t().clock.now + 20 * DAY_MS;
    expect((await luarmor(s).updateUser(s.identifier, { user_key: dated, auth_expire: sec(end) })).status).toBe(200);
    expect(await activeRow(dated)).toMatchObject({ expiresAt: sec(end) * 1000, pendingDays: null });
    t().clock.advance(DAY_MS);
    expect(await validateHere(s, dated, 'pc-d')).toMatchObject({ valid: true, expiresAt: iso(sec(end) * 1000) });
  });

  it('extends the days it will run, not an expiry it does not have yet', async () => {
    const s = await newService();
    const key = await createBound(s, { identifier: 'pc-x', key_days: 5 });
    const res = await call(t().app, 'POST', '/api/v1/keys/api/key/extend-expiration', { key: s.serviceKey, body: { key, days: 2 } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await activeRow(key)).toMatchObject({ expiresAt: null, pendingDays: 7 });
    const bulk = await call(t().app, 'POST', '/api/v1/keys/api/keys/bulk', {
      key: s.serviceKey,
      body: { action: 'extend', keys: [key], days: 3 },
    });
    expect(bulk.status, JSON.stringify(bulk.body)).toBe(200);
    expect(await activeRow(key)).toMatchObject({ expiresAt: null, pendingDays: 10 });
    expect(await validateHere(s, key, 'pc-x')).toMatchObject({ valid: true, expiresAt: iso(t().clock.now + 10 * DAY_MS) });
  });
});

describe('the first validation on two instances at once (§23)', () => {
  it('sets the expiry once: every answer names the same end, the one stored', async () => {
    const s = await newService();
    const key = await createBound(s, { identifier: 'pc-race', key_days: 7 });
    const other = await anotherInstance(t());
    // A third instance whose clock reads a minute later: were the expiry written by each first validation, its
    // answers would name another end than the first instance's.
    const later = await buildApp({ config: t().config, database: t().database.handle, clock: () => t().clock.now + 60_000, logger: false });
    await later.ready();
    try {
      const apps = [t().app, other, later];
      const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => validate(apps[i % 3]!, s, key, 'pc-race')));
      expect(answers.every((a) => a.valid && a.code === 'KEY_VALID')).toBe(true);
      const row = await activeRow(key);
      expect(row).toMatchObject({ pendingDays: null });
      expect([t().clock.now + 7 * DAY_MS, t().clock.now + 60_000 + 7 * DAY_MS]).toContain(row!.expiresAt);
      expect(new Set(answers.map((a) => a.expiresAt))).toEqual(new Set([iso(row!.expiresAt!)]));
    } finally {
      await later.close();
      await other.close();
    }
  });
});

describe('PATCH …/users with identifier (§23)', () => {
  it('binds a never-used key_days key: active with that HWID, its time still starting at its first validation', async () => {
    const s = await newService();
    const key = await createBound(s, { key_days: 4, discord_id: CHAT_ID, note: 'unused' });
    expect(await generatedRow(key)).toMatchObject({ durationDays: 4 });
    const res = await luarmor(s).updateUser(s.identifier, { user_key: key, identifier: 'pc-p', note: 'bound now' });
    expect(res.body).toEqual({ success: true, message: 'User has been edited successfully!' });
    expect(await generatedRow(key)).toBeUndefined();
    expect(await activeRow(key)).toMatchObject({
      hwid: 'pc-p',
      hwidCount: 1,
      expiresAt: null,
      pendingDays: 4,
      note: 'bound now',
      chatId: CHAT_ID,
      executions: 0,
      lastUsedAt: null,
    });
    expect(await userRecord(s, key)).toMatchObject({ identifier: 'pc-p', status: 'active', auth_expire: -1, key_days: 4 });
    const audit = await call(t().app, 'GET', '/api/v1/keys/api/audit?limit=100', { key: s.serviceKey });
    expect(audit.body.data.items).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ action: 'key.update', target: key, details: expect.objectContaining({ hwid: 'pc-p' }) }),
      ]),
    );

    t().clock.advance(2 * DAY_MS);
    expect(await validateHere(s, key, 'pc-elsewhere')).toMatchObject({ valid: false, code: 'KEY_HWID_LOCKED' });
    expect(await validateHere(s, key, 'pc-p')).toMatchObject({ valid: true, expiresAt: iso(t().clock.now + 4 * DAY_MS) });
  });

  it('binds a never-used key with a fixed expiry and keeps it; refuses an identifier another key has', async () => {
    const s = await newService();
    const end = t().clock.now + 10 * DAY_MS;
    // With a Discord id, auth_expire is a fixed end (§23).
    const key = await createBound(s, { auth_expire: sec(end), discord_id: CHAT_ID });
    await createBound(s, { identifier: 'pc-held' });
    expect(await luarmor(s).updateUser(s.identifier, { user_key: key, identifier: 'pc-held' })).toMatchObject({
      status: 400,
      body: { success: false, message: 'Identifier already exists.' },
    });
    expect(await generatedRow(key)).toBeDefined();
    expect((await luarmor(s).updateUser(s.identifier, { user_key: key, identifier: 'pc-f' })).status).toBe(200);
    expect(await activeRow(key)).toMatchObject({ hwid: 'pc-f', expiresAt: sec(end) * 1000, pendingDays: null });
    expect(await validateHere(s, key, 'pc-f')).toMatchObject({ valid: true, expiresAt: iso(sec(end) * 1000) });
  });

  it('binds a never-used key and makes it lifetime in one edit', async () => {
    const s = await newService();
    const key = await createBound(s, { key_days: 4 });
    expect((await luarmor(s).updateUser(s.identifier, { user_key: key, identifier: 'pc-life', auth_expire: -1 })).status).toBe(200);
    expect(await activeRow(key)).toMatchObject({ hwid: 'pc-life', expiresAt: null, pendingDays: null });
  });

  it('on a used key replaces its HWID and leaves its time as it runs (as before)', async () => {
    const s = await newService();
    const key = await createBound(s, { key_days: 4 });
    const redeemedAt = t().clock.now;
    expect(await validateHere(s, key, 'pc-u1')).toMatchObject({ valid: true, expiresAt: iso(redeemedAt + 4 * DAY_MS) });
    t().clock.advance(DAY_MS);
    expect((await luarmor(s).updateUser(s.identifier, { user_key: key, identifier: 'pc-u2' })).status).toBe(200);
    expect(await activeRow(key)).toMatchObject({ hwid: 'pc-u2', expiresAt: redeemedAt + 4 * DAY_MS, pendingDays: null });
    expect(await validateHere(s, key, 'pc-u1')).toMatchObject({ valid: false, code: 'KEY_HWID_LOCKED' });
    expect(await validateHere(s, key, 'pc-u2')).toMatchObject({ valid: true, expiresAt: iso(redeemedAt + 4 * DAY_MS) });
  });
});

describe('POST …/users/import with identifier and key_days (§23)', () => {
  it('makes the key bound with its days pending, as POST …/users does', async () => {
    const s = await newService();
    const userKey = 'PendingImport000000000000000001';
    const res = await luarmor(s).request('POST', `/v3/projects/${s.identifier}/users/import`, {
      users: [{ user_key: userKey, identifier: 'pc-imp', key_days: 6 }],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await activeRow(userKey)).toMatchObject({ hwid: 'pc-imp', expiresAt: null, pendingDays: 6 });
    t().clock.advance(DAY_MS);
    expect(await validateHere(s, userKey, 'pc-other')).toMatchObject({ valid: false, code: 'KEY_HWID_LOCKED' });
    expect(await validateHere(s, userKey, 'pc-imp')).toMatchObject({ valid: true, expiresAt: iso(t().clock.now + 6 * DAY_MS) });
  });
});
