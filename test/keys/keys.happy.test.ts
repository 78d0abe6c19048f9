import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, generateKeys, type SeededService } from '../helpers/seed.ts';
import { DAY_MS, expectActiveKey, expectError, expectGeneratedKey, iso, redeem, serviceSeeder } from '../helpers/records.ts';

const t = useTestApp();
const newService = serviceSeeder(t);
const CHAT_ID = '123456789012345678';

const api = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, s: SeededService, body?: unknown) =>
  call(t().app, method, `/api/v1${path}`, { key: s.serviceKey, body });
const q = (params: Record<string, string>) => `?${new URLSearchParams(params)}`;

/** A generated key redeemed and bound to `hwid`, returned as the active key string. */
async function activeKey(s: SeededService, body: Record<string, unknown> = { expirationType: 'lifetime' }, hwid = 'pc-1') {
  const [key] = await generateKeys(t().app, s.serviceKey, body);
  await redeem(t().app, s.identifier, key!, hwid);
  return key!;
}

describe('POST /api/v1/keys/api/generate', () => {
  it('creates byDays keys that expire `days` after generation, as GeneratedKey records', async () => {
    const s = await newService();
    const now = t().clock.now;
    const res = await api('POST', '/keys/api/generate', s, {
      expirationType: 'byDays',
      days: 30,
      count: 3,
      note: 'batch',
      isPremium: true,
      noHwidValidation: true,
      chatId: CHAT_ID,
    });
    expect(res.status).toBe(201);
    expect(res.body.success).toBe(true);
    expect(Object.keys(res.body.data)).toEqual(['keys']);
    expect(res.body.data.keys).toHaveLength(3);
    for (const k of res.body.data.keys) {
      expectGeneratedKey(k);
      expect(k).toMatchObject({
        note: 'batch',
        isPremium: true,
        noHwidValidation: true,
        status: 'active',
        expiresAt: iso(now + 30 * DAY_MS),
        chatId: CHAT_ID,
        expirationType: 'byDays',
        createdAt: iso(now),
      });
    }
    expect(new Set(res.body.data.keys.map((k: { key: string }) => k.key)).size).toBe(3);
  });

  it('defaults to one non-premium key without note or chat id', async () => {
    const s = await newService();
    const res = await api('POST', '/keys/api/generate', s, { expirationType: 'lifetime' });
    expect(res.status).toBe(201);
    expect(res.body.data.keys).toHaveLength(1);
    expectGeneratedKey(res.body.data.keys[0]);
    expect(res.body.data.keys[0]).toMatchObject({
      note: null,
      isPremium: false,
      noHwidValidation: false,
      status: 'active',
      expiresAt: null,
      chatId: null,
      expirationType: 'lifetime',
    });
  });

  it('sets byDate keys to the given future date, as ISO string or epoch milliseconds', async () => {
    const s = await newService();
    const at = t().clock.now + 10 * DAY_MS + 123;
    const byString = await api('POST', '/keys/api/generate', s, { expirationType: 'byDate', expiresAt: iso(at) });
    expect(byString.status).toBe(201);
    expect(byString.body.data.keys[0]).toMatchObject({ expirationType: 'byDate', expiresAt: iso(at) });
    const byEpoch = await api('POST', '/keys/api/generate', s, { expirationType: 'byDate', expiresAt: at });
    expect(byEpoch.status).toBe(201);
    expect(byEpoch.body.data.keys[0]).toMatchObject({ expirationType: 'byDate', expiresAt: iso(at) });
  });

  it('generates up to 1000 keys in one call', async () => {
    const s = await newService();
    const res = await api('POST', '/keys/api/generate', s, { expirationType: 'lifetime', count: 1000 });
    expect(res.status).toBe(201);
    expect(res.body.data.keys).toHaveLength(1000);
    expect(new Set(res.body.data.keys.map((k: { key: string }) => k.key)).size).toBe(1000);
  });
});

