import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, generateKeys, type SeededService } from '../helpers/seed.ts';
import { DAY_MS, HOUR_MS, iso, serviceSeeder } from '../helpers/records.ts';

const t = useTestApp();
const newService = serviceSeeder(t);
const CHAT_ID = '123456789012345678';

const validate = (service: string, query: Record<string, string>, headers?: Record<string, string>) =>
  call(t().app, 'GET', `/api/v1/keys/validate?${new URLSearchParams({ service, ...query })}`, { headers });
const validatePost = (body: Record<string, unknown>, headers?: Record<string, string>) =>
  call(t().app, 'POST', '/api/v1/keys/validate', { body, headers });
const api = (s: SeededService, method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown) =>
  call(t().app, method, `/api/v1${path}`, { key: s.serviceKey, body });
const flushBookkeeping = () => t().ctx.touches.flush(t().ctx.db, t().ctx.dialect);
const activeRow = (key: string) => t().ctx.db.selectFrom('activeKeys').selectAll().where('key', '=', key).executeTakeFirst();

/** The verdict, checked to be a 200 with exactly the contract's fields. */
async function verdictOf(res: Awaited<ReturnType<typeof validate>>) {
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.success).toBe(true);
  expect(Object.keys(res.body.data).sort()).toEqual(['code', 'expiresAt', 'isPremium', 'message', 'valid']);
  expect(typeof res.body.data.message).toBe('string');
  expect(res.body.data.message.length).toBeGreaterThan(0);
  return res.body.data as { valid: boolean; code: string; message: string; isPremium: boolean; expiresAt: string | null };
}

async function boundKey(s: SeededService, body: Record<string, unknown> = { expirationType: 'lifetime' }, hwid = 'pc-1') {
  const [key] = await generateKeys(t().app, s.serviceKey, body);
  expect((await verdictOf(await validate(s.identifier, { key: key!, hwid }))).code).toBe('KEY_VALID');
  return key!;
}

