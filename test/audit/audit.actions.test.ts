import { describe, expect, it } from 'vitest';
import type { App } from '../../src/app.ts';
import { useTestApp } from '../helpers/app.ts';
import { call, generateKeys, seedAccount, seedService, type SeededService } from '../helpers/seed.ts';
import { SIGNIN_ENV, signIn, solvedCaptcha, totpCode } from '../signin/helpers.ts';
import { ChatSigner, command, sendInteraction } from '../chat/interactions.ts';

const t = useTestApp(SIGNIN_ENV);
const WEBHOOK_TOKEN = 'WebhookTokenSecret0123456789';
const SCRIPT_CODE = 'print("SCRIPT-CODE-SECRET-91b2")';

type Call = {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  body?: unknown;
  headers?: Record<string, string>;
  key?: string;
};

async function entries(
  app: App,
  url: string,
  auth: { key?: string; headers?: Record<string, string> },
  query: Record<string, string> = {},
) {
  const res = await call(app, 'GET', `${url}?${new URLSearchParams({ limit: '100', ...query })}`, auth);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.items as Array<{
    id: string;
    at: string;
    action: string;
    actor: { kind: string; accountId: string | null; username: string | null };
    ip: string | null;
    target: string | null;
    details: Record<string, unknown>;
  }>;
}

const serviceLog = (s: SeededService, query: Record<string, string> = {}) =>
  entries(t().app, '/api/v1/keys/api/audit', { key: s.serviceKey }, query);

