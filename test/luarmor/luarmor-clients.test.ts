// Contract §23: the public Luarmor clients, changed only in base address, key and project id, work unchanged. Each test
// sends the bytes one of them sends (raw-client.ts says whose) and checks what that client parses.
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import type { SeededService } from '../helpers/seed.ts';
import { DAY_MS, redeem, serviceSeeder } from '../helpers/records.ts';
import { addMember } from '../teams/team-helpers.ts';
import { raw } from './raw-client.ts';

const t = useTestApp();
const newService = serviceSeeder(t);
const CHAT_ID = '123456789012345678';
const sec = (ms: number) => Math.floor(ms / 1000);
const users = (s: SeededService) => `/v3/projects/${s.identifier}/users`;

async function record(s: SeededService, key: string) {
  const res = await raw(t().app, 'GET', `${users(s)}?user_key=${key}`, { key: s.serviceKey });
  expect(res.status, res.text).toBe(200);
  return res.body.users[0];
}

describe('null is absent (§23)', () => {
  it("creates a user from luarmor-rs's body, every unset option null", async () => {
    const s = await newService();
    const body = '{"identifier":null,"auth_expire":null,"note":null,"discord_id":null,"key_days":null}';
    const res = await raw(t().app, 'POST', users(s), { key: s.serviceKey, body });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ success: true, message: 'Success!', user_key: expect.stringMatching(/^[A-Za-z0-9]{32}$/) });
    expect(await record(s, res.body.user_key)).toMatchObject({
      identifier: '',
      discord_id: '',
      note: '',
      auth_expire: -1,
      status: 'reset',
    });
  });

  it('edits, resets, links and blacklists with the nulls a bot writes (`value || null`), changing only what was given', async () => {
    const s = await newService();
    const key = (await raw(t().app, 'POST', users(s), { key: s.serviceKey, body: '{"identifier":"pc-1","note":"first"}' })).body.user_key;
    const patch = `{"user_key":"${key}","identifier":null,"auth_expire":null,"note":"second","discord_id":null}`;
    expect((await raw(t().app, 'PATCH', users(s), { key: s.serviceKey, body: patch })).body).toEqual({
      success: true,
      message: 'User has been edited successfully!',
    });
    expect(await record(s, key)).toMatchObject({ identifier: 'pc-1', note: 'second', auth_expire: -1 });
    const reset = await raw(t().app, 'POST', `${users(s)}/resethwid`, { key: s.serviceKey, body: `{"user_key":"${key}","force":null}` });
    expect(reset.body).toEqual({ success: true, message: 'Successfully reset!' });
    const link = await raw(t().app, 'POST', `${users(s)}/linkdiscord`, {
      key: s.serviceKey,
      body: `{"user_key":"${key}","discord_id":"${CHAT_ID}","force":null}`,
    });
    expect(link.body).toEqual({ success: true, message: 'Discord ID successfully linked!' });
    const ban = await raw(t().app, 'POST', `${users(s)}/blacklist`, {
      key: s.serviceKey,
      body: `{"user_key":"${key}","ban_reason":null,"ban_expire":null}`,
    });
    expect(ban.body).toEqual({ success: true, message: 'User has been blacklisted!', unban_token: expect.any(String) });
    expect(await record(s, key)).toMatchObject({ status: 'banned', ban_reason: '', ban_expire: -1, discord_id: CHAT_ID });
  });

  it('lets a support member send a null auth_expire: an absent field asks for no more than support work', async () => {
    const s = await newService();
    const support = await addMember(t().app, t().ctx, s, 'support');
    const key = (await raw(t().app, 'POST', users(s), { key: s.serviceKey, body: '{}' })).body.user_key;
    const res = await raw(t().app, 'PATCH', users(s), {
      key: support.accountKey,
      body: `{"user_key":"${key}","note":"vip","auth_expire":null}`,
    });
    expect(res.status, res.text).toBe(200);
  });

  it("updates a script from luarmor-rs's body (project and script ids in it, unset options null)", async () => {
    const s = await newService();
    const created = await raw(t().app, 'POST', `/v3/projects/${s.identifier}/scripts`, {
      key: s.serviceKey,
      body: '{"name":"main","script":"print(1)","ffa":null,"silent":null,"heartbeat":null}',
    });
    expect(created.status, created.text).toBe(200);
    expect(created.body).toMatchObject({ ffa: false, silent: false, heartbeat: false });
    const id = created.body.script_id;
    const body = `{"project_id":"${s.identifier}","script_id":"${id}","script":"print(2)","silent":null,"ffa":null,"heartbeat":true,"lightning":null}`;
    const res = await raw(t().app, 'PUT', `/v3/projects/${s.identifier}/scripts/${id}`, { key: s.serviceKey, body });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ success: true, message: 'Script updated!', script_version: '2' });
  });

  it('reads GET /users with a JSON body of nulls (luarmor-rs) and empty query parameters as no filter', async () => {
    const s = await newService();
    const a = (await raw(t().app, 'POST', users(s), { key: s.serviceKey, body: '{}' })).body.user_key;
    t().clock.advance(1000);
    const b = (await raw(t().app, 'POST', users(s), { key: s.serviceKey, body: '{}' })).body.user_key;
    const res = await raw(t().app, 'GET', `${users(s)}?user_key=&discord_id=&identifier=&search=&from=&until=`, {
      key: s.serviceKey,
      body: '{"user_key":null,"discord_id":null,"identifier":null,"search":null,"from":null,"until":null}',
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.users.map((u: { user_key: string }) => u.user_key)).toEqual([a, b]);
  });
});