describe('GET /api/v1/keys/validate: redeeming a generated key', () => {
  it('redeems a generated key on first use and binds the HWID', async () => {
    const s = await newService();
    const [key] = await generateKeys(t().app, s.serviceKey, { expirationType: 'byDays', days: 3, note: 'n1' });
    const first = await validate(s.identifier, { key: key!, hwid: 'pc-1' });
    expect(await verdictOf(first)).toMatchObject({ valid: true, code: 'KEY_VALID', isPremium: false });

    const row = await activeRow(key!);
    expect(row?.hwid).toBe('pc-1');
    expect(row?.note).toBe('n1');
    const generated = await t().ctx.db.selectFrom('generatedKeys').selectAll().where('key', '=', key!).execute();
    expect(generated).toHaveLength(0);

    const other = await validate(s.id, { key: key!, hwid: 'pc-2' });
    expect(await verdictOf(other)).toMatchObject({ valid: false, code: 'KEY_HWID_LOCKED' });
  });

  it('carries note, premium flag, expiry, chat id, maxSessions and status over, and records when it was activated', async () => {
    const s = await newService();
    const createdAt = t().clock.now;
    const [key] = await generateKeys(t().app, s.serviceKey, {
      expirationType: 'byDays',
      days: 5,
      maxSessions: 2,
      note: 'carry',
      isPremium: true,
      chatId: CHAT_ID,
    });
    t().clock.advance(HOUR_MS);
    const activatedAt = t().clock.now;
    const verdict = await verdictOf(await validate(s.identifier, { key: key!, hwid: 'pc-carry' }));
    expect(verdict).toEqual({
      valid: true,
      code: 'KEY_VALID',
      message: verdict.message,
      isPremium: true,
      expiresAt: iso(createdAt + 5 * DAY_MS),
    });
    const res = await api(s, 'GET', `/keys/api/key?key=${key}`);
    expect(res.body.data.keys[0]).toEqual({
      key,
      hwid: 'pc-carry',
      hwids: ['pc-carry'],
      maxHwids: 1,
      note: 'carry',
      isPremium: true,
      noHwidValidation: false,
      status: 'active',
      expiresAt: iso(createdAt + 5 * DAY_MS),
      chatId: CHAT_ID,
      executions: 0,
      createdAt: iso(createdAt),
      activatedAt: iso(activatedAt),
      lastUsedAt: iso(activatedAt),
      hwidResetAt: null,
      hwidResetCount: 0,
      // Contract §17: redemption keeps who made the key (the service key generates as its owner).
      createdBy: { accountId: s.account.id, username: s.account.username },
      banReason: null,
      banExpiresAt: null,
      maxSessions: 2,
      // Its time started at redemption: no days wait for a first validation (contract §23).
      durationDays: null,
    });
  });

  it('redeems a noHwidValidation key without binding it', async () => {
    const s = await newService();
    const [key] = await generateKeys(t().app, s.serviceKey, { expirationType: 'lifetime', noHwidValidation: true });
    expect((await verdictOf(await validate(s.identifier, { key: key!, hwid: 'pc-a' }))).code).toBe('KEY_VALID');
    expect((await activeRow(key!))?.hwid).toBeNull();
    expect((await verdictOf(await validate(s.identifier, { key: key!, hwid: 'pc-b' }))).code).toBe('KEY_VALID');
    expect((await activeRow(key!))?.hwid).toBeNull();
  });

  it('answers KEY_EXPIRED for a generated key past its expiry, and leaves it generated', async () => {
    const s = await newService();
    const [key] = await generateKeys(t().app, s.serviceKey, { expirationType: 'byDays', days: 1 });
    t().clock.advance(DAY_MS);
    expect(await verdictOf(await validate(s.identifier, { key: key!, hwid: 'pc' }))).toMatchObject({ valid: false, code: 'KEY_EXPIRED' });
    expect(await activeRow(key!)).toBeUndefined();
    expect((await api(s, 'GET', `/keys/api/generated-key?key=${key}`)).status).toBe(200);
  });

  it('does not redeem a paused or banned generated key', async () => {
    const s = await newService();
    const [paused, banned] = await generateKeys(t().app, s.serviceKey, { expirationType: 'lifetime', count: 2 });
    await api(s, 'PUT', '/keys/api/generated-key', { key: paused, status: 'paused' });
    await api(s, 'PUT', '/keys/api/generated-key', { key: banned, status: 'banned' });
    expect((await verdictOf(await validate(s.identifier, { key: paused!, hwid: 'pc' }))).code).toBe('KEY_PAUSED');
    expect((await verdictOf(await validate(s.identifier, { key: banned!, hwid: 'pc' }))).code).toBe('KEY_BANNED');
    expect(await activeRow(paused!)).toBeUndefined();
    expect(await activeRow(banned!)).toBeUndefined();
  });

  it('lets exactly one of two HWIDs racing to redeem a key win', async () => {
    const s = await newService();
    for (let round = 0; round < 5; round++) {
      const [key] = await generateKeys(t().app, s.serviceKey);
      const answers = await Promise.all(['race-a', 'race-b', 'race-c'].map((hwid) => validate(s.identifier, { key: key!, hwid })));
      const verdicts = await Promise.all(answers.map(verdictOf));
      const winners = verdicts.filter((v) => v.valid);
      expect(winners).toHaveLength(1);
      expect(verdicts.filter((v) => v.code === 'KEY_HWID_LOCKED')).toHaveLength(2);
      const row = await activeRow(key!);
      expect(['race-a', 'race-b', 'race-c']).toContain(row?.hwid);
    }
  });
});

