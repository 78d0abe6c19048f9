// Contract §16.1–16.2: the Luarmor-compatible user routes, driven by a client that sends what Luarmor's clients send.
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, generateKeys, type SeededService } from '../helpers/seed.ts';
import { DAY_MS, HOUR_MS, redeem, serviceSeeder } from '../helpers/records.ts';
import { LuarmorClient } from './luarmor-client.ts';

const t = useTestApp();
const newService = serviceSeeder(t);
const luarmor = (s: SeededService) => new LuarmorClient(() => t().app, s.serviceKey);
const CHAT_ID = '123456789012345678';
const sec = (ms: number) => Math.floor(ms / 1000);

async function userRecord(s: SeededService, key: string) {
  const res = await luarmor(s).getUsers(s.identifier, { user_key: key });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.users).toHaveLength(1);
  return res.body.users[0];
}

async function auditActions(s: SeededService) {
  const res = await call(t().app, 'GET', '/api/v1/keys/api/audit?limit=100', { key: s.serviceKey });
  return (res.body.data.items as Array<{ action: string; target: string | null }>).map((e) => `${e.action}:${e.target ?? ''}`);
}

describe('Luarmor user records (§16.1)', () => {
  it('shows an unused lifetime key exactly: "" for empty, -1 for lifetime, banned a number', async () => {
    const s = await newService();
    const created = await luarmor(s).createUser(s.identifier, { note: 'vip', discord_id: CHAT_ID });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body).toEqual({ success: true, message: 'Success!', user_key: expect.stringMatching(/^[A-Za-z0-9]{32}$/) });
    const record = await userRecord(s, created.body.user_key);
    // In Luarmor's order, and no key_days at all for a key whose time does not start at first use.
    expect(Object.keys(record)).toEqual([
      'user_key',
      'identifier',
      'identifier_type',
      'discord_id',
      'status',
      'last_reset',
      'total_resets',
      'auth_expire',
      'banned',
      'ban_reason',
      'ban_expire',
      'unban_token',
      'total_executions',
      'note',
      'ban_ip',
    ]);
    expect(record).toEqual({
      user_key: created.body.user_key,
      identifier: '',
      identifier_type: '',
      discord_id: CHAT_ID,
      status: 'reset',
      last_reset: 0,
      total_resets: 0,
      auth_expire: -1,
      banned: 0,
      ban_reason: '',
      ban_expire: -1,
      unban_token: '',
      total_executions: 0,
      note: 'vip',
      ban_ip: '',
    });
  });

  it('shows a redeemed, reset and executed key with its times in seconds', async () => {
    const s = await newService();
    const expires = t().clock.now + 5 * DAY_MS;
    const created = await luarmor(s).createUser(s.identifier, { identifier: 'pc-1', auth_expire: sec(expires) });
    const key = created.body.user_key as string;
    const resetAt = t().clock.now;
    expect((await luarmor(s).resetHwid(s.identifier, key)).body).toEqual({ success: true, message: 'Successfully reset!' });
    await redeem(t().app, s.identifier, key, 'pc-2');
    expect(await userRecord(s, key)).toMatchObject({
      identifier: 'pc-2',
      identifier_type: 'HWID',
      status: 'active',
      last_reset: sec(resetAt),
      total_resets: 1,
      auth_expire: sec(expires),
      banned: 0,
    });
  });

  it('shows time that starts at redemption as key_days with auth_expire -1, and a paused key as banned "Paused"', async () => {
    const s = await newService();
    const created = await luarmor(s).createUser(s.identifier, { key_days: 30 });
    const record = await userRecord(s, created.body.user_key);
    expect(record).toMatchObject({ auth_expire: -1, key_days: 30, status: 'reset' });
    expect(Object.keys(record).slice(7, 10)).toEqual(['auth_expire', 'key_days', 'banned']);
    const [paused] = await generateKeys(t().app, s.serviceKey);
    await call(t().app, 'PUT', '/api/v1/keys/api/generated-key', { key: s.serviceKey, body: { key: paused, status: 'paused' } });
    expect(await userRecord(s, paused!)).toMatchObject({
      status: 'banned',
      banned: 1,
      ban_reason: 'Paused',
      ban_expire: -1,
      unban_token: '',
    });
  });
});

