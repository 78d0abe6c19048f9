import { beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { call, generateKeys } from '../helpers/seed.ts';
import type { FakeDiscord } from './fake-discord.ts';
import { solvedCaptcha } from '../signin/helpers.ts';
import { actionFingerprint } from '../../src/lib/fingerprint.ts';
import {
  button,
  buyerId,
  deliver,
  GUILD,
  interact,
  LOG_CHANNEL,
  modalSubmit,
  ROLE,
  said,
  TEAM_ROLES,
  useConsole,
  type Console,
} from './console-helpers.ts';

// Contract §24.2: the buyer panel's buttons, each answered only to the buyer, in words that say what to do next.

const setup = useConsole();
let discord: FakeDiscord;
let t: TestApp;
let c: Console;
beforeAll(() => void ({ t, c, discord } = setup));

async function ranKey(user: string | null, body: Record<string, unknown> = { expirationType: 'lifetime' }) {
  const [key] = await generateKeys(t.app, c.s.serviceKey, { ...body, ...(user && { chatId: user }) });
  const v = await call(t.app, 'POST', '/api/v1/keys/validate', { body: { service: c.s.id, key, hwid: 'device-0123456789' } });
  expect(v.status).toBe(200);
  return key!;
}

describe('Redeem key', () => {
  it('answers a modal with one text input, and its submit links the key', async () => {
    const user = buyerId();
    const modal = await interact(t, c, button(user, 'kw:redeem'));
    expect(modal.type).toBe(9);
    expect(modal.data?.custom_id).toBe('kw:redeem-modal');
    expect(JSON.stringify(modal.data?.components)).toMatch(/"type":4.*"custom_id":"key"/);
    const [key] = await generateKeys(t.app, c.s.serviceKey);
    expect(await said(t, c, modalSubmit(user, key!))).toMatch(/now linked.*Get script/);
    const row = await t.ctx.db.selectFrom('generatedKeys').select('chatId').where('key', '=', key!).executeTakeFirstOrThrow();
    expect(row.chatId).toBe(user);
  });

  it('says what to do with an unknown key, and does the link once on a retried id', async () => {
    const user = buyerId();
    expect(await said(t, c, modalSubmit(user, 'NOPE'.repeat(8)))).toMatch(/does not exist.*Redeem key\*\* again/);
    const [key] = await generateKeys(t.app, c.s.serviceKey);
    const submit = modalSubmit(user, key!);
    const first = await interact(t, c, submit);
    expect(await interact(t, c, submit)).toEqual(first);
    const updates = await t.ctx.db
      .selectFrom('auditLog')
      .select('id')
      .where('target', '=', key!)
      .where('action', '=', 'key.update')
      .execute();
    expect(updates).toHaveLength(1);
  });
});

describe('Get script', () => {
  it('sends a user without a key to Redeem key', async () => {
    expect(await said(t, c, button(buyerId(), 'kw:script'))).toMatch(/Redeem key/);
  });

  it('answers the snippet for a linked key', async () => {
    const user = buyerId();
    await ranKey(user);
    await call(t.app, 'POST', '/api/v1/vss/api/scripts', { key: c.s.serviceKey, body: { name: 'main', code: 'print(1)' } });
    const content = await said(t, c, button(user, 'kw:script'));
    expect(content).toMatch(/script_key = "|no scripts available/);
  });
});

describe('Reset HWID', () => {
  it('resets, tells the channel with the fingerprint, and then names the cooldown', async () => {
    const user = buyerId();
    await ranKey(user);
    expect(await said(t, c, button(user, 'kw:reset'))).toMatch(/has been reset.*<t:\d+:R>/);
    expect(await said(t, c, button(user, 'kw:reset'))).toMatch(/nothing to reset|reset recently/);
    await deliver(t);
    const notice = discord.calls.find((x) => x.path === `/api/v10/channels/${LOG_CHANNEL}/messages`);
    const text = JSON.stringify(notice?.body);
    expect(text).toMatch(/HWID reset by a buyer/);
    expect(text).toContain('device-0');
    expect(text).toMatch(/network unknown/);
  });
});

describe('Get role', () => {
  it('grants the role at once to a user with a valid linked key', async () => {
    const user = buyerId();
    await ranKey(user);
    await deliver(t);
    discord.calls.length = 0;
    expect(await said(t, c, button(user, 'kw:role'))).toMatch(/on its way/);
    await deliver(t);
    expect(discord.paths('PUT')).toContain(`PUT /api/v10/guilds/${GUILD}/members/${user}/roles/${ROLE}`);
  });

  it('says why not without a key, or with a banned one', async () => {
    expect(await said(t, c, button(buyerId(), 'kw:role'))).toMatch(/not linked yet: press \*\*Redeem key\*\*/);
    const user = buyerId();
    const key = await ranKey(user);
    await call(t.app, 'PUT', '/api/v1/keys/api/key', { key: c.s.serviceKey, body: { key, status: 'banned' } });
    expect(await said(t, c, button(user, 'kw:role'))).toMatch(/None of your keys is valid/);
  });
});

describe('My key', () => {
  it("lists the user's keys with status, expiry, HWIDs, cooldown, runs and live sessions", async () => {
    const user = buyerId();
    const key = await ranKey(user, { expirationType: 'byDays', days: 10 });
    const content = await said(t, c, button(user, 'kw:me'));
    expect(content).toContain(key);
    expect(content).toMatch(/active, expires <t:\d+:R>; 1 device\(s\) bound, HWID reset available now; \d+ runs, 0 running now/);
    expect(await said(t, c, button(buyerId(), 'kw:me'))).toMatch(/no key linked.*Redeem key/);
  });

  it('names the days of a key whose time starts at its first run, unused or bound before it (contract §23)', async () => {
    const user = buyerId();
    const [unused] = await generateKeys(t.app, c.s.serviceKey, { expirationType: 'afterRedeem', days: 9, chatId: user });
    const bound = await call(t.app, 'POST', `/luarmor/v3/projects/${c.s.identifier}/users`, {
      headers: { authorization: c.s.serviceKey },
      body: { identifier: 'device-early', key_days: 5 },
    });
    expect(bound.status, JSON.stringify(bound.body)).toBe(200);
    const linked = await call(t.app, 'PUT', '/api/v1/keys/api/key', {
      key: c.s.serviceKey,
      body: { key: bound.body.user_key, chatId: user },
    });
    expect(linked.status, JSON.stringify(linked.body)).toBe(200);
    const content = await said(t, c, button(user, 'kw:me'));
    expect(content).toContain(`\`${unused}\`: not used yet (runs 9 day(s) from its first run)`);
    expect(content).toContain(`\`${bound.body.user_key}\`: active, runs 5 day(s) from its first run; 1 device(s) bound`);
  });
});

it('refuses a button pressed in another server', async () => {
  const payload = { ...button(buyerId(), 'kw:me'), guild_id: '799999999999999999' };
  expect(await said(t, c, payload)).toMatch(/not connected to this service/);
});

describe('the action fingerprint of a reset from the self-serve page', () => {
  it('hashes the /24 network: the same network gives the same fingerprint, another network another', async () => {
    const fingerprintAfterReset = async (remoteAddress: string) => {
      const user = buyerId();
      const key = await ranKey(user);
      discord.calls.length = 0;
      const res = await call(t.app, 'POST', '/api/v1/public/reset-hwid', {
        body: { service: c.s.identifier, key, captcha: await solvedCaptcha(t.app) },
        remoteAddress,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      await deliver(t);
      const text = JSON.stringify(discord.calls.find((x) => JSON.stringify(x.body).includes('HWID reset by a buyer'))?.body);
      const network = /network ([0-9a-f]{8})/.exec(text)?.[1];
      expect(network, text).toBeDefined();
      expect(text).not.toContain(remoteAddress);
      return network;
    };
    const a = await fingerprintAfterReset('203.0.113.7');
    const sameNetwork = (ip: string) => actionFingerprint({ ip, oldHwid: null, newHwid: null }).network;
    expect(sameNetwork('203.0.113.200')).toBe(a);
    expect(sameNetwork('::ffff:203.0.113.9')).toBe(a);
    expect(sameNetwork('2001:db8:aa:1::1')).toBe(sameNetwork('2001:0db8:00aa:ffff::2'));
    expect(await fingerprintAfterReset('198.51.100.7')).not.toBe(a);
  });
});

describe('each button for each role', () => {
  // The panel is the buyers'; a team member or a stranger without a key is a buyer like any other.
  const cases = TEAM_ROLES.flatMap((role) => ['kw:redeem', 'kw:script', 'kw:reset', 'kw:role', 'kw:me'].map((id) => ({ role, id })));
  it.each(cases)('$id pressed by $role without a key answers privately and says what to do next', async ({ role, id }) => {
    const body = await interact(t, c, button(c.discordIds[role], id));
    if (id === 'kw:redeem') {
      expect(body.type).toBe(9);
      return;
    }
    expect(body.type, JSON.stringify(body)).toBe(4);
    expect(body.data?.flags).toBe(64);
    expect(body.data?.content).not.toMatch(/not on this service's team/);
    expect(body.data?.content).toMatch(/Redeem key/);
  });
});