describe('GET /api/v1/keys/validate: active keys', () => {
  it('binds an unbound active key on first use, then accepts the same HWID and locks out others', async () => {
    const s = await newService();
    const key = await boundKey(s, undefined, 'pc-first');
    await api(s, 'PUT', '/keys/api/key', { key, hwid: null });
    expect((await verdictOf(await validate(s.identifier, { key, hwid: 'pc-second' }))).code).toBe('KEY_VALID');
    expect((await activeRow(key))?.hwid).toBe('pc-second');
    expect((await verdictOf(await validate(s.identifier, { key, hwid: 'pc-second' }))).code).toBe('KEY_VALID');
    expect(await verdictOf(await validate(s.identifier, { key, hwid: 'pc-first' }))).toMatchObject({
      valid: false,
      code: 'KEY_HWID_LOCKED',
    });
  });

  it('lets exactly one of two HWIDs racing to bind an unbound active key win', async () => {
    const s = await newService();
    for (let round = 0; round < 5; round++) {
      const key = await boundKey(s, undefined, 'pc-seed');
      await api(s, 'PUT', '/keys/api/key', { key, hwid: null });
      const verdicts = await Promise.all(['bind-a', 'bind-b'].map(async (hwid) => verdictOf(await validate(s.identifier, { key, hwid }))));
      expect(verdicts.map((v) => v.code).sort()).toEqual(['KEY_HWID_LOCKED', 'KEY_VALID']);
    }
  });

  it('accepts any HWID on a noHwidValidation key', async () => {
    const s = await newService();
    const key = await boundKey(s, undefined, 'pc-1');
    await api(s, 'PUT', '/keys/api/key', { key, noHwidValidation: true });
    expect((await verdictOf(await validate(s.identifier, { key, hwid: 'elsewhere' }))).code).toBe('KEY_VALID');
    expect((await activeRow(key))?.hwid).toBe('pc-1');
  });

  it('answers KEY_BANNED and KEY_PAUSED by status, and valid again once active', async () => {
    const s = await newService();
    const key = await boundKey(s);
    await api(s, 'PUT', '/keys/api/key', { key, status: 'banned' });
    expect(await verdictOf(await validate(s.identifier, { key, hwid: 'pc-1' }))).toMatchObject({ valid: false, code: 'KEY_BANNED' });
    await api(s, 'PUT', '/keys/api/key', { key, status: 'paused' });
    expect(await verdictOf(await validate(s.identifier, { key, hwid: 'pc-1' }))).toMatchObject({ valid: false, code: 'KEY_PAUSED' });
    await api(s, 'PUT', '/keys/api/key', { key, status: 'active' });
    expect((await verdictOf(await validate(s.identifier, { key, hwid: 'pc-1' }))).code).toBe('KEY_VALID');
  });

  it('answers KEY_EXPIRED once the clock passes expiresAt, and valid again after an extension', async () => {
    const s = await newService();
    const key = await boundKey(s, { expirationType: 'byDays', days: 2 });
    t().clock.advance(2 * DAY_MS - 1);
    expect((await verdictOf(await validate(s.identifier, { key, hwid: 'pc-1' }))).code).toBe('KEY_VALID');
    t().clock.advance(1);
    const expired = await verdictOf(await validate(s.identifier, { key, hwid: 'pc-1' }));
    expect(expired).toMatchObject({ valid: false, code: 'KEY_EXPIRED' });
    expect(expired.expiresAt).toBe(iso(t().clock.now));
    await api(s, 'POST', '/keys/api/key/extend-expiration', { key, days: 1 });
    expect((await verdictOf(await validate(s.identifier, { key, hwid: 'pc-1' }))).code).toBe('KEY_VALID');
  });

  it('follows the contract order: banned before paused before expired before HWID', async () => {
    const s = await newService();
    const key = await boundKey(s, { expirationType: 'byDays', days: 1 }, 'owner');
    t().clock.advance(2 * DAY_MS);
    expect((await verdictOf(await validate(s.identifier, { key, hwid: 'intruder' }))).code).toBe('KEY_EXPIRED');
    await api(s, 'PUT', '/keys/api/key', { key, status: 'paused' });
    expect((await verdictOf(await validate(s.identifier, { key, hwid: 'intruder' }))).code).toBe('KEY_PAUSED');
    await api(s, 'PUT', '/keys/api/key', { key, status: 'banned' });
    expect((await verdictOf(await validate(s.identifier, { key, hwid: 'intruder' }))).code).toBe('KEY_BANNED');
  });

  it('sets lastUsedAt on a valid answer, and not on a refused one', async () => {
    const s = await newService();
    const key = await boundKey(s);
    const boundAt = t().clock.now;
    expect((await activeRow(key))?.lastUsedAt).toBe(boundAt);
    t().clock.advance(60_000);
    expect((await verdictOf(await validate(s.identifier, { key, hwid: 'pc-1' }))).valid).toBe(true);
    await flushBookkeeping(); // lastUsedAt is written in batches (validation/key-touches.ts; last-used.test.ts)
    expect((await activeRow(key))?.lastUsedAt).toBe(t().clock.now);
    const usedAt = t().clock.now;
    t().clock.advance(60_000);
    expect((await verdictOf(await validate(s.identifier, { key, hwid: 'someone-else' }))).valid).toBe(false);
    await flushBookkeeping();
    expect((await activeRow(key))?.lastUsedAt).toBe(usedAt);
    const res = await api(s, 'GET', `/keys/api/key?key=${key}`);
    expect(res.body.data.keys[0].lastUsedAt).toBe(iso(usedAt));
  });

  it('answers KEY_INCORRECT for an unknown key', async () => {
    const s = await newService();
    expect(await verdictOf(await validate(s.identifier, { key: 'Q'.repeat(32), hwid: 'pc' }))).toEqual({
      valid: false,
      code: 'KEY_INCORRECT',
      message: expect.any(String),
      isPremium: false,
      expiresAt: null,
    });
  });
});