describe('project id and scripts in /details (§23)', () => {
  it('lets the deploy action find its project by identifier, with the key only in the path, and update the script', async () => {
    const s = await newService();
    const created = await raw(t().app, 'POST', `/v3/projects/${s.identifier}/scripts`, {
      key: s.serviceKey,
      body: '{"name":"game","script":"print(1)","heartbeat":true}',
    });
    const scriptId = created.body.script_id;
    // getKeyDetails(apiKey): a bare fetch of the path, no header.
    const details = await raw(t().app, 'GET', `/v3/keys/${s.serviceKey}/details`);
    expect(details.status, details.text).toBe(200);
    const project = details.body.projects.find((p: { id: string }) => p.id === s.identifier);
    expect(project).toBeDefined();
    const script = project.scripts.find((x: { script_id: string }) => x.script_id === scriptId);
    expect(script).toEqual({
      script_name: 'game',
      script_id: scriptId,
      script_version: '1',
      ffa: false,
      silent: false,
      heartbeat: true,
      enabled: true,
    });
    // The action's PUT: the current options back, its own flags beside them, `lightning` undefined (left out).
    const put = JSON.stringify({
      ffa: script.ffa,
      heartbeat: script.heartbeat,
      is_v4_loader: true,
      script: 'print(2)',
      silent: script.silent,
    });
    const res = await raw(t().app, 'PUT', `/v3/projects/${project.id}/scripts/${scriptId}`, {
      key: s.serviceKey,
      body: put,
      headers: { 'x-turnstile-token': 'solved' },
    });
    expect(res.body).toEqual({ success: true, message: 'Script updated!', script_version: '2' });
  });

  it('still takes the UUID in paths', async () => {
    const s = await newService();
    expect((await raw(t().app, 'GET', `/v3/projects/${s.id}/users`, { key: s.serviceKey })).status).toBe(200);
  });
});

describe('stats.default (§23)', () => {
  it('answers stats.default beside the counts, with and without noUsers (both SDKs require it)', async () => {
    const s = await newService();
    await raw(t().app, 'POST', users(s), { key: s.serviceKey, body: '{}' });
    const withUsers = await raw(t().app, 'GET', `/v3/keys/${s.serviceKey}/stats?noUsers=false`, { key: s.serviceKey });
    expect(withUsers.status, withUsers.text).toBe(200);
    expect(withUsers.body.stats).toMatchObject({ scripts: 0, users: 1, obfuscations: 0, attacks_blocked: 0 });
    expect(withUsers.body.stats.default).toEqual({ scripts: 0, users: 1, obfuscations: 0 });
    const noUsers = await raw(t().app, 'GET', `/v3/keys/${s.serviceKey}/stats?noUsers=true`, { key: s.serviceKey });
    expect(noUsers.body.stats.users).toBeUndefined();
    expect(noUsers.body.stats.default).toEqual({ scripts: 0, users: expect.any(Number), obfuscations: 0 });
  });
});