describe('GET /api/v1/keys/api/key', () => {
  it('finds an active key by key, by hwid and by note, as ActiveKey records', async () => {
    const s = await newService();
    const now = t().clock.now;
    const key = await activeKey(s, { expirationType: 'byDays', days: 5, note: 'find-me', chatId: CHAT_ID }, 'hw-find');
    for (const params of [{ key }, { hwid: 'hw-find' }, { note: 'find-me' }] as Record<string, string>[]) {
      const res = await api('GET', `/keys/api/key${q(params)}`, s);
      expect(res.status, JSON.stringify(params)).toBe(200);
      expect(Object.keys(res.body.data)).toEqual(['keys']);
      expect(res.body.data.keys).toHaveLength(1);
      const record = res.body.data.keys[0];
      expectActiveKey(record);
      expect(record).toEqual({
        key,
        hwid: 'hw-find',
        hwids: ['hw-find'],
        maxHwids: 1,
        maxSessions: 0,
        note: 'find-me',
        isPremium: false,
        noHwidValidation: false,
        status: 'active',
        expiresAt: iso(now + 5 * DAY_MS),
        chatId: CHAT_ID,
        executions: 0,
        createdAt: iso(now),
        activatedAt: iso(now),
        lastUsedAt: iso(now),
        hwidResetAt: null,
        hwidResetCount: 0,
        // Contract §17: redemption keeps who made the key.
        createdBy: { accountId: s.account.id, username: s.account.username },
        banReason: null,
        banExpiresAt: null,
        // Contract §23: only a key bound before its first use has days waiting.
        durationDays: null,
      });
    }
  });

  it('returns every active key sharing a note', async () => {
    const s = await newService();
    const a = await activeKey(s, { expirationType: 'lifetime', note: 'shared' }, 'hw-a');
    const b = await activeKey(s, { expirationType: 'lifetime', note: 'shared' }, 'hw-b');
    const res = await api('GET', `/keys/api/key${q({ note: 'shared' })}`, s);
    expect(res.status).toBe(200);
    expect(res.body.data.keys.map((k: { key: string }) => k.key).sort()).toEqual([a, b].sort());
  });

  it('is a 404 when no active key matches, and a generated key is not an active one', async () => {
    const s = await newService();
    const [generated] = await generateKeys(t().app, s.serviceKey);
    expectError(await api('GET', `/keys/api/key${q({ key: generated! })}`, s), 404, 'NOT_FOUND');
    expectError(await api('GET', `/keys/api/key${q({ hwid: 'nobody' })}`, s), 404, 'NOT_FOUND');
  });
});

describe('PUT /api/v1/keys/api/key', () => {
  it('changes only the fields sent and answers the ActiveKey', async () => {
    const s = await newService();
    const key = await activeKey(s, { expirationType: 'lifetime', note: 'before' }, 'hw-edit');
    const at = t().clock.now + 3 * DAY_MS;
    const res = await api('PUT', '/keys/api/key', s, {
      key,
      note: 'after',
      isPremium: true,
      status: 'paused',
      expiresAt: iso(at),
      chatId: CHAT_ID,
    });
    expect(res.status).toBe(200);
    expectActiveKey(res.body.data);
    expect(res.body.data).toMatchObject({
      key,
      hwid: 'hw-edit',
      note: 'after',
      isPremium: true,
      noHwidValidation: false,
      status: 'paused',
      expiresAt: iso(at),
      chatId: CHAT_ID,
    });
    const again = await api('GET', `/keys/api/key${q({ key })}`, s);
    expect(again.body.data.keys[0]).toEqual(res.body.data);
  });

  it('unbinds the HWID, the chat id and the expiry with null', async () => {
    const s = await newService();
    const key = await activeKey(s, { expirationType: 'byDays', days: 1, note: 'n', chatId: CHAT_ID }, 'hw-null');
    const res = await api('PUT', '/keys/api/key', s, { key, hwid: null, chatId: null, expiresAt: null, note: null });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ key, hwid: null, chatId: null, expiresAt: null, note: null });
  });

  it('rebinds the HWID and toggles noHwidValidation', async () => {
    const s = await newService();
    const key = await activeKey(s, undefined, 'hw-old');
    const res = await api('PUT', '/keys/api/key', s, { key, hwid: 'hw-new', noHwidValidation: true, status: 'banned' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ hwid: 'hw-new', noHwidValidation: true, status: 'banned' });
  });

  it('answers the key unchanged when only `key` is sent', async () => {
    const s = await newService();
    const key = await activeKey(s);
    const before = await api('GET', `/keys/api/key${q({ key })}`, s);
    const res = await api('PUT', '/keys/api/key', s, { key });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(before.body.data.keys[0]);
  });

  it('is a 404 for an unknown key', async () => {
    const s = await newService();
    expectError(await api('PUT', '/keys/api/key', s, { key: 'x'.repeat(32), note: 'n' }), 404, 'NOT_FOUND');
    expectError(await api('PUT', '/keys/api/key', s, { key: 'x'.repeat(32) }), 404, 'NOT_FOUND');
  });
});