describe('GET /api/v1/keys/validate: HWID rules', () => {
  it('answers HWID_REQUIRED (200, not 400) when no HWID is sent, before anything else', async () => {
    const s = await newService();
    const key = await boundKey(s);
    for (const query of [{ key }, { key, hwid: '' }, {}, { key: 'unknown' }] as Record<string, string>[]) {
      expect(await verdictOf(await validate(s.identifier, query))).toMatchObject({ valid: false, code: 'HWID_REQUIRED' });
    }
  });

  it('answers HWID_BLACKLISTED for an HWID under a ban in force, whatever the key', async () => {
    const s = await newService();
    const key = await boundKey(s, undefined, 'banned-pc');
    const ban = await api(s, 'POST', '/keys/api/blacklist', { hwid: 'banned-pc', reason: 'chargeback' });
    expect(ban.status).toBe(201);
    await api(s, 'POST', '/keys/api/keyless', { hwid: 'banned-pc' });
    for (const query of [{ key }, { key: 'unknown' }, {}] as Record<string, string>[]) {
      expect(await verdictOf(await validate(s.identifier, { ...query, hwid: 'banned-pc' }))).toMatchObject({
        valid: false,
        code: 'HWID_BLACKLISTED',
      });
    }
    // Another service's blacklist does not reach here.
    const other = await newService();
    const otherKey = await boundKey(other, undefined, 'banned-pc');
    expect((await verdictOf(await validate(other.identifier, { key: otherKey, hwid: 'banned-pc' }))).code).toBe('KEY_VALID');
  });

  it('stops blocking once a timed ban has lapsed', async () => {
    const s = await newService();
    const key = await boundKey(s, undefined, 'timed-pc');
    await api(s, 'POST', '/keys/api/blacklist', { hwid: 'timed-pc', expiresAt: t().clock.now + HOUR_MS });
    expect((await verdictOf(await validate(s.identifier, { key, hwid: 'timed-pc' }))).code).toBe('HWID_BLACKLISTED');
    t().clock.advance(HOUR_MS);
    expect((await verdictOf(await validate(s.identifier, { key, hwid: 'timed-pc' }))).code).toBe('KEY_VALID');
  });

  it('does not redeem a generated key for a blacklisted HWID', async () => {
    const s = await newService();
    const [key] = await generateKeys(t().app, s.serviceKey);
    await api(s, 'POST', '/keys/api/blacklist', { hwid: 'bad-pc' });
    expect((await verdictOf(await validate(s.identifier, { key: key!, hwid: 'bad-pc' }))).code).toBe('HWID_BLACKLISTED');
    expect(await activeRow(key!)).toBeUndefined();
  });

  it('reads the HWID from each executor fingerprint header when the request has none', async () => {
    const s = await newService();
    const headers = [
      'syn-fingerprint',
      'krnl-hwid',
      'krnl-fingerprint',
      'sw-fingerprint',
      'syn-user-identifier',
      'sw-user-identifier',
      'fingerprint',
    ];
    for (const header of headers) {
      const hwid = `hw-${header}`;
      const [key] = await generateKeys(t().app, s.serviceKey);
      expect((await verdictOf(await validate(s.identifier, { key: key! }, { [header]: hwid }))).code, header).toBe('KEY_VALID');
      expect((await activeRow(key!))?.hwid).toBe(hwid);
      expect((await verdictOf(await validate(s.identifier, { key: key! }, { [header]: 'another' }))).code).toBe('KEY_HWID_LOCKED');
    }
  });

  it('lets the query or body field win over a fingerprint header', async () => {
    const s = await newService();
    const key = await boundKey(s, undefined, 'field-hwid');
    expect((await verdictOf(await validate(s.identifier, { key, hwid: 'field-hwid' }, { 'syn-fingerprint': 'header-hwid' }))).code).toBe(
      'KEY_VALID',
    );
    expect(
      (await verdictOf(await validatePost({ service: s.identifier, key, hwid: 'field-hwid' }, { 'krnl-hwid': 'header-hwid' }))).code,
    ).toBe('KEY_VALID');
    expect((await verdictOf(await validate(s.identifier, { key }, { 'syn-fingerprint': 'header-hwid' }))).code).toBe('KEY_HWID_LOCKED');
  });
});

