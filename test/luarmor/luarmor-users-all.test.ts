// Contract §23: the user list answers every user (a list-all bot keeps its newest buyers), a reseller's only its own;
// the bulk import of a seller's own keys; and the Part-four items §23 names (notes with newlines, bulk by role, script
// records). Requests are the bytes the public clients send (raw-client.ts).
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, generateKeys, type SeededService } from '../helpers/seed.ts';
import { redeem, serviceSeeder } from '../helpers/records.ts';
import { addMember, asMember } from '../teams/team-helpers.ts';
import { raw } from './raw-client.ts';

const t = useTestApp();
const newService = serviceSeeder(t);
const users = (s: SeededService) => `/v3/projects/${s.identifier}/users`;
const keysOf = (body: { users: Array<{ user_key: string }> }) => body.users.map((u) => u.user_key);

describe('GET /users: every user (§23)', () => {
  it('answers all of 2,300 users oldest first without from/until, and any slice with them', async () => {
    const s = await newService();
    const first = await generateKeys(t().app, s.serviceKey, { expirationType: 'lifetime', count: 1000 });
    t().clock.advance(1000);
    const second = await generateKeys(t().app, s.serviceKey, { expirationType: 'lifetime', count: 1000 });
    t().clock.advance(1000);
    const third = await generateKeys(t().app, s.serviceKey, { expirationType: 'lifetime', count: 300 });
    // A redeemed key keeps its place: the two tables are walked together.
    const middle = second[500]!;
    await redeem(t().app, s.identifier, middle, 'pc-middle');
    const expected = [...first.sort(), ...second.sort(), ...third.sort()];
    const all = await raw(t().app, 'GET', users(s), { key: s.serviceKey });
    expect(all.status).toBe(200);
    expect(all.headers['content-type']).toMatch(/^application\/json/);
    expect(all.body.success).toBe(true);
    expect(all.body.message).toBe('Success!');
    expect(keysOf(all.body)).toEqual(expected);
    expect(all.body.users[expected.indexOf(middle)]).toMatchObject({ user_key: middle, identifier: 'pc-middle', status: 'active' });
    const slice = await raw(t().app, 'GET', `${users(s)}?from=900&until=2100`, { key: s.serviceKey });
    expect(keysOf(slice.body)).toEqual(expected.slice(900, 2100));
    const tail = await raw(t().app, 'GET', `${users(s)}?from=2250`, { key: s.serviceKey });
    expect(keysOf(tail.body)).toEqual(expected.slice(2250));
    const none = await raw(t().app, 'GET', `${users(s)}?search=nothing-like-this`, { key: s.serviceKey });
    expect(none.body).toEqual({ success: true, message: 'Success!', users: [] });
  });

  it("lists a reseller's own keys only, through every filter", async () => {
    const s = await newService();
    const reseller = await addMember(t().app, t().ctx, s, 'reseller', { keysLeft: 10, allowLifetime: true });
    const chat = '223456789012345678';
    const ownerKey = (
      await raw(t().app, 'POST', users(s), { key: s.serviceKey, body: `{"identifier":"hw-shared","discord_id":"${chat}","note":"mine"}` })
    ).body.user_key;
    t().clock.advance(1000);
    const own = await raw(t().app, 'POST', users(s), { key: reseller.accountKey, body: '{"note":"mine too"}' });
    expect(own.status, own.text).toBe(200);
    const ownKey = own.body.user_key;
    const asReseller = (query: string) => raw(t().app, 'GET', `${users(s)}${query}`, { key: reseller.accountKey });
    expect(keysOf((await asReseller('')).body)).toEqual([ownKey]);
    expect(keysOf((await asReseller('?search=mine')).body)).toEqual([ownKey]);
    expect(keysOf((await asReseller(`?user_key=${ownerKey}`)).body)).toEqual([]);
    expect(keysOf((await asReseller(`?discord_id=${chat}`)).body)).toEqual([]);
    expect(keysOf((await asReseller('?identifier=hw-shared')).body)).toEqual([]);
    expect(keysOf((await raw(t().app, 'GET', `${users(s)}?search=mine`, { key: s.serviceKey })).body)).toEqual([ownerKey, ownKey]);
  });
});