describe('DELETE /api/v1/keys/api/key', () => {
  it('deletes an active key named in the query string', async () => {
    const s = await newService();
    const key = await activeKey(s);
    const res = await api('DELETE', `/keys/api/key${q({ key })}`, s);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { deleted: 1 } });
    expectError(await api('GET', `/keys/api/key${q({ key })}`, s), 404, 'NOT_FOUND');
    expectError(await api('DELETE', `/keys/api/key${q({ key })}`, s), 404, 'NOT_FOUND');
  });

  it('accepts the key as a JSON body too', async () => {
    const s = await newService();
    const key = await activeKey(s);
    const res = await api('DELETE', '/keys/api/key', s, { key });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ deleted: 1 });
  });

  it('does not delete a generated key', async () => {
    const s = await newService();
    const [key] = await generateKeys(t().app, s.serviceKey);
    expectError(await api('DELETE', `/keys/api/key${q({ key: key! })}`, s), 404, 'NOT_FOUND');
    expect((await api('GET', `/keys/api/generated-key${q({ key: key! })}`, s)).status).toBe(200);
  });
});

describe('POST /api/v1/keys/api/key/extend-expiration', () => {
  it('adds days to the expiry of an active key that has not expired', async () => {
    const s = await newService();
    const now = t().clock.now;
    const key = await activeKey(s, { expirationType: 'byDays', days: 10 });
    const res = await api('POST', '/keys/api/key/extend-expiration', s, { key, days: 5 });
    expect(res.status).toBe(200);
    expectActiveKey(res.body.data);
    expect(res.body.data).toMatchObject({ key, expiresAt: iso(now + 15 * DAY_MS) });
    const stored = await api('GET', `/keys/api/key${q({ key })}`, s);
    expect(stored.body.data.keys[0].expiresAt).toBe(iso(now + 15 * DAY_MS));
  });

  it('counts from now for a key that has already expired', async () => {
    const s = await newService();
    const key = await activeKey(s, { expirationType: 'byDays', days: 1 });
    t().clock.advance(3 * DAY_MS);
    const now = t().clock.now;
    const res = await api('POST', '/keys/api/key/extend-expiration', s, { key, days: 2 });
    expect(res.status).toBe(200);
    expect(res.body.data.expiresAt).toBe(iso(now + 2 * DAY_MS));
  });

  it('works on generated keys', async () => {
    const s = await newService();
    const now = t().clock.now;
    const [key] = await generateKeys(t().app, s.serviceKey, { expirationType: 'byDays', days: 7 });
    const res = await api('POST', '/keys/api/key/extend-expiration', s, { key, days: 3650 });
    expect(res.status).toBe(200);
    expectGeneratedKey(res.body.data);
    expect(res.body.data).toMatchObject({ key, expiresAt: iso(now + 3657 * DAY_MS), expirationType: 'byDays' });
    const stored = await api('GET', `/keys/api/generated-key${q({ key: key! })}`, s);
    expect(stored.body.data.keys[0].expiresAt).toBe(iso(now + 3657 * DAY_MS));
  });

  it('refuses lifetime keys, active or generated, with 422 LIFETIME_KEY', async () => {
    const s = await newService();
    const active = await activeKey(s);
    const [generated] = await generateKeys(t().app, s.serviceKey);
    for (const key of [active, generated!]) {
      const res = await api('POST', '/keys/api/key/extend-expiration', s, { key, days: 1 });
      expectError(res, 422, 'LIFETIME_KEY');
      expect(res.body.error).toBe('Lifetime keys cannot be extended');
    }
    expect((await api('GET', `/keys/api/key${q({ key: active })}`, s)).body.data.keys[0].expiresAt).toBeNull();
  });

  it('is a 404 for an unknown key', async () => {
    const s = await newService();
    expectError(await api('POST', '/keys/api/key/extend-expiration', s, { key: 'nope', days: 1 }), 404, 'NOT_FOUND');
  });
});