describe('GET /v3/projects/{pid}/users (§16.2)', () => {
  it('lists oldest first with from/until, filters, and an empty list for no match', async () => {
    const s = await newService();
    const keys: string[] = [];
    for (let i = 0; i < 4; i++) {
      // Keys are [A-Za-z0-9]: a note with '_' can never also match inside a key (search covers both).
      keys.push((await luarmor(s).createUser(s.identifier, { note: `n_${i}` })).body.user_key);
      t().clock.advance(1000);
    }
    const all = await luarmor(s).getUsers(s.id);
    expect(all.body).toMatchObject({ success: true, message: 'Success!' });
    expect(all.body.users.map((u: { user_key: string }) => u.user_key)).toEqual(keys);
    const page = await luarmor(s).getUsers(s.identifier, { from: 1, until: 3 });
    expect(page.body.users.map((u: { user_key: string }) => u.user_key)).toEqual(keys.slice(1, 3));
    expect((await luarmor(s).getUsers(s.identifier, { search: 'n_2' })).body.users.map((u: { note: string }) => u.note)).toEqual(['n_2']);
    await luarmor(s).linkDiscord(s.identifier, keys[3]!, CHAT_ID);
    expect((await luarmor(s).getUsers(s.identifier, { discord_id: CHAT_ID })).body.users[0].user_key).toBe(keys[3]);
    const bound = (await luarmor(s).createUser(s.identifier, { identifier: 'hw-list' })).body.user_key;
    expect((await luarmor(s).getUsers(s.identifier, { identifier: 'hw-list' })).body.users[0].user_key).toBe(bound);
    expect((await luarmor(s).getUsers(s.identifier, { user_key: 'nope-nope-nope' })).body).toEqual({
      success: true,
      message: 'Success!',
      users: [],
    });
    const backwards = await luarmor(s).getUsers(s.identifier, { from: 3, until: 1 });
    expect(backwards).toMatchObject({ status: 400, body: { success: false, message: 'until must be 3 (from) or more' } });
  });
});

describe('POST /v3/projects/{pid}/users (§16.2)', () => {
  it('refuses a taken identifier and a taken Discord ID with Luarmor’s messages, and audits a create as key.generate', async () => {
    const s = await newService();
    const first = await luarmor(s).createUser(s.identifier, { identifier: 'hw-taken', discord_id: CHAT_ID, some_option: 'ignored' });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(await luarmor(s).createUser(s.identifier, { identifier: 'hw-taken' })).toMatchObject({
      status: 400,
      body: { success: false, message: 'Identifier already exists.' },
    });
    expect(await luarmor(s).createUser(s.identifier, { discord_id: CHAT_ID })).toMatchObject({
      status: 400,
      body: { success: false, message: 'Discord ID already exists.' },
    });
    expect(await auditActions(s)).toContain(`key.generate:${first.body.user_key}`);
    // Created bound: it validates on that HWID at once and nowhere else.
    const v = await call(t().app, 'GET', `/api/v1/keys/validate?service=${s.identifier}&key=${first.body.user_key}&hwid=hw-taken`);
    expect(v.body.data.code).toBe('KEY_VALID');
  });

  it('refuses a past auth_expire, and key_days beside a dated auth_expire; key_days with an identifier is a bound key', async () => {
    const s = await newService();
    const past = await luarmor(s).createUser(s.identifier, { auth_expire: sec(t().clock.now - HOUR_MS) });
    expect(past.status).toBe(400);
    expect(past.body.message).toMatch(/auth_expire/);
    const both = await luarmor(s).createUser(s.identifier, { key_days: 3, auth_expire: sec(t().clock.now + DAY_MS) });
    expect(both.status).toBe(400);
    expect(both.body.message).toMatch(/key_days/);
    // Contract §23: bound at once, its time starting at its first validation (luarmor-pending-days.test.ts).
    const bound = await luarmor(s).createUser(s.identifier, { identifier: 'x1', key_days: 3 });
    expect(bound.status, JSON.stringify(bound.body)).toBe(200);
    expect(await userRecord(s, bound.body.user_key)).toMatchObject({ identifier: 'x1', status: 'active', auth_expire: -1, key_days: 3 });
  });
});

