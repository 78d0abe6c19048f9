import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { SIGNIN_ENV } from '../signin/helpers.ts';
import { FakeDiscord } from './fake-discord.ts';
import { call, seedAccount, seedService, type SeededAccount, type SeededService } from '../helpers/seed.ts';
import { addMember } from '../teams/team-helpers.ts';
import { runOutboxLanes } from '../../src/modules/webhook/outbox-lanes.ts';
import { ChatSigner, interactionId, sendInteraction } from './interactions.ts';

// The console's tests share one seller's setup: a service bound to a Discord server, with the bot, role, application
// and log channel set, and a team whose members linked their Discord users (contract §24).

export const GUILD = '710000000000000001';
export const APP = '710000000000000002';
export const ROLE = '710000000000000003';
export const LOG_CHANNEL = '710000000000000004';
export const BOT_TOKEN = 'MTAx.console-bot-token_for.tests-0123456789';
export const signer = new ChatSigner();

export type TeamRole = 'owner' | 'manager' | 'support' | 'reseller' | 'stranger';
export const TEAM_ROLES: TeamRole[] = ['owner', 'manager', 'support', 'reseller', 'stranger'];

export interface Console {
  s: SeededService;
  accounts: Record<TeamRole, SeededAccount>;
  discordIds: Record<TeamRole, string>;
}

let userCounter = 0;
/** A fresh Discord user id for a buyer in one test. */
export const buyerId = () => String(720000000000000000n + BigInt(++userCounter) * 7n + BigInt(process.pid % 5));

export async function setUpConsole(t: TestApp): Promise<Console> {
  const s = await seedService(t.ctx);
  expect(
    (await call(t.app, 'POST', '/api/v1/keys/api/chat/connect', { key: s.serviceKey, body: { guildId: GUILD, guildName: 'Shop' } })).status,
  ).toBe(200);
  const settings = await call(t.app, 'PUT', '/api/v1/keys/api/settings', {
    key: s.serviceKey,
    body: {
      chatInteractionsPublicKey: signer.publicKeyHex,
      chatBotToken: BOT_TOKEN,
      chatRoleId: ROLE,
      chatApplicationId: APP,
      chatLogChannelId: LOG_CHANNEL,
    },
  });
  expect(settings.status, JSON.stringify(settings.body)).toBe(200);
  const accounts: Record<TeamRole, SeededAccount> = {
    owner: s.account,
    manager: await addMember(t.app, t.ctx, s, 'manager'),
    support: await addMember(t.app, t.ctx, s, 'support'),
    reseller: await addMember(t.app, t.ctx, s, 'reseller', { keysLeft: 100, allowLifetime: true }),
    stranger: await seedAccount(t.ctx),
  };
  const discordIds = {} as Record<TeamRole, string>;
  for (const role of TEAM_ROLES) {
    discordIds[role] = buyerId();
    const res = await call(t.app, 'PATCH', '/api/v1/account', {
      key: accounts[role].accountKey,
      body: { discordUserId: discordIds[role] },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
  return { s, accounts, discordIds };
}

const member = (userId: string) => ({ guild_id: GUILD, member: { user: { id: userId, username: 'someone' }, roles: [] } });

export interface Option {
  name: string;
  type: number;
  value: string | number;
}

export const userOption = (value: string): Option => ({ name: 'user', type: 6, value });
export const intOption = (name: string, value: number): Option => ({ name, type: 4, value });
export const textOption = (name: string, value: string): Option => ({ name, type: 3, value });

export const slash = (userId: string, name: string, options: Option[] = [], id = interactionId()) => ({
  id,
  application_id: APP,
  type: 2,
  token: `token-${id}`,
  version: 1,
  ...member(userId),
  data: { id: '710000000000000099', name, type: 1, options },
});

export const button = (userId: string, customId: string, id = interactionId()) => ({
  id,
  application_id: APP,
  type: 3,
  token: `token-${id}`,
  version: 1,
  ...member(userId),
  message: { id: '710000000000000098' },
  data: { custom_id: customId, component_type: 2 },
});

export const modalSubmit = (userId: string, key: string, id = interactionId()) => ({
  id,
  application_id: APP,
  type: 5,
  token: `token-${id}`,
  version: 1,
  ...member(userId),
  data: { custom_id: 'kw:redeem-modal', components: [{ type: 1, components: [{ type: 4, custom_id: 'key', value: key }] }] },
});

/** Sends a signed interaction as Discord does and answers Discord's view of the reply. */
export async function interact(t: TestApp, c: Console, payload: unknown) {
  const res = await sendInteraction(t.app, c.s.identifier, payload, { signer, at: t.clock.now });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { type: number; data?: { content?: string; flags?: number; custom_id?: string; components?: unknown[] } };
}

/** The text of a direct answer (type 4, only for the clicker). */
export async function said(t: TestApp, c: Console, payload: unknown): Promise<string> {
  const body = await interact(t, c, payload);
  expect(body.type, JSON.stringify(body)).toBe(4);
  expect(body.data?.flags).toBe(64);
  return body.data!.content!;
}

/** Runs the delivery job's passes until nothing is due: what the worker does on its ticks. */
export async function deliver(t: TestApp) {
  for (let i = 0; i < 50; i += 1) {
    await t.ctx.jobs.settled();
    const due = await t.ctx.db
      .selectFrom('webhookOutbox')
      .select('id')
      .where('status', '=', 'pending')
      .where('nextAttemptAt', '<=', t.clock.now)
      .limit(1)
      .execute();
    if (due.length === 0) break;
    await runOutboxLanes(t.ctx);
  }
  await t.ctx.jobs.settled();
}

export const auditOf = (t: TestApp, serviceId: string, action: string) =>
  t.ctx.db.selectFrom('auditLog').selectAll().where('serviceId', '=', serviceId).where('action', '=', action).orderBy('at').execute();

export interface ConsoleSetup {
  t: TestApp;
  c: Console;
  discord: FakeDiscord;
}

/**
 * Starts a fake Discord and an app pointed at it, sets up the console once for the file, and (unless told not to)
 * delivers what is due and forgets Discord's calls before each test, so a test reads only the calls it caused.
 * The fields are filled in the file's first beforeAll.
 */
export function useConsole({ resetEachTest = true } = {}): ConsoleSetup {
  const setup = {} as ConsoleSetup;
  beforeAll(async () => {
    setup.discord = await new FakeDiscord().start();
    // The fake Discord also stands in for an event receiver, so a test can read the events an action fires.
    const origin = setup.discord.origin;
    // A buyer's self-serve reset solves a captcha: SIGNIN_ENV's small one, as every test that solves one.
    setup.t = await startTestApp({
      DISCORD_API_URL: origin,
      EVENT_WEBHOOK_ORIGINS: origin,
      WEBHOOK_WORKER_INTERVAL_MS: '0',
      CAPTCHA_MAX_NUMBER: SIGNIN_ENV.CAPTCHA_MAX_NUMBER,
    });
    setup.c = await setUpConsole(setup.t);
  });
  afterAll(async () => {
    await setup.t?.app.close();
    await setup.t?.database.drop();
    await setup.discord?.stop();
  });
  if (resetEachTest)
    beforeEach(async () => {
      await deliver(setup.t);
      setup.discord.reset();
    });
  return setup;
}
