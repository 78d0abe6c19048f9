import { beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { call, generateKeys, seedAccount } from '../helpers/seed.ts';
import { asMember } from '../teams/team-helpers.ts';
import type { FakeDiscord } from './fake-discord.ts';
import { APP, BOT_TOKEN, buyerId, deliver, GUILD, interact, LOG_CHANNEL, useConsole, slash, type Console } from './console-helpers.ts';
import { COMMAND_NAMES } from '../../src/modules/chat/chat-commands.ts';

// Contract §24.1–24.3: setup by the server (sync, live checklist, panel) and an account's linked Discord user.

const setup = useConsole();
let discord: FakeDiscord;
let t: TestApp;
let c: Console;
beforeAll(() => void ({ t, c, discord } = setup));

const owner = (method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown) =>
  call(t.app, method, `/api/v1${path}`, { key: c.s.serviceKey, body });

describe('commands sync', () => {
  it('registers every command in the bound server with the bot token', async () => {
    const res = await owner('POST', '/keys/api/chat/commands/sync');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.synced).toEqual(COMMAND_NAMES);
    expect(res.body.data.synced).toEqual(expect.arrayContaining(['whitelist', 'mass-whitelist', 'redeem']));
    const put = discord.calls.find((x) => x.method === 'PUT' && x.path === `/api/v10/applications/${APP}/guilds/${GUILD}/commands`);
    expect(put?.headers.authorization).toBe(`Bot ${BOT_TOKEN}`);
    expect((put?.body as Array<{ name: string }>).map((x) => x.name)).toEqual(COMMAND_NAMES);
  });

  it('syncs by itself when a setting it needs is saved, and a Discord outage does not fail the save', async () => {
    discord.mode = '500';
    const saved = await owner('PUT', '/keys/api/settings', { chatApplicationId: APP });
    expect(saved.status).toBe(200);
    expect(discord.paths('PUT').some((p) => p.includes('/commands'))).toBe(true);
    discord.mode = 'ok';
    // The refusal is kept for the checklist until a setup call goes through.
    expect((await owner('GET', '/keys/api/chat/status')).body.data.lastError).toMatch(/HTTP 500/);
    expect((await owner('POST', '/keys/api/chat/commands/sync')).status).toBe(200);
    expect((await owner('GET', '/keys/api/chat/status')).body.data.lastError).toBeNull();
    discord.mode = '429';
    const refused = await owner('POST', '/keys/api/chat/commands/sync');
    expect(refused.status).toBe(502);
    expect(refused.body.error).toMatch(/slow down/);
  });

  it('is for owners and managers only', async () => {
    expect((await asMember(t.app, c.accounts.support, c.s, 'POST', '/keys/api/chat/commands/sync')).body.code).toBe('ROLE_FORBIDDEN');
    expect((await asMember(t.app, c.accounts.manager, c.s, 'POST', '/keys/api/chat/commands/sync')).status).toBe(200);
  });
});

describe('status', () => {
  it('reads the checklist live from Discord', async () => {
    await interact(t, c, { id: '1', type: 1 });
    const res = await owner('GET', '/keys/api/chat/status');
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ botInServer: true, canManageRoles: true, canPostIn: { [LOG_CHANNEL]: true } });
    expect(res.body.data.interactionsVerified).not.toBeNull();
    // The settings saved in the setup synced the commands by themselves.
    expect(Date.parse(res.body.data.commandsSyncedAt)).not.toBeNaN();
    expect(discord.paths('GET')).toContain('GET /api/v10/users/@me');
  });

  it('says what is missing: the bot not in the server, or without Manage Roles', async () => {
    discord.botInGuild = false;
    const out = await owner('GET', '/keys/api/chat/status');
    expect(out.body.data).toMatchObject({ botInServer: false, canManageRoles: false });
    expect(out.body.data.lastError).toMatch(/not in your Discord server/);
    discord.botInGuild = true;
    discord.botPermissions = String(1n << 10n);
    const weak = await owner('GET', '/keys/api/chat/status');
    expect(weak.body.data).toMatchObject({ botInServer: true, canManageRoles: false, canPostIn: { [LOG_CHANNEL]: false } });
  });

  it('answers while Discord hangs, with the reason', async () => {
    discord.mode = 'hang';
    const res = await owner('GET', '/keys/api/chat/status');
    expect(res.status).toBe(200);
    expect(res.body.data.lastError).toMatch(/did not answer/);
    discord.release();
  });
});

