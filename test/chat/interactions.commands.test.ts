import { beforeEach, describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, generateKeys, seedService, type SeededService } from '../helpers/seed.ts';
import { ChatSigner, command, sendInteraction } from './interactions.ts';

const t = useTestApp();
const GUILD = '423456789012345678';
const USER = '523456789012345678';
const OTHER_USER = '623456789012345678';
const HOUR = 3_600_000;
const signer = new ChatSigner();

let s: SeededService;
beforeEach(async () => {
  s = await seedService(t().ctx);
  await call(t().app, 'PUT', '/api/v1/keys/api/settings', { key: s.serviceKey, body: { chatInteractionsPublicKey: signer.publicKeyHex } });
  await call(t().app, 'POST', '/api/v1/keys/api/chat/connect', { key: s.serviceKey, body: { guildId: GUILD, guildName: 'Home' } });
});

async function run(name: string, options?: Record<string, string>, user = USER) {
  const opts = options ? Object.entries(options).map(([n, value]) => ({ name: n, type: 3, value })) : undefined;
  const res = await sendInteraction(t().app, s.identifier, command(GUILD, user, name, opts), { signer, at: t().clock.now });
  expect(res.status).toBe(200);
  expect(res.body.type).toBe(4);
  expect(res.body.data.flags).toBe(64);
  return res.body.data.content as string;
}

const generatedRow = (key: string) => t().ctx.db.selectFrom('generatedKeys').selectAll().where('key', '=', key).executeTakeFirst();
const activeRow = (key: string) => t().ctx.db.selectFrom('activeKeys').selectAll().where('key', '=', key).executeTakeFirst();

/** A key activated on a device, as a player's key is after the first run. */
async function activeKey(body: Record<string, unknown> = { expirationType: 'lifetime' }, hwid = 'pc-1') {
  const [key] = await generateKeys(t().app, s.serviceKey, body);
  const res = await call(t().app, 'GET', `/api/v1/keys/validate?${new URLSearchParams({ service: s.identifier, key: key!, hwid })}`);
  expect(res.body.data.valid).toBe(true);
  return key!;
}

describe('/redeem', () => {
  it('links a generated key to the caller', async () => {
    const [key] = await generateKeys(t().app, s.serviceKey);
    expect(await run('redeem', { key: key! })).toMatch(/now linked/);
    expect((await generatedRow(key!))?.chatId).toBe(USER);
    const byChat = await call(t().app, 'GET', `/api/v1/keys/api/key/by-chat?chatId=${USER}`, { key: s.serviceKey });
    expect(byChat.body.data.keys.map((k: { key: string }) => k.key)).toEqual([key]);
  });

  it('links an active key to the caller', async () => {
    const key = await activeKey();
    expect(await run('redeem', { key })).toMatch(/now linked/);
    expect((await activeRow(key))?.chatId).toBe(USER);
  });

  it('is repeatable by the same user', async () => {
    const [key] = await generateKeys(t().app, s.serviceKey);
    await run('redeem', { key: key! });
    expect(await run('redeem', { key: key! })).toMatch(/now linked/);
    expect((await generatedRow(key!))?.chatId).toBe(USER);
  });

  it('refuses a key already linked to another user and leaves the link alone', async () => {
    const [key] = await generateKeys(t().app, s.serviceKey, { expirationType: 'lifetime', chatId: OTHER_USER });
    expect(await run('redeem', { key: key! })).toMatch(/already linked to another user/);
    expect((await generatedRow(key!))?.chatId).toBe(OTHER_USER);
  });

  it('refuses an unknown key', async () => {
    expect(await run('redeem', { key: 'A'.repeat(32) })).toMatch(/does not exist/);
  });

  it("refuses another service's key and leaves it untouched", async () => {
    const other = await seedService(t().ctx);
    const [key] = await generateKeys(t().app, other.serviceKey);
    expect(await run('redeem', { key: key! })).toMatch(/does not exist/);
    expect((await generatedRow(key!))?.chatId).toBeNull();
  });

  it('explains the usage when the key option is missing or malformed', async () => {
    expect(await run('redeem')).toMatch(/\/redeem key:/);
    expect(await run('redeem', { key: 'x'.repeat(65) })).toMatch(/\/redeem key:/);
    expect(await run('redeem', { key: 'has space' })).toMatch(/\/redeem key:/);
  });
});

