import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { anotherInstance, startTestApp, type TestApp } from '../helpers/app.ts';
import { call, generateKeys, seedService, type SeededService } from '../helpers/seed.ts';
import { runOutboxPass } from '../../src/modules/webhook/outbox.service.ts';
import { discordRoleSender, sweepChatRoles } from '../../src/modules/discord-role/discord-role.service.ts';
import type { AppContext } from '../../src/context.ts';
import { FakePlatform as FakeReceiver } from '../webhook/fake-platform.ts';

// Contract §12.3 against a fake Discord API on loopback (DISCORD_API_URL).
const GUILD = '111111111111111111';
const ROLE = '222222222222222222';
const USER = '333333333333333333';
const TOKEN = 'MTAx.bot-token_for.tests-0123456789';

let discord: FakeReceiver;
let t: TestApp;
beforeAll(async () => {
  discord = await new FakeReceiver().start();
  t = await startTestApp({ DISCORD_API_URL: discord.origin, WEBHOOK_WORKER_INTERVAL_MS: '0' });
});
afterAll(async () => {
  await t.app.close();
  await t.database.drop();
  await discord.stop();
});

let s: SeededService;
beforeEach(async () => {
  discord.reset();
  s = await seedService(t.ctx);
  const res = await call(t.app, 'PUT', '/api/v1/keys/api/settings', { key: s.serviceKey, body: { chatBotToken: TOKEN, chatRoleId: ROLE } });
  expect(res.status).toBe(200);
  await t.ctx.db.updateTable('services').set({ chatGuildId: GUILD, chatGuildName: 'Shop' }).where('id', '=', s.id).execute();
  t.ctx.services.forget({ id: s.id, identifier: s.identifier });
});

const rolePath = `/api/v10/guilds/${GUILD}/members/${USER}/roles/${ROLE}`;

/** Runs delivery passes (and waits for any a change kicked) until nothing is due: what the worker does on its ticks. */
async function deliver(ctx: AppContext = t.ctx) {
  for (;;) {
    await ctx.jobs.settled();
    const { claimed } = await runOutboxPass(ctx, discordRoleSender);
    if (claimed === 0) break;
  }
  await ctx.jobs.settled();
}

async function redeemedKey(body: Record<string, unknown> = { expirationType: 'lifetime' }, hwid = 'pc-1') {
  const [key] = await generateKeys(t.app, s.serviceKey, { chatId: USER, ...body });
  const v = await call(t.app, 'POST', '/api/v1/keys/validate', { body: { service: s.id, key, hwid } });
  expect(v.body.data?.code ?? v.body.code).toBe('KEY_VALID');
  return key!;
}

const setStatus = (key: string, status: string) => call(t.app, 'PUT', '/api/v1/keys/api/key', { key: s.serviceKey, body: { key, status } });

const calls = () => discord.received.map((r) => `${r.method} ${r.path}`);

describe('Discord role settings', () => {
  it('stores the bot token sealed and reads it back as ****', async () => {
    const info = await call(t.app, 'GET', '/api/v1/keys/api/service/info', { key: s.serviceKey });
    expect(info.body.data.settings.chatBotToken).toBe('****');
    expect(info.body.data.settings.chatRoleId).toBe(ROLE);
    const row = await t.ctx.db.selectFrom('services').select(['chatBotTokenSealed']).where('id', '=', s.id).executeTakeFirstOrThrow();
    expect(row.chatBotTokenSealed).not.toContain(TOKEN);
    expect(t.ctx.sealer.open(row.chatBotTokenSealed!)).toBe(TOKEN);
    const cleared = await call(t.app, 'PUT', '/api/v1/keys/api/settings', { key: s.serviceKey, body: { chatBotToken: null } });
    expect(cleared.body.data.chatBotToken).toBeNull();
  });

  it.each([['12345'], ['1234567890123456789012'], ['abcdefabcdefabcdefa']])(
    'refuses role id %s with a 400 in words',
    async (chatRoleId) => {
      const res = await call(t.app, 'PUT', '/api/v1/keys/api/settings', { key: s.serviceKey, body: { chatRoleId } });
      expect(res.status).toBe(400);
      expect(res.body.field).toBe('chatRoleId');
      expect(res.body.error).toMatch(/17 to 20 digits/);
      const row = await t.ctx.db.selectFrom('services').select(['chatRoleId']).where('id', '=', s.id).executeTakeFirstOrThrow();
      expect(row.chatRoleId).toBe(ROLE);
    },
  );
});