describe('/api/v1/keys/api/generated-key', () => {
  it('GET finds generated keys by key and by note', async () => {
    const s = await newService();
    const now = t().clock.now;
    const keys = await generateKeys(t().app, s.serviceKey, { expirationType: 'byDays', days: 2, count: 2, note: 'gen-note' });
    const byKey = await api('GET', `/keys/api/generated-key${q({ key: keys[0]! })}`, s);
    expect(byKey.status).toBe(200);
    expect(Object.keys(byKey.body.data)).toEqual(['keys']);
    expect(byKey.body.data.keys).toHaveLength(1);
    expectGeneratedKey(byKey.body.data.keys[0]);
    expect(byKey.body.data.keys[0]).toEqual({
      key: keys[0],
      maxHwids: 1,
      maxSessions: 0,
      note: 'gen-note',
      isPremium: false,
      noHwidValidation: false,
      status: 'active',
      expiresAt: iso(now + 2 * DAY_MS),
      chatId: null,
      expirationType: 'byDays',
      durationDays: null,
      createdAt: iso(now),
      // Contract §17: a service key generates as its owner.
      createdBy: { accountId: s.account.id, username: s.account.username },
    });
    const byNote = await api('GET', `/keys/api/generated-key${q({ note: 'gen-note' })}`, s);
    expect(byNote.body.data.keys.map((k: { key: string }) => k.key).sort()).toEqual([...keys].sort());
  });

  it('GET is a 404 when none matches, including a key already redeemed', async () => {
    const s = await newService();
    const key = await activeKey(s);
    expectError(await api('GET', `/keys/api/generated-key${q({ key })}`, s), 404, 'NOT_FOUND');
    expectError(await api('GET', `/keys/api/generated-key${q({ note: 'none' })}`, s), 404, 'NOT_FOUND');
  });

  it('PUT edits the fields sent and answers the GeneratedKey', async () => {
    const s = await newService();
    const [key] = await generateKeys(t().app, s.serviceKey, { expirationType: 'byDays', days: 2, note: 'old' });
    const at = t().clock.now + 40 * DAY_MS;
    const res = await api('PUT', '/keys/api/generated-key', s, {
      key,
      note: 'new',
      isPremium: true,
      noHwidValidation: true,
      status: 'paused',
      expiresAt: at,
      chatId: CHAT_ID,
    });
    expect(res.status).toBe(200);
    expectGeneratedKey(res.body.data);
    expect(res.body.data).toMatchObject({
      key,
      note: 'new',
      isPremium: true,
      noHwidValidation: true,
      status: 'paused',
      expiresAt: iso(at),
      chatId: CHAT_ID,
    });
    const unbound = await api('PUT', '/keys/api/generated-key', s, { key, chatId: null });
    expect(unbound.body.data.chatId).toBeNull();
  });

  it('PUT is a 404 for an unknown or already active key', async () => {
    const s = await newService();
    const key = await activeKey(s);
    expectError(await api('PUT', '/keys/api/generated-key', s, { key, note: 'x' }), 404, 'NOT_FOUND');
  });

  it('DELETE removes a generated key (query string or JSON body)', async () => {
    const s = await newService();
    const [a, b] = await generateKeys(t().app, s.serviceKey, { expirationType: 'lifetime', count: 2 });
    const byQuery = await api('DELETE', `/keys/api/generated-key${q({ key: a! })}`, s);
    expect(byQuery.status).toBe(200);
    expect(byQuery.body).toEqual({ success: true, data: { deleted: 1 } });
    const byBody = await api('DELETE', '/keys/api/generated-key', s, { key: b });
    expect(byBody.body.data).toEqual({ deleted: 1 });
    expectError(await api('GET', `/keys/api/generated-key${q({ key: a! })}`, s), 404, 'NOT_FOUND');
    expectError(await api('DELETE', `/keys/api/generated-key${q({ key: a! })}`, s), 404, 'NOT_FOUND');
    const gone = await call(t().app, 'GET', `/api/v1/keys/validate${q({ service: s.id, key: b!, hwid: 'pc' })}`);
    expect(gone.body.data.code).toBe('KEY_INCORRECT');
  });
});

