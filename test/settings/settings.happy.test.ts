import { describe, expect, it } from 'vitest';
import { openWebhookUrl } from '../../src/lib/webhook-url.ts';
import { useTestApp } from '../helpers/app.ts';
import { call, seedService, type SeededService } from '../helpers/seed.ts';

const t = useTestApp();
const URL = '/api/v1/keys/api/settings';
const ID = '123456789012345678';
const TOKEN = 'AbC-def_123456789xyz';

const put = (s: SeededService, body: unknown) => call(t().app, 'PUT', URL, { key: s.serviceKey, body });

describe('PUT /api/v1/keys/api/settings', () => {
  it('starts from the defaults', async () => {
    const s = await seedService(t().ctx);
    const info = await call(t().app, 'GET', '/api/v1/keys/api/service/info', { key: s.serviceKey });
    expect(info.body.data.settings).toEqual({
      webhookUrl: null,
      webhookEnabled: false,
      hwidResetCooldownFreeHours: 24,
      hwidResetCooldownPremiumHours: 6,
      chatInteractionsPublicKey: null,
      chat: null,
      chatBotToken: null,
      chatRoleId: null,
      chatApplicationId: null,
      chatLogChannelId: null,
      sessionHeartbeatSeconds: 30,
    });
    const empty = await put(s, {});
    expect(empty.status).toBe(200);
    expect(empty.body.data).toEqual(info.body.data.settings);
  });

  it.each([
    `https://discord.com/api/webhooks/${ID}/${TOKEN}`,
    `https://discordapp.com/api/webhooks/${ID}/${TOKEN}`,
    `https://ptb.discord.com/api/webhooks/${ID}/${TOKEN}`,
    `https://canary.discord.com/api/webhooks/${ID}/${TOKEN}`,
    `https://discord.com/api/v10/webhooks/${ID}/${TOKEN}`,
    `https://discord.com/api/webhooks/12345678901234567/${TOKEN}`,
    `https://discord.com/api/webhooks/12345678901234567890/${TOKEN}`,
  ])('accepts the webhook %s and shows it masked', async (url) => {
    const s = await seedService(t().ctx);
    const res = await put(s, { webhookUrl: url, webhookEnabled: true });
    expect(res.status).toBe(200);
    const id = /\/webhooks\/(\d+)\//.exec(url)![1];
    const masked = url.replace(/\/webhooks\/\d+\/.+$/, `/webhooks/${id}/****`);
    expect(res.body.data.webhookUrl).toBe(masked);
    expect(res.body.data.webhookEnabled).toBe(true);
    expect(JSON.stringify(res.body)).not.toContain(TOKEN);
    const info = await call(t().app, 'GET', '/api/v1/keys/api/service/info', { key: s.serviceKey });
    expect(info.body.data.settings.webhookUrl).toBe(masked);
    expect(JSON.stringify(info.body)).not.toContain(TOKEN);
    const row = await t().ctx.db.selectFrom('services').select('webhookUrl').where('id', '=', s.id).executeTakeFirstOrThrow();
    // Stored with its token sealed (contract §10).
    expect(row.webhookUrl).not.toContain(TOKEN);
    expect(openWebhookUrl(t().ctx.sealer, row.webhookUrl)).toBe(url);
  });

  it('clears the webhook with null', async () => {
    const s = await seedService(t().ctx);
    await put(s, { webhookUrl: `https://discord.com/api/webhooks/${ID}/${TOKEN}` });
    const res = await put(s, { webhookUrl: null });
    expect(res.body.data.webhookUrl).toBeNull();
    const row = await t().ctx.db.selectFrom('services').select('webhookUrl').where('id', '=', s.id).executeTakeFirstOrThrow();
    expect(row.webhookUrl).toBeNull();
  });

  it('sets cooldown hours at both ends of 0–720 and leaves fields it does not name', async () => {
    const s = await seedService(t().ctx);
    const res = await put(s, { hwidResetCooldownFreeHours: 0, hwidResetCooldownPremiumHours: 720 });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ hwidResetCooldownFreeHours: 0, hwidResetCooldownPremiumHours: 720, webhookEnabled: false });
    const next = await put(s, { hwidResetCooldownFreeHours: 48 });
    expect(next.body.data).toMatchObject({ hwidResetCooldownFreeHours: 48, hwidResetCooldownPremiumHours: 720 });
    const row = await t()
      .ctx.db.selectFrom('services')
      .select(['hwidResetCooldownFreeHours', 'hwidResetCooldownPremiumHours'])
      .where('id', '=', s.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ hwidResetCooldownFreeHours: 48, hwidResetCooldownPremiumHours: 720 });
  });

  it('stores a chat interactions public key of 64 hex characters, lower-cased, and clears it with null', async () => {
    const s = await seedService(t().ctx);
    const hex = 'AB'.repeat(32);
    const res = await put(s, { chatInteractionsPublicKey: hex });
    expect(res.status).toBe(200);
    expect(res.body.data.chatInteractionsPublicKey).toBe(hex.toLowerCase());
    const cleared = await put(s, { chatInteractionsPublicKey: null });
    expect(cleared.body.data.chatInteractionsPublicKey).toBeNull();
  });

  it('lets the owner change settings with the account key', async () => {
    const s = await seedService(t().ctx);
    const res = await call(t().app, 'PUT', URL, {
      key: s.account.accountKey,
      headers: { 'x-service-id': s.identifier },
      body: { hwidResetCooldownFreeHours: 1 },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.hwidResetCooldownFreeHours).toBe(1);
  });
});