describe('buyer panel', () => {
  it('posts an embed with five buttons and answers the message id; each post is a new message', async () => {
    const res = await owner('POST', '/keys/api/chat/panel', { channelId: LOG_CHANNEL, title: 'Shop', color: 255 });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const again = await owner('POST', '/keys/api/chat/panel', { channelId: LOG_CHANNEL });
    expect(again.body.data.messageId).not.toBe(res.body.data.messageId);
    const post = discord.calls.find((x) => x.method === 'POST' && x.path === `/api/v10/channels/${LOG_CHANNEL}/messages`);
    const body = post?.body as {
      embeds: Array<{ title: string; color: number }>;
      components: Array<{ components: Array<{ custom_id: string }> }>;
    };
    expect(body.embeds[0]).toMatchObject({ title: 'Shop', color: 255 });
    expect(body.components[0]!.components.map((b) => b.custom_id)).toEqual(['kw:redeem', 'kw:script', 'kw:reset', 'kw:role', 'kw:me']);
  });

  it('is posted by a manager, and refused to a reseller', async () => {
    const posted = await asMember(t.app, c.accounts.manager, c.s, 'POST', '/keys/api/chat/panel', { channelId: LOG_CHANNEL });
    expect(posted.status, JSON.stringify(posted.body)).toBe(201);
    expect(posted.body.data.messageId).toMatch(/^\d+$/);
    const refused = await asMember(t.app, c.accounts.reseller, c.s, 'POST', '/keys/api/chat/panel', { channelId: LOG_CHANNEL });
    expect(refused.status).toBe(403);
    expect(discord.paths('POST').filter((p) => p.includes(`/channels/${LOG_CHANNEL}/messages`))).toHaveLength(1);
  });

  it('names a bad channel id, and is refused to support', async () => {
    const bad = await owner('POST', '/keys/api/chat/panel', { channelId: '12' });
    expect(bad.status).toBe(400);
    expect(bad.body.field).toBe('channelId');
    expect((await asMember(t.app, c.accounts.support, c.s, 'POST', '/keys/api/chat/panel', { channelId: LOG_CHANNEL })).status).toBe(403);
  });
});

describe('an account links its Discord user', () => {
  it('reads it back, refuses a malformed id and one another account holds, and unlinks', async () => {
    const account = await seedAccount(t.ctx);
    const id = buyerId();
    const set = await call(t.app, 'PATCH', '/api/v1/account', { key: account.accountKey, body: { discordUserId: id } });
    expect(set.body.data.discordUserId).toBe(id);
    expect((await call(t.app, 'GET', '/api/v1/account', { key: account.accountKey })).body.data.discordUserId).toBe(id);
    const bad = await call(t.app, 'PATCH', '/api/v1/account', { key: account.accountKey, body: { discordUserId: '123' } });
    expect(bad.status).toBe(400);
    expect(bad.body.field).toBe('discordUserId');
    const taken = await call(t.app, 'PATCH', '/api/v1/account', { key: account.accountKey, body: { discordUserId: c.discordIds.owner } });
    expect(taken.status).toBe(409);
    const cleared = await call(t.app, 'PATCH', '/api/v1/account', { key: account.accountKey, body: { discordUserId: null } });
    expect(cleared.body.data.discordUserId).toBeNull();
  });

  it('a removed member is a stranger on the next command', async () => {
    const res = await call(t.app, 'DELETE', `/api/v1/services/${c.s.id}/members/${c.accounts.support.id}`, { key: c.s.account.accountKey });
    expect(res.status).toBe(200);
    const answer = await interact(t, c, slash(c.discordIds.support, 'user-info', [{ name: 'user', type: 6, value: buyerId() }]));
    expect(answer.data?.content).toBe("You are not on this service's team.");
  });
});

describe('notices', () => {
  it('tells the staff channel once when a key is refused SESSION_LIMIT more than 3 times in an hour', async () => {
    const [key] = await generateKeys(t.app, c.s.serviceKey, { expirationType: 'lifetime', maxSessions: 1 });
    const open = (hwid: string) => call(t.app, 'POST', `/api/v1/public/sessions/${c.s.identifier}`, { body: { key, hwid } });
    expect((await open('pc-1')).status).toBe(201);
    const refusals = [];
    for (let i = 0; i < 5; i += 1) refusals.push((await open('pc-1')).status);
    expect(refusals).toEqual([409, 409, 409, 409, 409]);
    await deliver(t);
    const notices = discord.calls.filter((x) => JSON.stringify(x.body).includes('too many devices'));
    expect(notices).toHaveLength(1);
    expect(notices[0]!.path).toBe(`/api/v10/channels/${LOG_CHANNEL}/messages`);
  });
});
