import { beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import type { TestApp } from '../helpers/app.ts';
import { testDialect } from '../helpers/database.ts';
import { call, generateKeys } from '../helpers/seed.ts';
import type { FakeDiscord } from './fake-discord.ts';
import {
  auditOf,
  buyerId,
  deliver,
  interact,
  intOption,
  LOG_CHANNEL,
  ROLE,
  said,
  useConsole,
  slash,
  TEAM_ROLES,
  textOption,
  userOption,
  APP,
  GUILD,
  type Console,
  type TeamRole,
} from './console-helpers.ts';

// Contract §24.3: staff commands by team role, each the same domain call as the dashboard's, audited via Discord.

const setup = useConsole();
let discord: FakeDiscord;
let t: TestApp;
let c: Console;
beforeAll(() => void ({ t, c, discord } = setup));

const keysOf = (user: string) =>
  Promise.all([
    t.ctx.db.selectFrom('generatedKeys').selectAll().where('serviceId', '=', c.s.id).where('chatId', '=', user).execute(),
    t.ctx.db.selectFrom('activeKeys').selectAll().where('serviceId', '=', c.s.id).where('chatId', '=', user).execute(),
  ]).then(([g, a]) => [...g, ...a]);

/** A buyer holding one key that ran once on a device. */
async function buyerWithKey() {
  const user = buyerId();
  const [key] = await generateKeys(t.app, c.s.serviceKey, { expirationType: 'byDays', days: 30, chatId: user });
  const v = await call(t.app, 'POST', '/api/v1/keys/validate', { body: { service: c.s.id, key, hwid: 'hwid-abcdefgh-1' } });
  expect(v.status).toBe(200);
  return { user, key: key! };
}

const ALLOWED: Record<string, TeamRole[]> = {
  whitelist: ['owner', 'manager', 'reseller'],
  blacklist: ['owner', 'manager', 'support'],
  unblacklist: ['owner', 'manager', 'support'],
  'user-info': ['owner', 'manager', 'support', 'reseller'],
  'force-resethwid': ['owner', 'manager', 'support'],
  compensate: ['owner', 'manager'],
  'mass-whitelist': ['owner', 'manager'],
};

const cases = Object.entries(ALLOWED).flatMap(([command, allowed]) =>
  TEAM_ROLES.map((role) => ({ command, role, allowed: allowed.includes(role) })),
);

describe('each command for each role', () => {
  it.each(cases)('/$command by $role: allowed=$allowed', async ({ command, role, allowed }) => {
    const { user, key } = await buyerWithKey();
    const options =
      command === 'compensate'
        ? [intOption('days', 2)]
        : command === 'mass-whitelist'
          ? [{ name: 'role', type: 8, value: ROLE }]
          : [userOption(user)];
    const answer = await interact(t, c, slash(c.discordIds[role], command, options));
    if (role === 'stranger') {
      expect(answer.data?.content).toBe("You are not on this service's team.");
      return;
    }
    if (!allowed) {
      expect(answer.data?.content).toBe(`Your role on this service (${role}) does not allow /${command}.`);
      expect((await keysOf(user)).map((k) => k.status)).toEqual(['active']);
      return;
    }
    if (command === 'mass-whitelist') {
      expect(answer.type).toBe(5);
      await deliver(t);
      return;
    }
    expect(answer.type).toBe(4);
    const content = answer.data!.content!;
    expect(content).not.toMatch(/not on this service's team|does not allow/);
    if (command === 'user-info') {
      // A reseller sees only keys it made; this one the owner made.
      if (role === 'reseller') expect(content).toMatch(/no key of this service that you made/);
      else expect(content).toContain(key);
      return;
    }
    const action = {
      whitelist: 'key.generate',
      blacklist: 'key.update',
      unblacklist: 'key.update',
      'force-resethwid': 'key.resetHwid',
      compensate: 'keys.compensate',
    }[command]!;
    const entries = (await auditOf(t, c.s.id, action)).filter((e) => e.actorAccountId === c.accounts[role].id);
    if (command === 'unblacklist') {
      expect(content).toMatch(/no banned key/);
      return;
    }
    expect(entries.length, content).toBeGreaterThan(0);
    const last = entries.at(-1)!;
    expect(last.actorKind).toBe('discord');
    expect(last.actorUsername).toBe(c.accounts[role].username);
    expect(JSON.parse(last.details).via).toBe('discord');
  });
});

describe('/whitelist', () => {
  it('makes a linked key, answers it with the snippet, grants the role and tells the log channel', async () => {
    const user = buyerId();
    const content = await said(
      t,
      c,
      slash(c.discordIds.manager, 'whitelist', [userOption(user), intOption('days', 7), textOption('note', 'vip')]),
    );
    const [row] = await keysOf(user);
    expect(row).toMatchObject({ chatId: user, note: 'vip', expirationType: 'byDays', createdBy: c.accounts.manager.id });
    expect(content).toContain(row!.key);
    expect(content).toMatch(/Made a 7-day key/);
    await deliver(t);
    expect(discord.paths()).toContain(`PUT /api/v10/guilds/${GUILD}/members/${user}/roles/${ROLE}`);
    const notice = discord.calls.find((x) => x.path === `/api/v10/channels/${LOG_CHANNEL}/messages`);
    expect(JSON.stringify(notice?.body)).toMatch(/User whitelisted/);
    expect(notice?.headers.authorization).toMatch(/^Bot /);
  });

  it("spends a reseller's quota with the same generate, and refuses in words when it is spent", async () => {
    const before = await t.ctx.db
      .selectFrom('serviceMembers')
      .select('keysLeft')
      .where('accountId', '=', c.accounts.reseller.id)
      .executeTakeFirstOrThrow();
    const user = buyerId();
    await said(t, c, slash(c.discordIds.reseller, 'whitelist', [userOption(user)]));
    const after = await t.ctx.db
      .selectFrom('serviceMembers')
      .select('keysLeft')
      .where('accountId', '=', c.accounts.reseller.id)
      .executeTakeFirstOrThrow();
    expect(after.keysLeft).toBe(before.keysLeft! - 1);
    await t.ctx.db.updateTable('serviceMembers').set({ keysLeft: 0 }).where('accountId', '=', c.accounts.reseller.id).execute();
    const other = buyerId();
    expect(await said(t, c, slash(c.discordIds.reseller, 'whitelist', [userOption(other)]))).toMatch(/quota.*0 left/);
    expect(await keysOf(other)).toHaveLength(0);
    await t.ctx.db.updateTable('serviceMembers').set({ keysLeft: 100 }).where('accountId', '=', c.accounts.reseller.id).execute();
  });

  it('does the work once when Discord retries the same interaction id', async () => {
    const user = buyerId();
    const payload = slash(c.discordIds.owner, 'whitelist', [userOption(user)]);
    const first = await interact(t, c, payload);
    const again = await interact(t, c, payload);
    expect(again).toEqual(first);
    expect(await keysOf(user)).toHaveLength(1);
    expect(
      (await auditOf(t, c.s.id, 'key.generate')).filter((e) => e.target === (first.data!.content!.match(/`(\w{32})`/) ?? [])[1]),
    ).toHaveLength(1);
  });
});

describe('/blacklist and /unblacklist', () => {
  it('bans every key of the user with reason and end, tells the channel, and lifts it again', async () => {
    const { user, key } = await buyerWithKey();
    const content = await said(
      t,
      c,
      slash(c.discordIds.support, 'blacklist', [userOption(user), textOption('reason', 'chargeback'), intOption('days', 3)]),
    );
    expect(content).toMatch(/Banned 1 key/);
    const [row] = await keysOf(user);
    expect(row).toMatchObject({ key, status: 'banned', banReason: 'chargeback', banExpiresAt: t.clock.now + 3 * 86_400_000 });
    await deliver(t);
    const notice = discord.calls.find((x) => x.path === `/api/v10/channels/${LOG_CHANNEL}/messages`);
    expect(JSON.stringify(notice?.body)).toMatch(/User banned.*chargeback/);
    expect(await said(t, c, slash(c.discordIds.support, 'unblacklist', [userOption(user)]))).toMatch(/Lifted the ban on 1 key/);
    expect((await keysOf(user))[0]?.status).toBe('active');
  });
});

describe('/force-resethwid', () => {
  it("resets the user's HWIDs without the cooldown and posts the fingerprint", async () => {
    const { user, key } = await buyerWithKey();
    await said(t, c, slash(c.discordIds.owner, 'force-resethwid', [userOption(user)]));
    expect(await said(t, c, slash(c.discordIds.owner, 'force-resethwid', [userOption(user)]))).toMatch(/nothing to reset/);
    const row = await t.ctx.db.selectFrom('activeKeys').select('hwid').where('key', '=', key).executeTakeFirstOrThrow();
    expect(row.hwid).toBeNull();
    await deliver(t);
    const notice = discord.calls.find((x) => JSON.stringify(x.body).includes('HWID reset'));
    expect(JSON.stringify(notice?.body)).toContain('hwid-abc');
  });
});

describe('/compensate', () => {
  it('adds days to every key with an expiry', async () => {
    const { key } = await buyerWithKey();
    const before = await t.ctx.db.selectFrom('activeKeys').select('expiresAt').where('key', '=', key).executeTakeFirstOrThrow();
    expect(await said(t, c, slash(c.discordIds.manager, 'compensate', [intOption('days', 2)]))).toMatch(/Added 2 day/);
    const after = await t.ctx.db.selectFrom('activeKeys').select('expiresAt').where('key', '=', key).executeTakeFirstOrThrow();
    expect(after.expiresAt).toBe(before.expiresAt! + 2 * 86_400_000);
    expect(await said(t, c, slash(c.discordIds.manager, 'compensate', [intOption('days', 400)]))).toMatch(/1 to 365/);
  });
});

describe('/mass-whitelist', () => {
  it('answers deferred at once, reads the members page by page, and finishes through the follow-up', async () => {
    const holders = [buyerId(), buyerId(), buyerId()];
    const { user: alreadyHas } = await buyerWithKey();
    // 1000 members fill the first page, so the second is read after the last id.
    discord.members = Array.from({ length: 1000 }, (_, i) => ({
      user: { id: String(730000000000000000n + BigInt(i)) },
      roles: [] as string[],
    }));
    discord.members.push(...[...holders, alreadyHas].map((id) => ({ user: { id }, roles: [ROLE] })));
    discord.members.push({ user: { id: '739999999999999999', bot: true }, roles: [ROLE] });
    discord.members.sort((a, b) => (BigInt(a.user.id) < BigInt(b.user.id) ? -1 : 1));
    const payload = slash(c.discordIds.owner, 'mass-whitelist', [{ name: 'role', type: 8, value: ROLE }, intOption('days', 5)]);
    const answer = await interact(t, c, payload);
    expect(answer).toEqual({ type: 5, data: { flags: 64 } });
    // A retry while the work waits is answered the same way and queues nothing more.
    expect(await interact(t, c, payload)).toEqual({ type: 5, data: { flags: 64 } });
    await deliver(t);
    const pages = discord.paths('GET').filter((p) => p.includes(`/guilds/${GUILD}/members?`));
    expect(pages).toHaveLength(2);
    expect(pages[0]).toContain('limit=1000&after=0');
    for (const h of holders) expect(await keysOf(h)).toHaveLength(1);
    expect(await keysOf(alreadyHas)).toHaveLength(1);
    const followUp = discord.calls.filter(
      (x) => x.method === 'PATCH' && x.path === `/api/v10/webhooks/${APP}/${payload.token}/messages/@original`,
    );
    expect(followUp).toHaveLength(1);
    expect((followUp[0]!.body as { content: string }).content).toMatch(/3 got a new 5-day key, 1 already had/);
    // The log channel's notice carries the counts (§24.4 mass actions).
    const notice = discord.calls.find((x) => x.path === `/api/v10/channels/${LOG_CHANNEL}/messages`);
    const fields = (notice?.body as { embeds: Array<{ title: string; fields: Array<{ name: string; value: string }> }> }).embeds[0]!;
    expect(fields.title).toBe('Mass whitelist');
    expect(Object.fromEntries(fields.fields.map((f) => [f.name, f.value]))).toMatchObject({
      'Role holders': '4',
      'Keys made': '3',
      'Already had one': '1',
    });
    // Discord's retry after the work finished reads the result; nothing runs again.
    expect((await interact(t, c, payload)).data?.content).toMatch(/3 got a new/);
    await deliver(t);
    for (const h of holders) expect(await keysOf(h)).toHaveLength(1);
  });
});

describe('while Discord hangs or refuses', () => {
  it.each(['hang', '429', '500'] as const)('every interaction is still answered (Discord: %s)', async (mode) => {
    const { user } = await buyerWithKey();
    discord.mode = mode;
    // A delivery pass under way against the unwell Discord (role grant and notice queued by this whitelist).
    const whitelisted = await said(t, c, slash(c.discordIds.owner, 'whitelist', [userOption(buyerId())]));
    expect(whitelisted).toMatch(/Made a lifetime key/);
    const pass = deliver(t);
    if (mode === 'hang') await discord.waitForCall(() => discord.holding > 0);
    expect(await said(t, c, slash(c.discordIds.support, 'user-info', [userOption(user)]))).toContain('Keys of');
    expect((await interact(t, c, slash(c.discordIds.owner, 'mass-whitelist', [{ name: 'role', type: 8, value: ROLE }]))).type).toBe(5);
    if (mode === 'hang') expect(discord.holding).toBeGreaterThan(0);
    discord.release();
    await pass;
  });
});

describe('a command slower than Discord waits', () => {
  // PostgreSQL: another transaction holds the buyer's key row, so the reset waits on the database past the deadline of
  // chat-interactions.ts. (SQLite's statements run on the event loop: a held write there stops the timer too.)
  it('answers "thinking" at the deadline, and the result follows through the follow-up once the work is done', async () => {
    if (testDialect() === 'sqlite') return;
    const { user, key } = await buyerWithKey();
    const holder = new pg.Client({ connectionString: t.database.env.DATABASE_URL });
    await holder.connect();
    const payload = slash(c.discordIds.support, 'force-resethwid', [userOption(user)]);
    try {
      await holder.query('begin');
      await holder.query('select 1 from active_keys where key = $1 for update', [key]);
      const answer = await interact(t, c, payload);
      expect(answer.type).toBe(5);
      // Discord retries the same id while the work waits: "thinking" again, nothing done twice.
      expect((await interact(t, c, payload)).type).toBe(5);
      await holder.query('commit');
    } finally {
      await holder.end();
    }
    const original = `/api/v10/webhooks/${payload.application_id}/${payload.token}/messages/@original`;
    // The reset goes on once the row is free and queues its follow-up; the delivery job sends it.
    while (!(await t.ctx.db.selectFrom('webhookOutbox').select('id').where('payload', 'like', `%${payload.token}%`).executeTakeFirst()))
      await new Promise((resolve) => setImmediate(resolve));
    await deliver(t);
    const sent = discord.calls.find((call) => call.method === 'PATCH' && call.path === original)!;
    expect(JSON.stringify(sent.body)).toContain(`Reset the HWID of 1 key of <@${user}>`);
    const resets = (await auditOf(t, c.s.id, 'key.resetHwid')).filter((e) => e.actorAccountId === c.accounts.support.id);
    expect(resets.filter((e) => e.target === key)).toHaveLength(1);
    // A retry after the end reads the result instead of acting again.
    expect(await said(t, c, payload)).toContain('Reset the HWID of 1 key');
  });
});

describe('the same events as the dashboard', () => {
  it('fires key.banned for /blacklist and key.hwidReset for /force-resethwid, and tells the channel of the unban', async () => {
    const endpoint = await call(t.app, 'POST', '/api/v1/keys/api/event-endpoints', {
      key: c.s.serviceKey,
      body: { url: `${discord.origin}/hook`, events: ['key.banned', 'key.hwidReset'] },
    });
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
    const { user, key } = await buyerWithKey();
    await said(t, c, slash(c.discordIds.support, 'blacklist', [userOption(user)]));
    await said(t, c, slash(c.discordIds.support, 'unblacklist', [userOption(user)]));
    await said(t, c, slash(c.discordIds.support, 'force-resethwid', [userOption(user)]));
    const events = await t.ctx.db
      .selectFrom('webhookOutbox')
      .select('payload')
      .where('serviceId', '=', c.s.id)
      .where('kind', '=', 'event')
      .execute();
    const fired = events.map((e) => JSON.parse(e.payload) as { type: string; data: { key: string } });
    expect(fired.map((e) => [e.type, e.data.key]).sort()).toEqual([
      ['key.banned', key],
      ['key.hwidReset', key],
    ]);
    await deliver(t);
    const notices = discord.calls.filter((x) => x.path === `/api/v10/channels/${LOG_CHANNEL}/messages`).map((x) => JSON.stringify(x.body));
    expect(notices.some((n) => /User unbanned/.test(n))).toBe(true);
    // The endpoint would take the events of the tests after this one.
    const removed = await call(t.app, 'DELETE', `/api/v1/keys/api/event-endpoints?id=${endpoint.body.data.id}`, { key: c.s.serviceKey });
    expect(removed.status).toBe(200);
  });
});