describe('every change writes exactly one entry', () => {
  it('service actions through the service key', async () => {
    const { app } = t();
    const s = await seedService(t().ctx);
    const [generated, toActivate] = await generateKeys(app, s.serviceKey, { expirationType: 'byDays', days: 5, count: 2 });
    await call(app, 'GET', `/api/v1/keys/validate?service=${s.identifier}&key=${toActivate}&hwid=device-1`);
    const k = { key: s.serviceKey };
    const cases: Array<[string, Call, string | null, Record<string, unknown>?]> = [
      [
        'key.generate',
        { method: 'POST', url: '/api/v1/keys/api/generate', body: { expirationType: 'lifetime', count: 3 } },
        null,
        { count: 3 },
      ],
      ['key.update', { method: 'PUT', url: '/api/v1/keys/api/key', body: { key: toActivate, note: 'vip' } }, toActivate!, { note: 'vip' }],
      [
        'key.extend',
        { method: 'POST', url: '/api/v1/keys/api/key/extend-expiration', body: { key: generated, days: 3 } },
        generated!,
        { days: 3 },
      ],
      ['key.resetHwid', { method: 'POST', url: '/api/v1/keys/reset-hwid', body: { key: toActivate } }, toActivate!],
      [
        'keys.compensate',
        { method: 'POST', url: '/api/v1/keys/api/compensate', body: { days: 1 } },
        null,
        { days: 1, activeKeysUpdated: 1 },
      ],
      ['keyless.add', { method: 'POST', url: '/api/v1/keys/api/keyless', body: { hwid: 'kl-1' } }, 'kl-1'],
      ['keyless.delete', { method: 'DELETE', url: '/api/v1/keys/api/keyless?hwid=kl-1' }, 'kl-1'],
      [
        'blacklist.add',
        { method: 'POST', url: '/api/v1/keys/api/blacklist', body: { hwid: 'bad-1', reason: 'cheater' } },
        'bad-1',
        { reason: 'cheater' },
      ],
      ['blacklist.delete', { method: 'DELETE', url: '/api/v1/keys/api/blacklist?hwid=bad-1' }, 'bad-1'],
      [
        'settings.update',
        {
          method: 'PUT',
          url: '/api/v1/keys/api/settings',
          body: { webhookUrl: `https://discord.com/api/webhooks/123456789012345678/${WEBHOOK_TOKEN}`, hwidResetCooldownFreeHours: 2 },
        },
        null,
        { webhookUrl: 'set', hwidResetCooldownFreeHours: 2 },
      ],
      [
        'chat.connect',
        { method: 'POST', url: '/api/v1/keys/api/chat/connect', body: { guildId: '123456789012345678', guildName: 'Guild' } },
        '123456789012345678',
      ],
      ['chat.disconnect', { method: 'POST', url: '/api/v1/keys/api/chat/disconnect' }, '123456789012345678'],
      [
        'script.create',
        { method: 'POST', url: '/api/v1/vss/api/scripts', body: { name: 'game', code: SCRIPT_CODE } },
        null,
        { name: 'game' },
      ],
      [
        'script.update',
        { method: 'PUT', url: '/api/v1/vss/api/scripts/game', body: { code: SCRIPT_CODE + ' ' } },
        null,
        { codeChanged: true },
      ],
      ['script.delete', { method: 'DELETE', url: '/api/v1/vss/api/scripts/game' }, null, { name: 'game' }],
      ['key.delete', { method: 'DELETE', url: `/api/v1/keys/api/key?key=${toActivate}` }, toActivate!],
    ];
    for (const [action, request, target, details] of cases) {
      t().clock.advance(1); // newest first is by time: each entry gets its own millisecond
      const before = (await serviceLog(s, { action })).length;
      const res = await call(app, request.method, request.url, { ...k, body: request.body });
      expect(res.status, `${action}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
      const found = await serviceLog(s, { action });
      expect(found.length - before, action).toBe(1);
      expect(found[0]!.actor, action).toEqual({ kind: 'service-key', accountId: s.account.id, username: null });
      if (target !== null) expect(found[0]!.target, action).toBe(target);
      if (details) expect(found[0]!.details, action).toMatchObject(details);
    }
    // A refused change writes no entry: a duplicate (refused by the database inside the transaction) and a missing key.
    const keylessBefore = (await serviceLog(s, { action: 'keyless.add' })).length;
    expect((await call(app, 'POST', '/api/v1/keys/api/keyless', { ...k, body: { hwid: 'dup' } })).status).toBe(201);
    expect((await call(app, 'POST', '/api/v1/keys/api/keyless', { ...k, body: { hwid: 'dup' } })).status).toBe(409);
    expect((await serviceLog(s, { action: 'keyless.add' })).length).toBe(keylessBefore + 1);
    expect((await call(app, 'PUT', '/api/v1/keys/api/generated-key', { ...k, body: { key: 'NoSuchKey0000000', note: 'x' } })).status).toBe(
      404,
    );
    expect((await call(app, 'DELETE', '/api/v1/keys/api/key?key=NoSuchKey0000000', k)).status).toBe(404);
    expect(await serviceLog(s, { action: 'key.update' })).toHaveLength(1);
    expect(await serviceLog(s, { action: 'key.delete' })).toHaveLength(1);

    // The account's log holds its services' entries too (the seed's service.create and generate included).
    const accountLog = await entries(app, '/api/v1/account/audit', { key: s.account.accountKey });
    expect(accountLog.length).toBe(cases.length + 3);
    const everything = JSON.stringify(accountLog);
    for (const secret of [s.serviceKey, s.account.accountKey, WEBHOOK_TOKEN, SCRIPT_CODE, 'SCRIPT-CODE-SECRET'])
      expect(everything).not.toContain(secret);
  });

  it('an end user resetting on the self-serve page is the actor', async () => {
    const { app } = t();
    const s = await seedService(t().ctx);
    const [key] = await generateKeys(app, s.serviceKey);
    await call(app, 'GET', `/api/v1/keys/validate?service=${s.identifier}&key=${key}&hwid=device-1`);
    const res = await call(app, 'POST', '/api/v1/public/reset-hwid', {
      body: { service: s.identifier, key, captcha: await solvedCaptcha(app) },
      remoteAddress: '203.0.113.9',
    });
    expect(res.status).toBe(200);
    const [entry, ...rest] = await serviceLog(s, { action: 'key.resetHwid' });
    expect(rest).toHaveLength(0);
    expect(entry).toMatchObject({ actor: { kind: 'end-user', accountId: null }, ip: '203.0.113.9', target: key });
  });

  it('chat commands act as an end user with no address: /redeem is a key.update, /resethwid a key.resetHwid', async () => {
    const { app, clock } = t();
    const s = await seedService(t().ctx);
    const signer = new ChatSigner();
    const [guild, user] = ['423456789012345678', '523456789012345678'];
    await call(app, 'PUT', '/api/v1/keys/api/settings', { key: s.serviceKey, body: { chatInteractionsPublicKey: signer.publicKeyHex } });
    await call(app, 'POST', '/api/v1/keys/api/chat/connect', { key: s.serviceKey, body: { guildId: guild, guildName: 'Home' } });
    const [key] = await generateKeys(app, s.serviceKey);
    await call(app, 'GET', `/api/v1/keys/validate?service=${s.identifier}&key=${key}&hwid=device-1`);
    const send = (name: string, options?: Array<{ name: string; type: number; value: string }>) =>
      sendInteraction(app, s.identifier, command(guild, user, name, options), { signer, at: clock.now });
    expect((await send('redeem', [{ name: 'key', type: 3, value: key! }])).status).toBe(200);
    expect((await send('resethwid')).body.data.content).toMatch(/has been reset/);
    const endUser = { actor: { kind: 'end-user', accountId: null, username: null }, ip: null, target: key };
    expect(await serviceLog(s, { action: 'key.update' })).toEqual([expect.objectContaining({ ...endUser, details: { chatId: user } })]);
    expect(await serviceLog(s, { action: 'key.resetHwid' })).toEqual([expect.objectContaining(endUser)]);
  });

  it('account actions through the account key and a session', async () => {
    const { app, clock } = t();
    const account = await seedAccount(t().ctx);
    const k = { key: account.accountKey };
    const created = await call(app, 'POST', '/api/v1/services', { ...k, body: { name: 'Audited', identifier: 'audited-svc' } });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    const cases: Array<[string, Call]> = [
      ['service.update', { method: 'PATCH', url: `/api/v1/services/${id}`, body: { name: 'Renamed' } }],
      ['serviceKey.regenerate', { method: 'POST', url: `/api/v1/services/${id}/api-key/regenerate` }],
      ['permissions.update', { method: 'PATCH', url: `/api/v1/services/${id}/permissions`, body: { allowVss: false } }],
      ['ipAllowlist.update', { method: 'PUT', url: `/api/v1/services/${id}/ip-allowlist`, body: { entries: ['10.0.0.0/8'] } }],
      ['service.delete', { method: 'DELETE', url: `/api/v1/services/${id}` }],
    ];
    const secrets: string[] = [account.accountKey, account.password];
    for (const [action, request] of cases) {
      const res = await call(app, request.method, request.url, { ...k, body: request.body });
      expect(res.status, `${action}: ${JSON.stringify(res.body)}`).toBe(200);
      if (action === 'serviceKey.regenerate') secrets.push(res.body.data.apiKey);
    }
    const log = async (action: string) => entries(app, '/api/v1/account/audit', k, { action });
    for (const action of ['service.create', ...cases.map(([a]) => a)]) {
      const found = await log(action);
      expect(found, action).toHaveLength(1);
      expect(found[0], action).toMatchObject({ actor: { kind: 'account-key', accountId: account.id }, target: id });
    }
    // A duplicate identifier is refused, and its transaction writes no entry.
    const other = await seedAccount(t().ctx);
    await call(app, 'POST', '/api/v1/services', { key: other.accountKey, body: { name: 'Taken', identifier: 'taken-svc' } });
    expect((await call(app, 'POST', '/api/v1/services', { ...k, body: { name: 'Taken', identifier: 'taken-svc' } })).status).toBe(409);
    expect(await log('service.create')).toHaveLength(1);

    // Sign-in: a wrong password, then a session, then two-factor on and off through it.
    expect(
      (
        await call(app, 'POST', '/api/v1/auth/login', {
          body: { username: account.username, password: 'wrong password!', captcha: await solvedCaptcha(app) },
        })
      ).status,
    ).toBe(401);
    const session = await signIn(app, account);
    const setup = await call(app, 'POST', '/api/v1/account/2fa/setup', { headers: session.headers });
    const totpSecret = setup.body.data.secret as string;
    secrets.push(totpSecret);
    expect(
      (await call(app, 'POST', '/api/v1/account/2fa/enable', { headers: session.headers, body: { totp: totpCode(totpSecret, clock.now) } }))
        .status,
    ).toBe(200);
    clock.advance(30_000);
    expect(
      (
        await call(app, 'POST', '/api/v1/account/2fa/disable', {
          headers: session.headers,
          body: { totp: totpCode(totpSecret, clock.now) },
        })
      ).status,
    ).toBe(200);
    const regenerated = await call(app, 'POST', '/api/v1/account/api-key/regenerate', { headers: session.headers });
    expect(regenerated.status).toBe(200);
    const newKey = { key: regenerated.body.data.apiKey as string };
    secrets.push(newKey.key);

    const failed = await entries(app, '/api/v1/account/audit', newKey, { action: 'login.failed' });
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ actor: { kind: 'end-user', accountId: null }, details: { reason: 'password' } });
    for (const action of ['login', 'twoFactor.enable', 'twoFactor.disable', 'accountKey.regenerate']) {
      const found = await entries(app, '/api/v1/account/audit', newKey, { action });
      expect(found, action).toHaveLength(1);
      expect(found[0]!.actor, action).toEqual({ kind: 'session', accountId: account.id, username: account.username });
    }
    const everything = JSON.stringify(await entries(app, '/api/v1/account/audit', newKey));
    for (const secret of secrets) expect(everything).not.toContain(secret);
  });
});

describe('listing', () => {
  it('is newest first, paged, filtered by action and time, and shows only the caller’s entries', async () => {
    const { app, clock } = t();
    const s = await seedService(t().ctx);
    const other = await seedService(t().ctx);
    const start = clock.now;
    for (let i = 0; i < 5; i++) {
      clock.advance(60_000);
      await call(app, 'POST', '/api/v1/keys/api/keyless', { key: s.serviceKey, body: { hwid: `hw-${i}` } });
    }
    await call(app, 'POST', '/api/v1/keys/api/blacklist', { key: other.serviceKey, body: { hwid: 'elsewhere' } });

    const all = await serviceLog(s, { action: 'keyless.add' });
    expect(all.map((e) => e.target)).toEqual(['hw-4', 'hw-3', 'hw-2', 'hw-1', 'hw-0']);
    const page = await call(app, 'GET', '/api/v1/keys/api/audit?action=keyless.add&limit=2&page=2', { key: s.serviceKey });
    expect(page.body.data).toMatchObject({ page: 2, limit: 2, total: 5, totalPages: 3 });
    expect(page.body.data.items.map((e: { target: string }) => e.target)).toEqual(['hw-2', 'hw-1']);
    const window = await serviceLog(s, { from: new Date(start + 2 * 60_000).toISOString(), to: String(start + 3 * 60_000) });
    expect(window.map((e) => e.target)).toEqual(['hw-2', 'hw-1']);
    expect(await serviceLog(s, { action: 'blacklist.add' })).toHaveLength(0);

    // Another account sees none of it, on either route.
    expect(JSON.stringify(await entries(app, '/api/v1/account/audit', { key: other.account.accountKey }))).not.toContain('hw-');
    const foreign = await call(app, 'GET', '/api/v1/keys/api/audit', { key: other.account.accountKey, headers: { 'x-service-id': s.id } });
    expect(foreign.status).toBe(404);
  });

  it('refuses bad filters and paging with 400 naming the field', async () => {
    const s = await seedService(t().ctx);
    const cases: Array<[string, string]> = [
      ['action=key.nope', 'action'],
      ['limit=101', 'limit'],
      ['page=0', 'page'],
      ['from=yesterday', 'from'],
      ['from=2026-11-22T10:00:00.000Z&to=2026-11-21T10:00:00.000Z', 'from'],
      ['unknown=1', 'unknown'],
    ];
    for (const [query, field] of cases) {
      const res = await call(t().app, 'GET', `/api/v1/keys/api/audit?${query}`, { key: s.serviceKey });
      expect(res.status, query).toBe(400);
      expect(res.body.code, query).toBe('VALIDATION_ERROR');
      if (field !== 'unknown') expect(res.body.field, query).toBe(field);
    }
    expect((await call(t().app, 'GET', '/api/v1/account/audit')).status).toBe(401);
  });
});

describe('pruning', () => {
  it('drops entries older than AUDIT_RETENTION_DAYS and keeps newer ones', async () => {
    const { app, ctx, clock } = t();
    const s = await seedService(ctx);
    await call(app, 'POST', '/api/v1/keys/api/keyless', { key: s.serviceKey, body: { hwid: 'old' } });
    clock.advance(364 * 86_400_000);
    await call(app, 'POST', '/api/v1/keys/api/keyless', { key: s.serviceKey, body: { hwid: 'new' } });
    clock.advance(2 * 86_400_000);
    const { auditPruneJob } = await import('../../src/modules/audit/audit-prune.job.ts');
    await auditPruneJob.run(ctx, new AbortController().signal);
    expect((await serviceLog(s, { action: 'keyless.add' })).map((e) => e.target)).toEqual(['new']);
  });
});