describe('GET /api/v1/keys/api/key/binding', () => {
  it('tells whether an active key is bound and to which HWID', async () => {
    const s = await newService();
    const key = await activeKey(s, undefined, 'hw-bound');
    const bound = await api('GET', `/keys/api/key/binding${q({ key, type: 'active' })}`, s);
    expect(bound.status).toBe(200);
    expect(bound.body.data).toEqual({ key, type: 'active', bound: true, hwid: 'hw-bound' });
    await api('PUT', '/keys/api/key', s, { key, hwid: null });
    const unbound = await api('GET', `/keys/api/key/binding${q({ key, type: 'active' })}`, s);
    expect(unbound.body.data).toEqual({ key, type: 'active', bound: false, hwid: null });
  });

  it('answers a generated key as never bound', async () => {
    const s = await newService();
    const [key] = await generateKeys(t().app, s.serviceKey);
    const res = await api('GET', `/keys/api/key/binding${q({ key: key!, type: 'generated' })}`, s);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ key, type: 'generated', bound: false, hwid: null });
  });

  it('is a 404 when the key is not of the type asked', async () => {
    const s = await newService();
    const active = await activeKey(s);
    const [generated] = await generateKeys(t().app, s.serviceKey);
    expectError(await api('GET', `/keys/api/key/binding${q({ key: active, type: 'generated' })}`, s), 404, 'NOT_FOUND');
    expectError(await api('GET', `/keys/api/key/binding${q({ key: generated!, type: 'active' })}`, s), 404, 'NOT_FOUND');
  });
});