describe('Discord ids and messages (§23)', () => {
  it('answers 400 Invalid discord_id for anything but 17–20 digits on create, PATCH and linkdiscord', async () => {
    const s = await newService();
    const key = (await raw(t().app, 'POST', users(s), { key: s.serviceKey, body: '{}' })).body.user_key;
    for (const bad of ['"12345"', '"123456789012345678901"', '"12345678901234567a"', '123456789012345678']) {
      const attempts = [
        raw(t().app, 'POST', users(s), { key: s.serviceKey, body: `{"discord_id":${bad}}` }),
        raw(t().app, 'PATCH', users(s), { key: s.serviceKey, body: `{"user_key":"${key}","discord_id":${bad}}` }),
        raw(t().app, 'POST', `${users(s)}/linkdiscord`, { key: s.serviceKey, body: `{"user_key":"${key}","discord_id":${bad}}` }),
      ];
      for (const res of await Promise.all(attempts)) expect(res.body, bad).toEqual({ success: false, message: 'Invalid discord_id' });
    }
    const ok = await raw(t().app, 'POST', users(s), { key: s.serviceKey, body: '{"discord_id":"12345678901234567"}' });
    expect(ok.status, ok.text).toBe(200);
  });

  it('names the field and what it wants in one sentence', async () => {
    const s = await newService();
    const cases: Array<[string, string]> = [
      ['{"key_days":"30"}', 'key_days must be a whole number of days from 1 to 3650'],
      ['{"note":5}', 'note must be text of at most 256 characters (newlines and tabs allowed, no other control characters)'],
      ['{"auth_expire":"soon"}', 'auth_expire must be a Unix time in seconds (a whole number), or -1 for lifetime'],
      ['{"identifier":"pc\\u0001"}', "identifier must be the buyer's HWID as text: up to 256 printable characters"],
    ];
    for (const [body, message] of cases) {
      expect((await raw(t().app, 'POST', users(s), { key: s.serviceKey, body })).body, body).toEqual({ success: false, message });
    }
    const reset = await raw(t().app, 'POST', `${users(s)}/resethwid`, { key: s.serviceKey, body: '{"user_key":null}' });
    expect(reset.body).toEqual({ success: false, message: 'user_key is required' });
    const force = await raw(t().app, 'POST', `${users(s)}/resethwid`, { key: s.serviceKey, body: '{"user_key":"abc","force":"yes"}' });
    expect(force.body).toEqual({ success: false, message: 'force must be true or false' });
  });
});

describe('time from first use (§23)', () => {
  it('turns auth_expire alone into key_days rounded up, and keeps it a fixed end with a Discord id', async () => {
    const s = await newService();
    const end = sec(t().clock.now + 2 * DAY_MS + 3_600_000);
    const alone = (await raw(t().app, 'POST', users(s), { key: s.serviceKey, body: `{"auth_expire":${end}}` })).body.user_key;
    expect(await record(s, alone)).toMatchObject({ auth_expire: -1, key_days: 3, status: 'reset' });
    // Its time starts at first use: three days from then.
    t().clock.advance(5 * DAY_MS);
    await redeem(t().app, s.identifier, alone, 'pc-late');
    expect(await record(s, alone)).toMatchObject({ auth_expire: sec(t().clock.now + 3 * DAY_MS), status: 'active' });
    const end2 = sec(t().clock.now + DAY_MS);
    const claimed = await raw(t().app, 'POST', users(s), { key: s.serviceKey, body: `{"auth_expire":${end2},"discord_id":"${CHAT_ID}"}` });
    expect(await record(s, claimed.body.user_key)).toMatchObject({ auth_expire: end2, discord_id: CHAT_ID });
    expect((await record(s, claimed.body.user_key)).key_days).toBeUndefined();
  });

  it('makes any key lifetime with PATCH auth_expire -1, a key_days key too', async () => {
    const s = await newService();
    const timed = (await raw(t().app, 'POST', users(s), { key: s.serviceKey, body: '{"key_days":30}' })).body.user_key;
    const dated = (
      await raw(t().app, 'POST', users(s), {
        key: s.serviceKey,
        body: `{"auth_expire":${sec(t().clock.now + DAY_MS)},"discord_id":"${CHAT_ID}"}`,
      })
    ).body.user_key;
    for (const key of [timed, dated]) {
      const res = await raw(t().app, 'PATCH', users(s), { key: s.serviceKey, body: `{"user_key":"${key}","auth_expire":-1}` });
      expect(res.body, key).toEqual({ success: true, message: 'User has been edited successfully!' });
      const user = await record(s, key);
      expect(user.auth_expire).toBe(-1);
      expect(user.key_days).toBeUndefined();
    }
    t().clock.advance(400 * DAY_MS);
    await redeem(t().app, s.identifier, timed, 'pc-life');
    expect(await record(s, timed)).toMatchObject({ auth_expire: -1, status: 'active' });
  });
});
