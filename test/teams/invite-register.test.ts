import { describe, expect, it } from 'vitest';
import { anotherInstance, useTestApp } from '../helpers/app.ts';
import { call, seedAccount, seedService, type SeededService } from '../helpers/seed.ts';
import { DAY_MS } from '../helpers/records.ts';
import { cookieOf, solvedCaptcha, SIGNIN_ENV } from '../signin/helpers.ts';
import type { App } from '../../src/app.ts';

// Contract §25: an invite opens the door. Its page shows what it offers without a sign-in, and a person without an
// account registers there (captcha of §3) even with REGISTRATION closed: account, session and membership in one
// transaction; a dead code makes nothing.
const t = useTestApp({ ...SIGNIN_ENV, REGISTRATION: 'closed' });

let counter = 0;
const newName = () => `invitee${process.pid}${++counter}${Math.floor(Math.random() * 1e6)}`;
const PASSWORD = 'correct horse battery';

async function invite(s: SeededService, body: Record<string, unknown>) {
  const res = await call(t().app, 'POST', `/api/v1/services/${s.id}/invites`, { key: s.account.accountKey, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data.code as string;
}

async function register(app: App, code: string, username: string) {
  return call(app, 'POST', `/api/v1/invites/${code}/register`, {
    body: { username, password: PASSWORD, captcha: await solvedCaptcha(app) },
  });
}

const accountRow = (username: string) => t().ctx.db.selectFrom('accounts').selectAll().where('username', '=', username).executeTakeFirst();
const inviteRow = (code: string) => t().ctx.db.selectFrom('serviceInvites').selectAll().where('code', '=', code).executeTakeFirst();

describe('GET /invites/:code', () => {
  it('answers the service, role, quota, key policy, who invited and the expiry, without a sign-in', async () => {
    const { app, ctx, clock } = t();
    const s = await seedService(ctx);
    const code = await invite(s, {
      role: 'reseller',
      quota: { keysLeft: 5, maxDays: 30, maxHwids: 3, allowPremium: true, maxSessions: 2 },
    });
    const res = await call(app, 'GET', `/api/v1/invites/${code}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const service = await ctx.db.selectFrom('services').select('name').where('id', '=', s.id).executeTakeFirstOrThrow();
    expect(res.body.data).toEqual({
      service: { id: s.id, name: service.name },
      role: 'reseller',
      quota: { keysLeft: 5, maxDays: 30, allowLifetime: false },
      policy: { maxHwids: 3, allowNoHwidValidation: false, allowPremium: true, maxSessions: 2 },
      invitedBy: { username: s.account.username },
      expiresAt: new Date(clock.now + 7 * DAY_MS).toISOString(),
    });
    // Reading it spends nothing.
    expect(await inviteRow(code)).toBeDefined();

    const support = await invite(s, { role: 'support' });
    const plain = await call(app, 'GET', `/api/v1/invites/${support}`);
    expect(plain.body.data).toMatchObject({ role: 'support', quota: null, policy: null });
  });

  it('an unknown, expired or used code is 404 in the usual envelope', async () => {
    const { app, ctx, clock } = t();
    const s = await seedService(ctx);
    const unknown = await call(app, 'GET', '/api/v1/invites/nosuchcode');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ success: false, code: 'NOT_FOUND' });

    const used = await invite(s, { role: 'support' });
    expect((await call(app, 'POST', `/api/v1/invites/${used}/accept`, { key: (await seedAccount(ctx)).accountKey })).status).toBe(200);
    expect((await call(app, 'GET', `/api/v1/invites/${used}`)).status).toBe(404);

    const late = await invite(s, { role: 'support' });
    clock.advance(7 * DAY_MS);
    expect((await call(app, 'GET', `/api/v1/invites/${late}`)).status).toBe(404);
  });
});

describe('POST /invites/:code/register', () => {
  it('with REGISTRATION closed: 201, signed in, a member, the invite used', async () => {
    const { app, ctx } = t();
    // The ordinary door is shut on this server.
    const closed = await call(app, 'POST', '/api/v1/auth/register', {
      body: { username: newName(), password: PASSWORD, captcha: await solvedCaptcha(app) },
    });
    expect(closed.body.code).toBe('REGISTRATION_CLOSED');

    const s = await seedService(ctx);
    const code = await invite(s, { role: 'reseller', quota: { keysLeft: 3, maxHwids: 2 } });
    const username = newName();
    const res = await register(app, code, username);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data.account).toMatchObject({ username, role: 'user' });
    expect(res.body.data.service).toMatchObject({ id: s.id, role: 'reseller' });

    // The cookie is a session: an authed request with it works.
    const cookie = cookieOf(res.headers);
    const session = await call(app, 'GET', '/api/v1/auth/session', { headers: { cookie } });
    expect(session.status).toBe(200);
    expect(session.body.data.account.username).toBe(username);
    const services = await call(app, 'GET', '/api/v1/services', { headers: { cookie } });
    expect(services.status).toBe(200);
    expect(services.body.data.services).toEqual([expect.objectContaining({ id: s.id, role: 'reseller' })]);

    const account = await accountRow(username);
    const member = await ctx.db
      .selectFrom('serviceMembers')
      .selectAll()
      .where('serviceId', '=', s.id)
      .where('accountId', '=', account!.id)
      .executeTakeFirst();
    expect(member).toMatchObject({ role: 'reseller', keysLeft: 3, maxHwids: 2 });
    expect(await inviteRow(code)).toBeUndefined();
  });

  it('a used, expired or unknown code is 404 and makes no account', async () => {
    const { app, ctx, clock } = t();
    const s = await seedService(ctx);
    const unknownName = newName();
    const unknown = await register(app, 'nosuchcode', unknownName);
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('NOT_FOUND');
    expect(await accountRow(unknownName)).toBeUndefined();

    const used = await invite(s, { role: 'support' });
    expect((await register(app, used, newName())).status).toBe(201);
    const secondName = newName();
    expect((await register(app, used, secondName)).status).toBe(404);
    expect(await accountRow(secondName)).toBeUndefined();

    const late = await invite(s, { role: 'support' });
    clock.advance(7 * DAY_MS);
    const lateName = newName();
    expect((await register(app, late, lateName)).status).toBe(404);
    expect(await accountRow(lateName)).toBeUndefined();
  });

  it('a taken username is register’s 409 and the invite stays usable; a bad captcha is 400 and makes nothing', async () => {
    const { app, ctx } = t();
    const s = await seedService(ctx);
    const code = await invite(s, { role: 'manager' });
    const taken = await register(app, code, s.account.username);
    expect(taken.status).toBe(409);
    expect(taken.body.code).toBe('CONFLICT');
    expect(await inviteRow(code)).toBeDefined();

    const name = newName();
    const bad = await call(app, 'POST', `/api/v1/invites/${code}/register`, { body: { username: name, password: PASSWORD, captcha: 'x' } });
    expect(bad.status).toBe(400);
    expect(bad.body.field).toBe('captcha');
    expect(await accountRow(name)).toBeUndefined();
    expect((await register(app, code, name)).status).toBe(201);
  });

  it('two concurrent registers with one code on two instances: exactly one account', async () => {
    const { app, ctx } = t();
    const other = await anotherInstance(t());
    try {
      const s = await seedService(ctx);
      const code = await invite(s, { role: 'support' });
      const names = [newName(), newName(), newName(), newName()];
      const captchas = await Promise.all(names.map((_, i) => solvedCaptcha(i % 2 === 0 ? app : other)));
      const answers = await Promise.all(
        names.map((username, i) =>
          call(i % 2 === 0 ? app : other, 'POST', `/api/v1/invites/${code}/register`, {
            body: { username, password: PASSWORD, captcha: captchas[i] },
          }),
        ),
      );
      expect(answers.map((a) => a.status).sort()).toEqual([201, 404, 404, 404]);
      const made = await ctx.db.selectFrom('accounts').select('username').where('username', 'in', names).execute();
      expect(made).toHaveLength(1);
      const members = await ctx.db.selectFrom('serviceMembers').select('accountId').where('serviceId', '=', s.id).execute();
      expect(members).toHaveLength(1);
    } finally {
      await other.close();
    }
  });
});