describe('POST /users/import (§23)', () => {
  it('makes the seller’s own keys as POST /users would, skips existing ones, and audits one import', async () => {
    const s = await newService();
    const existing = (await raw(t().app, 'POST', users(s), { key: s.serviceKey, body: '{}' })).body.user_key;
    const end = Math.floor((t().clock.now + 10 * 86_400_000) / 1000);
    const body = JSON.stringify({
      users: [
        {
          user_key: 'SellerKey0000000000000000000001',
          identifier: 'hw-imp',
          discord_id: null,
          note: 'a\nb',
          auth_expire: null,
          key_days: null,
        },
        { user_key: 'SellerKey0000000000000000000002', key_days: 7 },
        { user_key: 'SellerKey0000000000000000000003', auth_expire: end },
        { user_key: existing, note: 'ignored' },
      ],
    });
    const res = await raw(t().app, 'POST', `${users(s)}/import`, { key: s.serviceKey, body });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ success: true, message: 'Imported 3 users', imported: 3, skipped: [existing] });
    const list = (await raw(t().app, 'GET', users(s), { key: s.serviceKey })).body.users as Array<Record<string, unknown>>;
    const byKey = Object.fromEntries(list.map((u) => [u.user_key, u]));
    expect(byKey['SellerKey0000000000000000000001']).toMatchObject({
      identifier: 'hw-imp',
      status: 'active',
      note: 'a\nb',
      auth_expire: -1,
    });
    expect(byKey['SellerKey0000000000000000000002']).toMatchObject({ status: 'reset', key_days: 7, auth_expire: -1 });
    expect(byKey['SellerKey0000000000000000000003']).toMatchObject({ status: 'reset', key_days: 10, auth_expire: -1 });
    expect(byKey[existing]).toMatchObject({ note: '' });
    const audit = await call(t().app, 'GET', '/api/v1/keys/api/audit?limit=100', { key: s.serviceKey });
    expect(audit.body.data.items.map((e: { action: string }) => e.action)).toContain('keys.import');
  });

  it('fails the whole call on a malformed entry, naming its index, and makes nothing', async () => {
    const s = await newService();
    const cases: Array<[unknown[], string]> = [
      [[{ user_key: 'GoodKey000000000001' }, { user_key: 'no' }], 'users[1].user_key must be a key: 8 to 64 of letters, digits, _ and -'],
      [[{ user_key: 'GoodKey000000000001' }, { user_key: 'GoodKey000000000002', discord_id: '42' }], 'users[1]: Invalid discord_id'],
      [
        [{ user_key: 'GoodKey000000000001', auth_expire: 5 }],
        'users[0]: auth_expire must be a future Unix time in seconds, or -1 for lifetime',
      ],
      [[], 'users must be a list of 1 to 10,000 users'],
    ];
    for (const [list, message] of cases) {
      const res = await raw(t().app, 'POST', `${users(s)}/import`, { key: s.serviceKey, body: JSON.stringify({ users: list }) });
      expect(res.body, message).toEqual({ success: false, message });
      expect(res.status).toBe(400);
    }
    expect((await raw(t().app, 'GET', users(s), { key: s.serviceKey })).body.users).toEqual([]);
  });

  it('needs allowManageKeys and is owner or manager work', async () => {
    const s = await newService();
    const support = await addMember(t().app, t().ctx, s, 'support');
    const body = '{"users":[{"user_key":"SupportKey00000001"}]}';
    const res = await raw(t().app, 'POST', `${users(s)}/import`, { key: support.accountKey, body });
    expect(res).toMatchObject({
      status: 403,
      body: { success: false, message: 'Your role on this service (support) does not allow this.' },
    });
  });
});

describe("Part four's items (§23)", () => {
  it('keeps a note with newlines and tabs exactly: the user record, Keyward’s record and the CSV export', async () => {
    const s = await newService();
    const note = 'line one\nline two\r\n\tindented "quoted", ]]';
    const key = (await raw(t().app, 'POST', users(s), { key: s.serviceKey, body: JSON.stringify({ note }) })).body.user_key;
    expect((await raw(t().app, 'GET', `${users(s)}?user_key=${key}`, { key: s.serviceKey })).body.users[0].note).toBe(note);
    const own = await call(t().app, 'GET', `/api/v1/keys/api/generated-key?key=${key}`, { key: s.serviceKey });
    expect(own.body.data.keys[0].note).toBe(note);
    const edited = await call(t().app, 'PUT', '/api/v1/keys/api/generated-key', { key: s.serviceKey, body: { key, note: `${note}\t!` } });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    const csv = await t().app.inject({
      method: 'GET',
      url: '/api/v1/keys/api/keys/export?format=csv',
      headers: { 'x-api-key': s.serviceKey },
    });
    // The file imports back, once the key is gone, with the note unchanged.
    await raw(t().app, 'DELETE', `${users(s)}?user_key=${key}`, { key: s.serviceKey });
    const imported = await call(t().app, 'POST', '/api/v1/keys/api/keys/import', {
      key: s.serviceKey,
      body: { format: 'keyward-csv', data: csv.body },
    });
    expect(imported.status, JSON.stringify(imported.body)).toBe(201);
    const back = await call(t().app, 'GET', `/api/v1/keys/api/generated-key?key=${key}`, { key: s.serviceKey });
    expect(back.body.data.keys[0].note).toBe(`${note}\t!`);
    const control = await raw(t().app, 'POST', users(s), { key: s.serviceKey, body: JSON.stringify({ note: 'bell\u0007' }) });
    expect(control.status).toBe(400);
  });

  it("refuses a support member's bulk action with ROLE_FORBIDDEN, whatever the action", async () => {
    const s = await newService();
    const support = await addMember(t().app, t().ctx, s, 'support');
    const [key] = await generateKeys(t().app, s.serviceKey);
    for (const body of [
      { action: 'ban', keys: [key] },
      { action: 'setNote', note: 'x', keys: [key] },
    ]) {
      const res = await asMember(t().app, support, s, 'POST', '/keys/api/keys/bulk', body);
      expect(res.status, JSON.stringify(res.body)).toBe(403);
      expect(res.body.code).toBe('ROLE_FORBIDDEN');
    }
  });

  it('carries ffa, silent and heartbeat as booleans on every script record', async () => {
    const s = await newService();
    const created = await raw(t().app, 'POST', `/v3/projects/${s.identifier}/scripts`, {
      key: s.serviceKey,
      body: '{"name":"plain","script":"print(1)"}',
    });
    expect(created.status, created.text).toBe(200);
    const list = await call(t().app, 'GET', '/api/v1/vss/api/scripts', { key: s.serviceKey });
    const items = (list.body.data.items ?? list.body.data) as Array<Record<string, unknown>>;
    expect(items[0]).toMatchObject({ ffa: false, silent: false, heartbeat: false });
  });
});