describe('GET /api/v1/keys/api/key/by-chat', () => {
  it('lists the active and generated keys bound to a chat user, each with its type', async () => {
    const s = await newService();
    const active = await activeKey(s, { expirationType: 'lifetime', chatId: CHAT_ID });
    const [generated] = await generateKeys(t().app, s.serviceKey, { expirationType: 'byDays', days: 1, chatId: CHAT_ID });
    await generateKeys(t().app, s.serviceKey, { expirationType: 'lifetime', chatId: '99999999999999999' });
    const res = await api('GET', `/keys/api/key/by-chat${q({ chatId: CHAT_ID })}`, s);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data).sort()).toEqual(['chatId', 'keys']);
    expect(res.body.data.chatId).toBe(CHAT_ID);
    expect(res.body.data.keys).toHaveLength(2);
    const byKey = Object.fromEntries(res.body.data.keys.map((k: { key: string }) => [k.key, k]));
    const { type: activeType, ...activeRecord } = byKey[active];
    expect(activeType).toBe('active');
    expectActiveKey(activeRecord);
    const { type: generatedType, ...generatedRecord } = byKey[generated!];
    expect(generatedType).toBe('generated');
    expectGeneratedKey(generatedRecord);
  });

  it('answers an empty list for a chat user without keys', async () => {
    const s = await newService();
    const res = await api('GET', `/keys/api/key/by-chat${q({ chatId: CHAT_ID })}`, s);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ chatId: CHAT_ID, keys: [] });
  });

  it('adds `loadstrings` only when includeLoadstring=1 and a key is valid now', async () => {
    const s = await newService();
    const [key] = await generateKeys(t().app, s.serviceKey, { expirationType: 'byDays', days: 1, chatId: CHAT_ID });

    const notAsked = await api('GET', `/keys/api/key/by-chat${q({ chatId: CHAT_ID })}`, s);
    expect(notAsked.body.data).not.toHaveProperty('loadstrings');
    const askedZero = await api('GET', `/keys/api/key/by-chat${q({ chatId: CHAT_ID, includeLoadstring: '0' })}`, s);
    expect(askedZero.body.data).not.toHaveProperty('loadstrings');
    const asked = await api('GET', `/keys/api/key/by-chat${q({ chatId: CHAT_ID, includeLoadstring: '1' })}`, s);
    expect(asked.status).toBe(200);
    expect(Array.isArray(asked.body.data.loadstrings)).toBe(true);

    await api('PUT', '/keys/api/generated-key', s, { key, status: 'paused' });
    const paused = await api('GET', `/keys/api/key/by-chat${q({ chatId: CHAT_ID, includeLoadstring: '1' })}`, s);
    expect(paused.body.data).not.toHaveProperty('loadstrings');

    await api('PUT', '/keys/api/generated-key', s, { key, status: 'active' });
    t().clock.advance(2 * DAY_MS);
    const expired = await api('GET', `/keys/api/key/by-chat${q({ chatId: CHAT_ID, includeLoadstring: '1' })}`, s);
    expect(expired.body.data.keys).toHaveLength(1);
    expect(expired.body.data).not.toHaveProperty('loadstrings');

    const none = await api('GET', `/keys/api/key/by-chat${q({ chatId: '11111111111111111', includeLoadstring: '1' })}`, s);
    expect(none.body.data).not.toHaveProperty('loadstrings');
  });
});

describe('POST /api/v1/keys/api/compensate', () => {
  it('adds days to every expiring key, active and generated, and leaves lifetime keys alone', async () => {
    const s = await newService();
    const now = t().clock.now;
    const active = await activeKey(s, { expirationType: 'byDays', days: 10 });
    const lifetimeActive = await activeKey(s);
    const generated = await generateKeys(t().app, s.serviceKey, { expirationType: 'byDays', days: 1, count: 2 });
    const [lifetimeGenerated] = await generateKeys(t().app, s.serviceKey);
    const other = await newService();
    const [otherKey] = await generateKeys(t().app, other.serviceKey, { expirationType: 'byDays', days: 1 });

    const res = await api('POST', '/keys/api/compensate', s, { days: 7 });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ activeKeysUpdated: 1, generatedKeysUpdated: 2 });

    const get = async (path: string, key: string) => (await api('GET', `${path}${q({ key })}`, s)).body.data.keys[0].expiresAt;
    expect(await get('/keys/api/key', active)).toBe(iso(now + 17 * DAY_MS));
    expect(await get('/keys/api/key', lifetimeActive)).toBeNull();
    for (const key of generated) expect(await get('/keys/api/generated-key', key)).toBe(iso(now + 8 * DAY_MS));
    expect(await get('/keys/api/generated-key', lifetimeGenerated!)).toBeNull();
    const untouched = await call(t().app, 'GET', `/api/v1/keys/api/generated-key${q({ key: otherKey! })}`, { key: other.serviceKey });
    expect(untouched.body.data.keys[0].expiresAt).toBe(iso(now + DAY_MS));
  });

  it('reports zero counts for a service without expiring keys', async () => {
    const s = await newService();
    await generateKeys(t().app, s.serviceKey);
    const res = await api('POST', '/keys/api/compensate', s, { days: 365 });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ activeKeysUpdated: 0, generatedKeysUpdated: 0 });
  });
});
