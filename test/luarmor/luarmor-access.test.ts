// Contract §16.1, §16.2, §20: who may call the Luarmor-compatible API, the status and key routes, scripts, limits and logs.
import { describe, expect, it } from 'vitest';
import { startTestApp, useTestApp } from '../helpers/app.ts';
import { call, seedService, type SeededService } from '../helpers/seed.ts';
import { serviceSeeder } from '../helpers/records.ts';
import { redactUrl } from '../../src/lib/redact.ts';
import { LuarmorClient } from './luarmor-client.ts';
import { addMember } from '../teams/team-helpers.ts';

const t = useTestApp();
const newService = serviceSeeder(t);
const client = (key: string | null, auth?: (key: string) => Record<string, string>) => new LuarmorClient(() => t().app, key, { auth });

async function setPermissions(s: SeededService, body: Record<string, boolean>) {
  const res = await call(t().app, 'PATCH', `/api/v1/services/${s.id}/permissions`, { key: s.account.accountKey, body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

describe('GET /luarmor/status', () => {
  it('answers exactly as Luarmor, without a key', async () => {
    const res = await client(null).status();
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      version: 'v3',
      active: true,
      message: 'API is up and working!',
      warning: false,
      warning_message: 'No warning',
    });
  });
});

describe('authentication (§16.1)', () => {
  it('refuses a missing or unknown key with 403 Wrong API key', async () => {
    const s = await newService();
    for (const key of [null, 'kws_unknownunknownunknownunknownunknownunkn', 'garbage']) {
      const res = await client(key).getUsers(s.identifier);
      expect(res).toMatchObject({ status: 403, body: { success: false, message: 'Wrong API key' } });
    }
  });

  it('refuses an unknown key in the path of the key routes, and names an unknown project on the unban route', async () => {
    const unknown = 'kw_unknownunknownunknownunknownunknownunkn';
    expect(await client(unknown).keyDetails()).toMatchObject({ status: 403, body: { success: false, message: 'Wrong API key' } });
    expect(await client(unknown).keyStats()).toMatchObject({ status: 403, body: { success: false, message: 'Wrong API key' } });
    expect(await client(null).unban('no-such-project', 'A'.repeat(32))).toMatchObject({
      status: 404,
      body: { success: false, message: 'Project not found!' },
    });
  });

  it('takes the key raw, as Bearer, or in X-API-Key', async () => {
    const s = await newService();
    for (const auth of [undefined, (k: string) => ({ authorization: `Bearer ${k}` }), (k: string) => ({ 'x-api-key': k })]) {
      expect((await client(s.serviceKey, auth).getUsers(s.identifier)).status).toBe(200);
    }
  });

  it("keeps a service key to its own project: another service's is Project not found!", async () => {
    const s = await newService();
    const other = await newService();
    expect(await client(s.serviceKey).getUsers(other.identifier)).toMatchObject({
      status: 404,
      body: { success: false, message: 'Project not found!' },
    });
    expect(await client(s.serviceKey).createUser(other.id)).toMatchObject({ status: 404, body: { message: 'Project not found!' } });
  });

  it("lets an account key use every service of its account, and no other account's", async () => {
    const s = await newService();
    const second = await seedService(t().ctx, s.account);
    const stranger = await seedService(t().ctx);
    expect((await client(s.account.accountKey).createUser(s.identifier)).status).toBe(200);
    expect((await client(s.account.accountKey).createUser(second.id)).status).toBe(200);
    expect(await client(s.account.accountKey).getUsers(stranger.identifier)).toMatchObject({
      status: 404,
      body: { message: 'Project not found!' },
    });
  });

  it('applies the flags: allowManageKeys for user mutations, allowVss for scripts', async () => {
    const s = await newService();
    const key = (await client(s.serviceKey).createUser(s.identifier)).body.user_key;
    await setPermissions(s, { allowManageKeys: false, allowVss: false });
    const denied = (flag: string) => ({
      status: 403,
      body: { success: false, message: `This API key is not permitted for this action (${flag})` },
    });
    expect(await client(s.serviceKey).createUser(s.identifier)).toMatchObject(denied('allowManageKeys'));
    expect(await client(s.serviceKey).blacklist(s.identifier, key)).toMatchObject(denied('allowManageKeys'));
    expect(await client(s.serviceKey).resetHwid(s.identifier, key)).toMatchObject(denied('allowManageKeys'));
    expect(await client(s.serviceKey).createScript(s.identifier, { name: 'x', script: 'print(1)' })).toMatchObject(denied('allowVss'));
    // Reading stays open; the owner's account key is not held to the flags.
    expect((await client(s.serviceKey).getUsers(s.identifier)).status).toBe(200);
    expect((await client(s.account.accountKey).createUser(s.identifier)).status).toBe(200);
    await setPermissions(s, { allowManageKeys: true, allowVss: true });
  });

  it('applies the IP allowlist to a service key', async () => {
    const s = await newService();
    await call(t().app, 'PUT', `/api/v1/services/${s.id}/ip-allowlist`, { key: s.account.accountKey, body: { entries: ['10.0.0.1'] } });
    const res = await new LuarmorClient(() => t().app, s.serviceKey, { remoteAddress: '10.0.0.2' }).getUsers(s.identifier);
    expect(res).toMatchObject({ status: 403, body: { success: false } });
    expect((await new LuarmorClient(() => t().app, s.serviceKey, { remoteAddress: '10.0.0.1' }).getUsers(s.identifier)).status).toBe(200);
  });
});

describe('key details and stats (§16.2)', () => {
  it('lists the account’s projects with their scripts for an account key, one for a service key', async () => {
    const s = await newService();
    const second = await seedService(t().ctx, s.account);
    const script = await client(s.serviceKey).createScript(s.identifier, { name: 'main script', script: 'print(1)', ffa: true });
    const details = await client(s.account.accountKey).keyDetails();
    expect(details.status, JSON.stringify(details.body)).toBe(200);
    expect(details.body).toMatchObject({
      success: true,
      message: 'Success!',
      email: '',
      discord_id: '',
      expires_at: -1,
      plan: 'r',
      enabled: 1,
    });
    expect(typeof details.body.registered_at).toBe('number');
    const ids = details.body.projects.map((p: { id: string }) => p.id);
    expect(ids).toEqual(expect.arrayContaining([s.identifier, second.identifier]));
    const own = await client(s.serviceKey).keyDetails();
    expect(own.body.projects).toEqual([
      {
        platform: 'roblox',
        id: s.identifier,
        name: expect.any(String),
        settings: { reset_hwid_cooldown: 24 },
        scripts: [
          {
            script_name: 'main-script',
            script_id: script.body.script_id,
            script_version: '1',
            ffa: true,
            silent: false,
            heartbeat: false,
            enabled: true,
          },
        ],
      },
    ]);
  });

  it('answers 24 hourly executions and the counts; noUsers leaves users out', async () => {
    const s = await newService();
    await client(s.serviceKey).createUser(s.identifier);
    const stats = await client(s.serviceKey).keyStats();
    expect(stats.status, JSON.stringify(stats.body)).toBe(200);
    expect(stats.body.execution_data.frequency).toBe(3600);
    expect(stats.body.execution_data.executions).toHaveLength(24);
    expect(stats.body.stats).toMatchObject({ scripts: 0, users: 1, obfuscations: 0, attacks_blocked: 0 });
    expect(stats.body.stats.reset_at % 3600).toBe(0);
    expect((await client(s.serviceKey).keyStats(true)).body.stats.users).toBeUndefined();
  });

  it('never logs the key it carries in the path', () => {
    const key = 'kws_abcdefghijklmnopqrstuvwxyz0123456789ABCD';
    for (const url of [
      `/luarmor/v3/keys/${key}/details`,
      `/luarmor//v3//keys/${key}/stats?noUsers=true`,
      `/luarmor/v3/keys/${encodeURIComponent(key)}/x`,
    ]) {
      expect(redactUrl(url)).not.toContain('abcdefghij');
    }
  });
});

describe("a member's account key (§16.1, §17)", () => {
  it('reaches the services it is a member of with its role: support reads and bans, but may not create users or scripts', async () => {
    const s = await newService();
    const support = await addMember(t().app, t().ctx, s, 'support');
    const owner = client(s.serviceKey);
    const created = await owner.createUser(s.identifier, { note: 'buyer' });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const member = client(support.accountKey);
    const details = await member.keyDetails();
    expect(details.status, JSON.stringify(details.body)).toBe(200);
    expect(details.body.projects.map((p: { id: string }) => p.id)).toEqual([s.identifier]);
    const users = await member.getUsers(s.identifier);
    expect(users.body.users.map((u: { user_key: string }) => u.user_key)).toEqual([created.body.user_key]);
    expect((await member.blacklist(s.identifier, created.body.user_key, { ban_reason: 'chargeback' })).status).toBe(200);
    const refused = await member.createUser(s.identifier, {});
    expect(refused.status).toBe(403);
    expect(refused.body.success).toBe(false);
    expect((await member.createScript(s.identifier, { name: 'x', script: 'print(1)' })).status).toBe(403);
    // A user edit is support work, unless it moves the key's expiry (keys.manage), whatever else the body holds.
    const key = created.body.user_key;
    expect((await member.updateUser(s.identifier, { user_key: key, note: 'refunded' })).status).toBe(200);
    const tomorrow = Math.floor(Date.now() / 1000) + 86_400;
    const terms = await member.updateUser(s.identifier, { user_key: key, auth_expire: tomorrow });
    expect(terms.status, JSON.stringify(terms.body)).toBe(403);
    expect(terms.body.success).toBe(false);
    const kept = await owner.getUsers(s.identifier);
    expect(kept.body.users[0]).toMatchObject({ note: 'refunded', auth_expire: -1 });
    // The stats count keys over whole services: support's role may read them, a reseller's may not (§17: no analytics).
    expect((await member.keyStats()).body.stats.users).toBe(1);
    const reseller = await addMember(t().app, t().ctx, s, 'reseller');
    const resellerStats = await client(reseller.accountKey).keyStats();
    expect(resellerStats.status).toBe(200);
    expect(resellerStats.body.stats).toMatchObject({ users: 0, scripts: 0 });
    expect((await client(reseller.accountKey).keyDetails()).body.projects.map((p: { id: string }) => p.id)).toEqual([s.identifier]);
    // A stranger's account key finds no such project.
    const stranger = await addMember(t().app, t().ctx, await newService(), 'manager');
    expect((await client(stranger.accountKey).getUsers(s.identifier)).status).toBe(404);
  });
});

describe('scripts (§16.2, §16.3)', () => {
  it('creates with ffa, silent and heartbeat and answers the buyer snippet; an update makes a new version', async () => {
    const s = await newService();
    const created = await client(s.serviceKey).createScript(s.identifier, {
      name: 'hub',
      script: 'print("v1")',
      silent: true,
      heartbeat: true,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body).toEqual({
      success: true,
      message: 'Script created!',
      script_id: expect.any(String),
      script_name: 'hub',
      loader_script: `script_key = "KEY_HERE"\nloadstring(game:HttpGet("http://keyward.test/api/v1/vss/loader/${created.body.script_id}"))()`,
      ffa: false,
      silent: true,
      heartbeat: true,
    });
    const updated = await client(s.serviceKey).updateScript(s.identifier, created.body.script_id, { script: 'print("v2")', ffa: true });
    expect(updated.body).toEqual({ success: true, message: 'Script updated!', script_version: '2' });
    const record = await call(t().app, 'GET', '/api/v1/vss/api/scripts', { key: s.serviceKey });
    expect(record.body.data.items[0]).toMatchObject({ name: 'hub', ffa: true, silent: true, heartbeat: true });
  });
});

describe('limits (§20)', () => {
  it('shares the API-key budget with Keyward’s own routes, and an unknown unban token spends the failed-auth budget', async () => {
    const limited = await startTestApp({ RATE_LIMIT_API_PER_MINUTE: '3', RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: '2' });
    try {
      const s = await seedService(limited.ctx);
      const lua = new LuarmorClient(() => limited.app, s.serviceKey);
      expect((await call(limited.app, 'GET', '/api/v1/keys/api/service/info', { key: s.serviceKey })).status).toBe(200);
      expect((await lua.getUsers(s.identifier)).status).toBe(200);
      expect((await lua.getUsers(s.identifier)).status).toBe(200);
      const over = await lua.getUsers(s.identifier);
      expect(over.status).toBe(429);
      expect(over.body.success).toBe(false);
      expect(over.headers['retry-after']).toBeDefined();

      const anonymous = new LuarmorClient(() => limited.app, null, { remoteAddress: '10.9.9.9' });
      expect((await anonymous.unban(s.identifier, 'A'.repeat(32))).status).toBe(404);
      expect((await anonymous.unban(s.identifier, 'B'.repeat(32))).status).toBe(404);
      // The address's budget is spent: its next authenticated call is refused before any key is looked up.
      const spent = await call(limited.app, 'GET', '/api/v1/keys/api/service/info', { key: s.serviceKey, remoteAddress: '10.9.9.9' });
      expect(spent.status).toBe(429);
    } finally {
      await limited.app.close();
      await limited.database.drop();
    }
  });
});
