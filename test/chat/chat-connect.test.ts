import { beforeEach, describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, seedService, type SeededService } from '../helpers/seed.ts';

const t = useTestApp();
const GUILD = '123456789012345678';

let s: SeededService;
beforeEach(async () => {
  s = await seedService(t().ctx);
});

const connect = (body: unknown, key = s.serviceKey, headers?: Record<string, string>) =>
  call(t().app, 'POST', '/api/v1/keys/api/chat/connect', { key, body, headers });
const disconnect = (body?: unknown, key = s.serviceKey) => call(t().app, 'POST', '/api/v1/keys/api/chat/disconnect', { key, body });
const boundGuild = async () =>
  t().ctx.db.selectFrom('services').select(['chatGuildId', 'chatGuildName']).where('id', '=', s.id).executeTakeFirstOrThrow();

describe('POST /api/v1/keys/api/chat/connect', () => {
  it('binds a chat server and answers the settings with the binding', async () => {
    const res = await connect({ guildId: GUILD, guildName: 'My Server' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: {
        webhookUrl: null,
        webhookEnabled: false,
        hwidResetCooldownFreeHours: 24,
        hwidResetCooldownPremiumHours: 6,
        chatInteractionsPublicKey: null,
        chat: { guildId: GUILD, guildName: 'My Server' },
        chatBotToken: null,
        chatRoleId: null,
        chatApplicationId: null,
        chatLogChannelId: null,
        sessionHeartbeatSeconds: 30,
      },
    });
    expect(await boundGuild()).toEqual({ chatGuildId: GUILD, chatGuildName: 'My Server' });
  });

  it('shows the binding in service info', async () => {
    await connect({ guildId: GUILD, guildName: 'Shown' });
    const info = await call(t().app, 'GET', '/api/v1/keys/api/service/info', { key: s.serviceKey });
    expect(info.body.data.settings.chat).toEqual({ guildId: GUILD, guildName: 'Shown' });
  });

  it('replaces an earlier binding', async () => {
    await connect({ guildId: GUILD, guildName: 'Old' });
    const res = await connect({ guildId: '98765432109876543210', guildName: 'New' });
    expect(res.body.data.chat).toEqual({ guildId: '98765432109876543210', guildName: 'New' });
    expect(await boundGuild()).toEqual({ chatGuildId: '98765432109876543210', chatGuildName: 'New' });
  });

  it('accepts ids of 17 and 20 digits and names of 1 and 100 characters', async () => {
    expect((await connect({ guildId: '1'.repeat(17), guildName: 'a' })).status).toBe(200);
    expect((await connect({ guildId: '9'.repeat(20), guildName: 'n'.repeat(100) })).status).toBe(200);
  });

  it.each([
    ['a 16-digit guildId', { guildId: '1'.repeat(16), guildName: 'x' }, 'guildId'],
    ['a 21-digit guildId', { guildId: '1'.repeat(21), guildName: 'x' }, 'guildId'],
    ['a guildId with letters', { guildId: '12345678901234567a', guildName: 'x' }, 'guildId'],
    ['a numeric guildId', { guildId: 123456789012345678, guildName: 'x' }, 'guildId'],
    ['a missing guildId', { guildName: 'x' }, 'guildId'],
    ['an empty guildName', { guildId: GUILD, guildName: '' }, 'guildName'],
    ['a guildName over 100 characters', { guildId: GUILD, guildName: 'n'.repeat(101) }, 'guildName'],
    ['a missing guildName', { guildId: GUILD }, 'guildName'],
    ['an unknown field', { guildId: GUILD, guildName: 'x', channelId: '1' }, 'channelId'],
  ])('refuses %s with 400 naming the field and binds nothing', async (_label, body, field) => {
    const res = await connect(body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR', field });
    expect(await boundGuild()).toEqual({ chatGuildId: null, chatGuildName: null });
  });

  it('refuses a call without a key', async () => {
    const res = await call(t().app, 'POST', '/api/v1/keys/api/chat/connect', { body: { guildId: GUILD, guildName: 'x' } });
    expect(res.status).toBe(401);
  });

  it('refuses a service key without allowManageKeys', async () => {
    await t().ctx.db.updateTable('services').set({ allowManageKeys: 0 }).where('id', '=', s.id).execute();
    const res = await connect({ guildId: GUILD, guildName: 'x' });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('This API key is not permitted for this action (allowManageKeys)');
    expect(await boundGuild()).toEqual({ chatGuildId: null, chatGuildName: null });
  });

  it("answers 404 for another account's service named in X-Service-Id", async () => {
    const stranger = await seedService(t().ctx);
    const res = await connect({ guildId: GUILD, guildName: 'x' }, stranger.account.accountKey, { 'x-service-id': s.id });
    expect(res.status).toBe(404);
    expect(await boundGuild()).toEqual({ chatGuildId: null, chatGuildName: null });
  });

  it('lets the owner bind with the account key and X-Service-Id', async () => {
    const res = await connect({ guildId: GUILD, guildName: 'Owner' }, s.account.accountKey, { 'x-service-id': s.identifier });
    expect(res.status).toBe(200);
    expect(await boundGuild()).toEqual({ chatGuildId: GUILD, chatGuildName: 'Owner' });
  });
});

describe('POST /api/v1/keys/api/chat/disconnect', () => {
  it('removes the binding and answers the settings without it', async () => {
    await connect({ guildId: GUILD, guildName: 'Gone' });
    const res = await disconnect();
    expect(res.status).toBe(200);
    expect(res.body.data.chat).toBeNull();
    expect(await boundGuild()).toEqual({ chatGuildId: null, chatGuildName: null });
  });

  it('answers 404 when nothing was bound, also the second time', async () => {
    expect((await disconnect()).status).toBe(404);
    await connect({ guildId: GUILD, guildName: 'Once' });
    expect((await disconnect({})).status).toBe(200);
    const again = await disconnect();
    expect(again.status).toBe(404);
    expect(again.body.code).toBe('NOT_FOUND');
  });

  it('refuses unknown fields', async () => {
    await connect({ guildId: GUILD, guildName: 'Kept' });
    const res = await disconnect({ guildId: GUILD });
    expect(res.status).toBe(400);
    expect(res.body.field).toBe('guildId');
    expect(await boundGuild()).toEqual({ chatGuildId: GUILD, chatGuildName: 'Kept' });
  });

  it('refuses a service key without allowManageKeys and keeps the binding', async () => {
    await connect({ guildId: GUILD, guildName: 'Kept' });
    await t().ctx.db.updateTable('services').set({ allowManageKeys: 0 }).where('id', '=', s.id).execute();
    expect((await disconnect()).status).toBe(403);
    expect(await boundGuild()).toEqual({ chatGuildId: GUILD, chatGuildName: 'Kept' });
  });

  it("does not touch another account's binding", async () => {
    await connect({ guildId: GUILD, guildName: 'Mine' });
    const stranger = await seedService(t().ctx);
    const res = await call(t().app, 'POST', '/api/v1/keys/api/chat/disconnect', {
      key: stranger.account.accountKey,
      headers: { 'x-service-id': s.id },
    });
    expect(res.status).toBe(404);
    expect(await boundGuild()).toEqual({ chatGuildId: GUILD, chatGuildName: 'Mine' });
  });
});
