import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, seedService } from '../helpers/seed.ts';

const t = useTestApp();
const URL = '/api/v1/keys/api/settings';
const ID = '123456789012345678';

describe('PUT /api/v1/keys/api/settings: webhook URLs that are refused', () => {
  it.each([
    ['plain http', `http://discord.com/api/webhooks/${ID}/tok`],
    ['another host', `https://example.com/api/webhooks/${ID}/tok`],
    ['a look-alike host', `https://discord.com.evil.example/api/webhooks/${ID}/tok`],
    ['a host suffix', `https://evildiscord.com/api/webhooks/${ID}/tok`],
    ['userinfo before the real host', `https://discord.com@evil.example/api/webhooks/${ID}/tok`],
    ['userinfo before discord.com', `https://user:pass@discord.com/api/webhooks/${ID}/tok`],
    ['an explicit port', `https://discord.com:8443/api/webhooks/${ID}/tok`],
    ['a missing token', `https://discord.com/api/webhooks/${ID}`],
    ['a missing token with a slash', `https://discord.com/api/webhooks/${ID}/`],
    ['an id of 16 digits', 'https://discord.com/api/webhooks/1234567890123456/tok'],
    ['an id of 21 digits', 'https://discord.com/api/webhooks/123456789012345678901/tok'],
    ['a non-numeric id', 'https://discord.com/api/webhooks/abcdefghijklmnopq/tok'],
    ['a query string', `https://discord.com/api/webhooks/${ID}/tok?wait=true`],
    ['a fragment', `https://discord.com/api/webhooks/${ID}/tok#x`],
    ['an extra path segment', `https://discord.com/api/webhooks/${ID}/tok/slack`],
    ['a wrong path', `https://discord.com/webhooks/${ID}/tok`],
    ['a path escaping upwards', `https://discord.com/api/webhooks/../../evil/${ID}/tok`],
    ['not a URL', 'discord webhook please'],
    ['an empty string', ''],
  ])('refuses %s', async (_label, webhookUrl) => {
    const s = await seedService(t().ctx);
    const res = await call(t().app, 'PUT', URL, { key: s.serviceKey, body: { webhookUrl } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR', field: 'webhookUrl' });
    const row = await t().ctx.db.selectFrom('services').select('webhookUrl').where('id', '=', s.id).executeTakeFirstOrThrow();
    expect(row.webhookUrl).toBeNull();
  });
});

describe('PUT /api/v1/keys/api/settings: other bad input', () => {
  it.each([
    ['free hours over 720', { hwidResetCooldownFreeHours: 721 }, 'hwidResetCooldownFreeHours'],
    ['negative free hours', { hwidResetCooldownFreeHours: -1 }, 'hwidResetCooldownFreeHours'],
    ['fractional premium hours', { hwidResetCooldownPremiumHours: 1.5 }, 'hwidResetCooldownPremiumHours'],
    ['premium hours as a string', { hwidResetCooldownPremiumHours: '6' }, 'hwidResetCooldownPremiumHours'],
    ['null hours', { hwidResetCooldownFreeHours: null }, 'hwidResetCooldownFreeHours'],
    ['webhookEnabled as a string', { webhookEnabled: 'true' }, 'webhookEnabled'],
    ['a public key of 63 hex characters', { chatInteractionsPublicKey: 'a'.repeat(63) }, 'chatInteractionsPublicKey'],
    ['a public key of 65 hex characters', { chatInteractionsPublicKey: 'a'.repeat(65) }, 'chatInteractionsPublicKey'],
    ['a public key that is not hex', { chatInteractionsPublicKey: 'g'.repeat(64) }, 'chatInteractionsPublicKey'],
    ['a numeric webhook URL', { webhookUrl: 5 }, 'webhookUrl'],
    ['an unknown field', { webhookURL: 'https://discord.com/api/webhooks/1/2' }, 'webhookURL'],
  ])('refuses %s and changes nothing', async (_label, body, field) => {
    const s = await seedService(t().ctx);
    const before = await t().ctx.db.selectFrom('services').selectAll().where('id', '=', s.id).executeTakeFirstOrThrow();
    const res = await call(t().app, 'PUT', URL, { key: s.serviceKey, body: { hwidResetCooldownFreeHours: 3, ...body } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', field });
    const after = await t().ctx.db.selectFrom('services').selectAll().where('id', '=', s.id).executeTakeFirstOrThrow();
    expect(after).toEqual(before);
  });

  it('refuses a missing or non-object body', async () => {
    const s = await seedService(t().ctx);
    expect((await call(t().app, 'PUT', URL, { key: s.serviceKey })).status).toBe(400);
    expect((await call(t().app, 'PUT', URL, { key: s.serviceKey, body: [] })).status).toBe(400);
    expect((await call(t().app, 'PUT', URL, { key: s.serviceKey, body: '"x"' })).status).toBe(400);
  });
});