describe('GET /api/v1/keys/validate: keyless whitelist', () => {
  it('answers KEYLESS for a whitelisted HWID without a key, with the entry premium flag and expiry', async () => {
    const s = await newService();
    const until = t().clock.now + 3 * DAY_MS;
    await api(s, 'POST', '/keys/api/keyless', { hwid: 'free-pc', isPremium: true, expiresAt: until });
    expect(await verdictOf(await validate(s.identifier, { hwid: 'free-pc' }))).toEqual({
      valid: true,
      code: 'KEYLESS',
      message: expect.any(String),
      isPremium: true,
      expiresAt: iso(until),
    });
    expect(await verdictOf(await validate(s.identifier, { hwid: 'free-pc', key: '' }))).toMatchObject({ code: 'KEYLESS' });
  });

  it('answers KEY_INCORRECT once the keyless entry has expired, or without an entry', async () => {
    const s = await newService();
    await api(s, 'POST', '/keys/api/keyless', { hwid: 'brief-pc', expiresAt: t().clock.now + HOUR_MS });
    expect((await verdictOf(await validate(s.identifier, { hwid: 'brief-pc' }))).code).toBe('KEYLESS');
    t().clock.advance(HOUR_MS);
    expect(await verdictOf(await validate(s.identifier, { hwid: 'brief-pc' }))).toMatchObject({ valid: false, code: 'KEY_INCORRECT' });
    expect(await verdictOf(await validate(s.identifier, { hwid: 'never-listed' }))).toMatchObject({ valid: false, code: 'KEY_INCORRECT' });
  });
});

describe('POST /api/v1/keys/validate', () => {
  it('gives the same verdicts from a JSON body', async () => {
    const s = await newService();
    const [key] = await generateKeys(t().app, s.serviceKey);
    expect((await verdictOf(await validatePost({ service: s.identifier, key, hwid: 'post-pc' }))).code).toBe('KEY_VALID');
    expect((await verdictOf(await validatePost({ service: s.id, key, hwid: 'post-pc' }))).code).toBe('KEY_VALID');
    expect((await verdictOf(await validatePost({ service: s.id, key, hwid: 'other' }))).code).toBe('KEY_HWID_LOCKED');
    expect((await verdictOf(await validatePost({ service: s.id, key }))).code).toBe('HWID_REQUIRED');
    expect((await verdictOf(await validatePost({ service: s.id, key }, { 'sw-fingerprint': 'post-pc' }))).code).toBe('KEY_VALID');
  });

  it('accepts and ignores unknown fields, as executors differ', async () => {
    const s = await newService();
    const key = await boundKey(s, undefined, 'pc-x');
    expect(
      (await verdictOf(await validatePost({ service: s.id, key, hwid: 'pc-x', executor: 'syn', version: 3, extra: { a: 1 } }))).code,
    ).toBe('KEY_VALID');
    expect((await verdictOf(await validate(s.identifier, { key, hwid: 'pc-x', executor: 'krnl', apiKey: 'x' }))).code).toBe('KEY_VALID');
  });
});

describe('Luarmor compatibility', () => {
  it('uses the codes Luarmor clients branch on, spelled exactly', async () => {
    const s = await newService();
    const [valid, expiring, banned] = await generateKeys(t().app, s.serviceKey, { expirationType: 'byDays', days: 1, count: 3 });
    const seen = new Set<string>();
    const record = async (query: Record<string, string>) => seen.add((await verdictOf(await validate(s.identifier, query))).code);
    await record({ key: valid!, hwid: 'lua-1' });
    await record({ key: valid!, hwid: 'lua-2' });
    await record({ key: 'not-a-real-key', hwid: 'lua-1' });
    await api(s, 'PUT', '/keys/api/generated-key', { key: banned, status: 'banned' });
    await record({ key: banned!, hwid: 'lua-1' });
    t().clock.advance(DAY_MS);
    await record({ key: expiring!, hwid: 'lua-1' });
    expect([...seen].sort()).toEqual(['KEY_BANNED', 'KEY_EXPIRED', 'KEY_HWID_LOCKED', 'KEY_INCORRECT', 'KEY_VALID']);
  });
});