describe('/resethwid', () => {
  it("resets the HWID of the caller's key and tells when the next reset is possible", async () => {
    const key = await activeKey();
    await run('redeem', { key });
    const content = await run('resethwid');
    const next = Math.floor((t().clock.now + 24 * HOUR) / 1000);
    expect(content).toContain(`<t:${next}:R>`);
    expect(await activeRow(key)).toMatchObject({ hwid: null, hwidResetCount: 1, hwidResetAt: t().clock.now });
  });

  it("keeps the service's cooldown: a second reset inside it is refused, one after it works", async () => {
    const key = await activeKey();
    await run('redeem', { key });
    await run('resethwid');
    // The player runs the script on a new device, then asks again too soon.
    await call(t().app, 'GET', `/api/v1/keys/validate?${new URLSearchParams({ service: s.identifier, key, hwid: 'pc-2' })}`);
    t().clock.advance(HOUR);
    const refused = await run('resethwid');
    expect(refused).toMatch(/reset recently/);
    expect(refused).toContain(`<t:${Math.floor((t().clock.now + 23 * HOUR) / 1000)}:R>`);
    expect((await activeRow(key))?.hwid).toBe('pc-2');

    t().clock.advance(23 * HOUR);
    expect(await run('resethwid')).toMatch(/has been reset/);
    expect(await activeRow(key)).toMatchObject({ hwid: null, hwidResetCount: 2 });
  });

  it('uses the premium cooldown for a premium key', async () => {
    await call(t().app, 'PUT', '/api/v1/keys/api/settings', { key: s.serviceKey, body: { hwidResetCooldownPremiumHours: 2 } });
    const key = await activeKey({ expirationType: 'lifetime', isPremium: true });
    await run('redeem', { key });
    expect(await run('resethwid')).toContain(`<t:${Math.floor((t().clock.now + 2 * HOUR) / 1000)}:R>`);
  });

  it('tells a caller without a linked key to redeem one', async () => {
    expect(await run('resethwid')).toMatch(/\/redeem/);
    // A generated (never activated) key linked to the caller has no device yet either.
    const [key] = await generateKeys(t().app, s.serviceKey, { expirationType: 'lifetime', chatId: USER });
    expect(key).toBeDefined();
    expect(await run('resethwid')).toMatch(/no activated key/);
  });

  it('tells the caller when the key has no device bound', async () => {
    const key = await activeKey();
    await call(t().app, 'PUT', '/api/v1/keys/api/key', { key: s.serviceKey, body: { key, hwid: null, chatId: USER } });
    expect(await run('resethwid')).toMatch(/not bound to a device/);
    expect((await activeRow(key))?.hwidResetCount).toBe(0);
  });

  it("never resets another user's key", async () => {
    const key = await activeKey();
    await run('redeem', { key }, OTHER_USER);
    expect(await run('resethwid')).toMatch(/\/redeem/);
    expect((await activeRow(key))?.hwid).toBe('pc-1');
  });
});

describe('/script', () => {
  async function script(name: string, visible = true) {
    const res = await call(t().app, 'POST', '/api/v1/vss/api/scripts', { key: s.serviceKey, body: { name, code: 'print("hi")', visible } });
    expect(res.status).toBe(201);
    return res.body.data as { id: string; loadstring: string };
  }

  it('answers the loadstrings of the visible scripts to a caller with a valid key', async () => {
    const shown = await script('main');
    await script('hidden', false);
    const [key] = await generateKeys(t().app, s.serviceKey, { expirationType: 'byDays', days: 5, chatId: USER });
    const content = await run('script');
    expect(content).toContain(shown.loadstring);
    expect(content).toContain(`script_key = "${key}";`);
    expect(content).toContain('**main**');
    expect(content).not.toContain('hidden');
  });

  it('refuses a caller without a linked key', async () => {
    await script('main');
    const content = await run('script');
    expect(content).toMatch(/need a valid key/);
    expect(content).not.toContain('loadstring');
  });

  it('refuses a caller whose only key has expired', async () => {
    await script('main');
    await generateKeys(t().app, s.serviceKey, { expirationType: 'byDays', days: 1, chatId: USER });
    t().clock.advance(25 * HOUR);
    expect(await run('script')).toMatch(/need a valid key/);
  });

  it('refuses a caller whose key is banned', async () => {
    await script('main');
    const key = await activeKey();
    await call(t().app, 'PUT', '/api/v1/keys/api/key', { key: s.serviceKey, body: { key, status: 'banned', chatId: USER } });
    expect(await run('script')).toMatch(/need a valid key/);
  });

  it('says so when the service has no visible scripts', async () => {
    await generateKeys(t().app, s.serviceKey, { expirationType: 'lifetime', chatId: USER });
    expect(await run('script')).toMatch(/no scripts/);
  });
});

describe('other interactions', () => {
  it('answers an unknown command with an ephemeral note', async () => {
    expect(await run('frobnicate')).toBe('Unknown command.');
  });

  it('never lets a message mention everyone', async () => {
    const res = await sendInteraction(t().app, s.identifier, command(GUILD, USER, 'script'), { signer, at: t().clock.now });
    expect(res.body.data.allowed_mentions).toEqual({ parse: [] });
  });
});