describe('Discord buyer role', () => {
  it('grants the role once when a key with a chat id is redeemed', async () => {
    const key = await redeemedKey();
    await deliver();
    expect(calls()).toEqual([`PUT ${rolePath}`]);
    expect(discord.received[0]!.headers.authorization).toBe(`Bot ${TOKEN}`);
    // Validating again, another pass, the sweep: nothing more is sent.
    await call(t.app, 'POST', '/api/v1/keys/validate', { body: { service: s.id, key, hwid: 'pc-1' } });
    await sweepChatRoles(t.ctx);
    await deliver();
    expect(calls()).toEqual([`PUT ${rolePath}`]);
  });

  it('keeps the role while another key is valid and removes it when the last one is banned', async () => {
    const first = await redeemedKey();
    const second = await redeemedKey({ expirationType: 'lifetime' }, 'pc-2');
    await deliver();
    expect(calls()).toEqual([`PUT ${rolePath}`]);
    expect((await setStatus(first, 'banned')).status).toBe(200);
    await deliver();
    expect(calls()).toEqual([`PUT ${rolePath}`]);
    expect((await setStatus(second, 'banned')).status).toBe(200);
    await deliver();
    expect(calls()).toEqual([`PUT ${rolePath}`, `DELETE ${rolePath}`]);
    // Set active again: granted again.
    expect((await setStatus(second, 'active')).status).toBe(200);
    await deliver();
    expect(calls()).toEqual([`PUT ${rolePath}`, `DELETE ${rolePath}`, `PUT ${rolePath}`]);
  });

  it('removes the role when the key is deleted', async () => {
    const key = await redeemedKey();
    await deliver();
    expect((await call(t.app, 'DELETE', `/api/v1/keys/api/key?key=${key}`, { key: s.serviceKey })).status).toBe(200);
    await deliver();
    expect(calls()).toEqual([`PUT ${rolePath}`, `DELETE ${rolePath}`]);
  });

  it('removes the role after the key expires, noticed by the sweep', async () => {
    await redeemedKey({ expirationType: 'byDays', days: 1 });
    await deliver();
    expect(calls()).toEqual([`PUT ${rolePath}`]);
    await sweepChatRoles(t.ctx);
    await deliver();
    expect(calls()).toHaveLength(1);
    t.clock.advance(24 * 3_600_000 + 1);
    await sweepChatRoles(t.ctx);
    await deliver();
    expect(calls()).toEqual([`PUT ${rolePath}`, `DELETE ${rolePath}`]);
  });

  it('waits out a 429 (Retry-After) and then grants', async () => {
    discord.answer({
      status: 429,
      headers: { 'retry-after': '7' },
      body: { message: 'You are being rate limited.', retry_after: 7, global: false },
    });
    await redeemedKey();
    await deliver();
    expect(discord.received).toHaveLength(1);
    const row = await t.ctx.db
      .selectFrom('webhookOutbox')
      .select(['status', 'nextAttemptAt', 'attempts'])
      .where('serviceId', '=', s.id)
      .where('kind', '=', 'discordRole')
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'pending', nextAttemptAt: t.clock.now + 7000, attempts: 0 });
    t.clock.advance(6_000);
    await deliver();
    expect(discord.received).toHaveLength(1);
    t.clock.advance(1_000);
    await deliver();
    expect(calls()).toEqual([`PUT ${rolePath}`, `PUT ${rolePath}`]);
    const status = await call(t.app, 'GET', '/api/v1/keys/api/discord-role', { key: s.serviceKey });
    expect(status.body.data).toMatchObject({
      configured: true,
      botTokenSet: true,
      roleId: ROLE,
      serverBound: true,
      members: 1,
      waiting: [],
      failures: [],
    });
  });

  it('retries after a 500 and reports a 403 in words', async () => {
    discord.answer({ status: 500 }, { status: 403, body: { message: 'Missing Permissions', code: 50013 } });
    await redeemedKey();
    await deliver();
    t.clock.advance(5_000);
    await deliver();
    expect(discord.received).toHaveLength(2);
    const status = await call(t.app, 'GET', '/api/v1/keys/api/discord-role', { key: s.serviceKey });
    expect(status.body.data.failures).toHaveLength(1);
    expect(status.body.data.failures[0]).toMatchObject({ userId: USER, action: 'grant' });
    expect(status.body.data.failures[0].reason).toMatch(/Manage Roles/);
  });

  it('delivers after a restart what the stopped instance left queued', async () => {
    await redeemedKey();
    // Nothing was sent by this instance; a new app on the same database takes over.
    expect(discord.received).toHaveLength(0);
    const next = await anotherInstance(t);
    try {
      await deliver(next.ctx);
      expect(calls()).toEqual([`PUT ${rolePath}`]);
    } finally {
      await next.close();
    }
  });

  it('sends nothing when the role is not set up', async () => {
    await call(t.app, 'PUT', '/api/v1/keys/api/settings', { key: s.serviceKey, body: { chatRoleId: null } });
    await redeemedKey();
    await sweepChatRoles(t.ctx);
    await deliver();
    expect(discord.received).toHaveLength(0);
  });

  it('sends one grant when two keys of one user are redeemed at the same moment', async () => {
    const keys = await generateKeys(t.app, s.serviceKey, { expirationType: 'lifetime', chatId: USER, count: 6 });
    const answers = await Promise.all(
      keys.map((key, i) => call(t.app, 'POST', '/api/v1/keys/validate', { body: { service: s.id, key, hwid: `pc-${i}` } })),
    );
    expect(answers.map((a) => a.status)).toEqual(keys.map(() => 200));
    await deliver();
    expect(calls()).toEqual([`PUT ${rolePath}`]);
    const members = await t.ctx.db.selectFrom('discordRoleMembers').select('chatId').where('serviceId', '=', s.id).execute();
    expect(members).toEqual([{ chatId: USER }]);
  });

  it('grants when a key is given a chat id, and moves the role when the key moves to another user', async () => {
    const [key] = await generateKeys(t.app, s.serviceKey, { expirationType: 'lifetime' });
    await call(t.app, 'POST', '/api/v1/keys/validate', { body: { service: s.id, key, hwid: 'pc-1' } });
    await deliver();
    expect(discord.received).toHaveLength(0);
    expect((await call(t.app, 'PUT', '/api/v1/keys/api/key', { key: s.serviceKey, body: { key, chatId: USER } })).status).toBe(200);
    await deliver();
    expect(calls()).toEqual([`PUT ${rolePath}`]);
    const other = '555555555555555555';
    expect((await call(t.app, 'PUT', '/api/v1/keys/api/key', { key: s.serviceKey, body: { key, chatId: other } })).status).toBe(200);
    await deliver();
    expect(calls().slice(1).sort()).toEqual([`DELETE ${rolePath}`, `PUT ${rolePath.replace(USER, other)}`].sort());
  });
});