describe('PATCH and DELETE /v3/projects/{pid}/users (§16.2)', () => {
  it('edits identifier, discord_id, note and auth_expire; "" unbinds and unlinks', async () => {
    const s = await newService();
    const key = (await luarmor(s).createUser(s.identifier, { identifier: 'pc-a', discord_id: CHAT_ID })).body.user_key;
    const later = t().clock.now + 9 * DAY_MS;
    const res = await luarmor(s).updateUser(s.identifier, { user_key: key, identifier: 'pc-b', note: 'edited', auth_expire: sec(later) });
    expect(res.body).toEqual({ success: true, message: 'User has been edited successfully!' });
    expect(await userRecord(s, key)).toMatchObject({ identifier: 'pc-b', note: 'edited', auth_expire: sec(later) });
    await luarmor(s).updateUser(s.identifier, { user_key: key, identifier: '', discord_id: '' });
    expect(await userRecord(s, key)).toMatchObject({ identifier: '', status: 'reset', discord_id: '' });
    expect(await auditActions(s)).toContain(`key.update:${key}`);
  });

  it('answers 404 Key not found, and 400 naming auth_expire for a past time', async () => {
    const s = await newService();
    expect(await luarmor(s).updateUser(s.identifier, { user_key: 'missing-key-1', note: 'x' })).toMatchObject({
      status: 404,
      body: { success: false, message: 'Key not found' },
    });
    const dated = (await luarmor(s).createUser(s.identifier, { auth_expire: sec(t().clock.now + DAY_MS) })).body.user_key;
    const res = await luarmor(s).updateUser(s.identifier, { user_key: dated, auth_expire: sec(t().clock.now - DAY_MS) });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/auth_expire/);
  });

  it('deletes by query and by path; a second delete is 404', async () => {
    const s = await newService();
    const a = (await luarmor(s).createUser(s.identifier)).body.user_key;
    const b = (await luarmor(s).createUser(s.identifier, { identifier: 'pc-del' })).body.user_key;
    expect((await luarmor(s).deleteUser(s.identifier, a)).body).toEqual({ success: true, message: 'User has been deleted!' });
    expect((await luarmor(s).request('DELETE', `/v3/projects/${s.identifier}/users/${b}`)).body.message).toBe('User has been deleted!');
    expect(await luarmor(s).deleteUser(s.identifier, a)).toMatchObject({ status: 404, body: { success: false, message: 'Key not found' } });
    expect(await auditActions(s)).toEqual(expect.arrayContaining([`key.delete:${a}`, `key.delete:${b}`]));
  });
});

describe('resethwid and linkdiscord (§16.2)', () => {
  it('holds a reset to the cooldown unless force, refuses a banned key, and names an unknown one', async () => {
    const s = await newService();
    const key = (await luarmor(s).createUser(s.identifier, { identifier: 'pc-r' })).body.user_key;
    expect((await luarmor(s).resetHwid(s.identifier, key)).status).toBe(200);
    await redeem(t().app, s.identifier, key, 'pc-r2');
    expect(await luarmor(s).resetHwid(s.identifier, key)).toMatchObject({
      status: 400,
      body: { success: false, message: 'User is on cooldown.' },
    });
    expect((await luarmor(s).resetHwid(s.identifier, key, true)).body).toEqual({ success: true, message: 'Successfully reset!' });
    await luarmor(s).blacklist(s.identifier, key);
    expect(await luarmor(s).resetHwid(s.identifier, key, true)).toMatchObject({ status: 400, body: { message: 'User is banned.' } });
    expect(await luarmor(s).resetHwid(s.identifier, 'unknown-key-1')).toMatchObject({
      status: 404,
      body: { success: false, message: "User key doesn't exist" },
    });
  });

  it('links a Discord ID once unless force, and refuses an invalid or taken one', async () => {
    const s = await newService();
    const a = (await luarmor(s).createUser(s.identifier)).body.user_key;
    const b = (await luarmor(s).createUser(s.identifier)).body.user_key;
    expect((await luarmor(s).linkDiscord(s.identifier, a, CHAT_ID)).body).toEqual({
      success: true,
      message: 'Discord ID successfully linked!',
    });
    expect((await luarmor(s).linkDiscord(s.identifier, a, '12345')).body.message).toBe('Invalid discord_id');
    expect((await luarmor(s).linkDiscord(s.identifier, a, '223456789012345678')).body.message).toBe(
      'This key already has a discord linked to it',
    );
    expect((await luarmor(s).linkDiscord(s.identifier, a, '223456789012345678', true)).status).toBe(200);
    const taken = await luarmor(s).linkDiscord(s.identifier, b, '223456789012345678');
    expect(taken).toMatchObject({ status: 400, body: { success: false, message: 'Discord ID already exists.' } });
    expect(await userRecord(s, a)).toMatchObject({ discord_id: '223456789012345678' });
  });
});

describe('blacklist and unban (§16.2, §19)', () => {
  it('bans the key and blacklists its HWIDs with the reason and end; the token undoes exactly that, once', async () => {
    const s = await newService();
    const key = (await luarmor(s).createUser(s.identifier, { identifier: 'pc-ban' })).body.user_key;
    // The seller's own entry on another HWID stays through the unban.
    await call(t().app, 'POST', '/api/v1/keys/api/blacklist', { key: s.serviceKey, body: { hwid: 'pc-other', reason: 'own' } });
    const end = sec(t().clock.now + 2 * DAY_MS);
    const res = await luarmor(s).blacklist(s.identifier, key, { ban_reason: 'chargeback', ban_expire: end });
    expect(res.body).toEqual({
      success: true,
      message: 'User has been blacklisted!',
      unban_token: expect.stringMatching(/^[A-Za-z0-9]{32}$/),
    });
    expect(await userRecord(s, key)).toMatchObject({
      status: 'banned',
      banned: 1,
      ban_reason: 'chargeback',
      ban_expire: end,
      unban_token: res.body.unban_token,
    });
    const check = await call(t().app, 'GET', '/api/v1/keys/api/blacklist/check?hwid=pc-ban', { key: s.serviceKey });
    expect(check.body.data).toMatchObject({ blacklisted: true, reason: 'chargeback', expiresAt: new Date(end * 1000).toISOString() });
    const verdict = await call(t().app, 'GET', `/api/v1/keys/validate?service=${s.identifier}&key=${key}&hwid=pc-ban`);
    expect(verdict.body.data.code).toBe('HWID_BLACKLISTED');

    // Public: no key needed.
    const anonymous = new LuarmorClient(() => t().app, null);
    expect((await anonymous.unban(s.identifier, res.body.unban_token)).body).toEqual({ success: true, message: 'User has been unbanned!' });
    expect(await userRecord(s, key)).toMatchObject({ status: 'active', banned: 0, ban_reason: '', ban_expire: -1, unban_token: '' });
    const after = await call(t().app, 'GET', '/api/v1/keys/api/blacklist/check?hwid=pc-ban', { key: s.serviceKey });
    expect(after.body.data.blacklisted).toBe(false);
    const own = await call(t().app, 'GET', '/api/v1/keys/api/blacklist/check?hwid=pc-other', { key: s.serviceKey });
    expect(own.body.data.blacklisted).toBe(true);
    expect(await anonymous.unban(s.identifier, res.body.unban_token)).toMatchObject({
      status: 404,
      body: { success: false, message: 'Key not found' },
    });
    // Also as a POST with the token in the body.
    const again = await luarmor(s).blacklist(s.identifier, key);
    const post = await anonymous.request('POST', `/v3/projects/${s.identifier}/users/unban`, { unban_token: again.body.unban_token });
    expect(post.body.message).toBe('User has been unbanned!');
    expect(await auditActions(s)).toEqual(expect.arrayContaining([`key.update:${key}`, 'blacklist.add:pc-ban', 'blacklist.delete:pc-ban']));
  });

  it('bans an unused key too, and refuses a past ban_expire naming it', async () => {
    const s = await newService();
    const key = (await luarmor(s).createUser(s.identifier)).body.user_key;
    const past = await luarmor(s).blacklist(s.identifier, key, { ban_expire: sec(t().clock.now - 1000) });
    expect(past.status).toBe(400);
    expect(past.body.message).toMatch(/ban_expire/);
    await luarmor(s).blacklist(s.identifier, key, { ban_reason: 'spam' });
    expect(await userRecord(s, key)).toMatchObject({ status: 'banned', banned: 1, ban_reason: 'spam', ban_expire: -1 });
    const v = await call(t().app, 'GET', `/api/v1/keys/validate?service=${s.identifier}&key=${key}&hwid=pc-x`);
    expect(v.body.data).toMatchObject({ valid: false, code: 'KEY_BANNED', message: 'This key is banned: spam' });
  });
});

describe('moving in (§16.4, §7.4)', () => {
  it('imports a Luarmor export with its keys, HWIDs, Discord links and bans, and shows them back as the same records', async () => {
    const s = await newService();
    const end = sec(t().clock.now + 3 * DAY_MS);
    const exported = [
      {
        user_key: 'LuarmorUserKey000000000000000001',
        identifier: 'hw-imp',
        discord_id: CHAT_ID,
        note: 'n',
        auth_expire: -1,
        banned: 0,
        total_executions: 4,
        total_resets: 2,
      },
      { user_key: 'LuarmorUserKey000000000000000002', identifier: '', banned: 1, ban_reason: 'leak', ban_expire: end, status: 'banned' },
    ];
    const res = await call(t().app, 'POST', '/api/v1/keys/api/keys/import', {
      key: s.serviceKey,
      body: { format: 'luarmor', data: exported },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(await userRecord(s, exported[0]!.user_key)).toMatchObject({
      identifier: 'hw-imp',
      discord_id: CHAT_ID,
      note: 'n',
      auth_expire: -1,
      total_executions: 4,
      total_resets: 2,
      status: 'active',
    });
    expect(await userRecord(s, exported[1]!.user_key)).toMatchObject({ status: 'banned', banned: 1, ban_reason: 'leak', ban_expire: end });
  });
});
