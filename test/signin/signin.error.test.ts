import { describe, expect, it } from 'vitest';
import { startTestApp, useTestApp } from '../helpers/app.ts';
import { call, seedAccount } from '../helpers/seed.ts';
import { signIn, SIGNIN_ENV, solvedCaptcha, totpCode } from './helpers.ts';

const testApp = useTestApp(SIGNIN_ENV);

const login = async (body: Record<string, unknown>) => {
  const { app } = testApp();
  return call(app, 'POST', '/api/v1/auth/login', { body: { captcha: await solvedCaptcha(app), ...body } });
};

describe('login failures', () => {
  it('answers a wrong password and an unknown user identically', async () => {
    const { ctx } = testApp();
    const account = await seedAccount(ctx);
    const wrong = await login({ username: account.username, password: 'not the password' });
    const unknown = await login({ username: 'nobody_here', password: 'not the password' });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body.code).toBe('UNAUTHORIZED');
    expect({ error: unknown.body.error, code: unknown.body.code }).toEqual({ error: wrong.body.error, code: wrong.body.code });
    expect(wrong.headers['set-cookie']).toBeUndefined();
  });

  it('refuses a disabled account with the same answer as a wrong password', async () => {
    const { ctx } = testApp();
    const account = await seedAccount(ctx);
    await ctx.db.updateTable('accounts').set({ disabled: 1 }).where('id', '=', account.id).execute();
    const res = await login({ username: account.username, password: account.password });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('The username or password is wrong');
  });

  it('refuses an invalid account key and a service key as apiKey', async () => {
    const res = await login({ apiKey: 'kw_' + 'x'.repeat(40) });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('UNAUTHORIZED');
    const svc = await login({ apiKey: 'kws_' + 'x'.repeat(40) });
    expect(svc.status).toBe(401);
  });

  it('insists on exactly one way of signing in', async () => {
    const { ctx } = testApp();
    const account = await seedAccount(ctx);
    const both = await login({ username: account.username, password: account.password, apiKey: account.accountKey });
    expect(both.status).toBe(400);
    const neither = await login({});
    expect(neither.status).toBe(400);
    const noPassword = await login({ username: account.username });
    expect(noPassword.status).toBe(400);
    expect(noPassword.body.field).toBe('password');
  });

  it('rejects unknown fields and wrong types', async () => {
    const { ctx } = testApp();
    const account = await seedAccount(ctx);
    const extra = await login({ username: account.username, password: account.password, remember: true });
    expect(extra.status).toBe(400);
    expect(extra.body.field).toBe('remember');
    const typed = await login({ username: account.username, password: 1234567890 });
    expect(typed.status).toBe(400);
    expect(typed.body.field).toBe('password');
    const badTotp = await login({ username: account.username, password: account.password, totp: '12345' });
    expect(badTotp.status).toBe(400);
    expect(badTotp.body.field).toBe('totp');
  });

  it('locks an account after repeated failures, longer each time, with Retry-After, kept in the database', async () => {
    const { ctx, clock } = testApp();
    const account = await seedAccount(ctx);
    for (let i = 0; i < 5; i++) {
      expect((await login({ username: account.username, password: 'wrong wrong wrong' })).status).toBe(401);
    }
    const row = await ctx.db.selectFrom('accounts').selectAll().where('id', '=', account.id).executeTakeFirstOrThrow();
    expect(row.failedLoginCount).toBe(5);
    expect(row.loginLockedUntil).toBe(clock.now + 30_000);

    const locked = await login({ username: account.username, password: account.password });
    expect(locked.status).toBe(429);
    expect(locked.body.code).toBe('RATE_LIMITED');
    expect(locked.headers['retry-after']).toBe('30');

    clock.advance(30_000);
    expect((await login({ username: account.username, password: 'wrong again!!' })).status).toBe(401);
    const second = await login({ username: account.username, password: account.password });
    expect(second.status).toBe(429);
    expect(second.headers['retry-after']).toBe('60');

    clock.advance(60_000);
    const ok = await login({ username: account.username, password: account.password });
    expect(ok.status).toBe(200);
    const cleared = await ctx.db.selectFrom('accounts').selectAll().where('id', '=', account.id).executeTakeFirstOrThrow();
    expect(cleared.failedLoginCount).toBe(0);
    expect(cleared.loginLockedUntil).toBeNull();
  });
});

describe('captcha', () => {
  it('requires a captcha on login and register', async () => {
    const { app, ctx } = testApp();
    const account = await seedAccount(ctx);
    const res = await call(app, 'POST', '/api/v1/auth/login', { body: { username: account.username, password: account.password } });
    expect(res.status).toBe(400);
    expect(res.body.field).toBe('captcha');
    const reg = await call(app, 'POST', '/api/v1/auth/register', { body: { username: 'no_captcha', password: 'long enough pass' } });
    expect(reg.status).toBe(400);
    expect(reg.body.field).toBe('captcha');
  });

  it('refuses a captcha that is not a valid solution', async () => {
    const { app, ctx } = testApp();
    const account = await seedAccount(ctx);
    const good = JSON.parse(Buffer.from(await solvedCaptcha(app), 'base64').toString()) as Record<string, unknown>;
    const variants = [
      'not base64 at all!!',
      Buffer.from('{"broken json').toString('base64'),
      Buffer.from('null').toString('base64'),
      Buffer.from(JSON.stringify({ ...good, number: (good.number as number) + 1 })).toString('base64'),
      Buffer.from(JSON.stringify({ ...good, signature: '0'.repeat(64) })).toString('base64'),
      Buffer.from(JSON.stringify({ ...good, algorithm: 'MD5' })).toString('base64'),
    ];
    for (const captcha of variants) {
      const res = await call(app, 'POST', '/api/v1/auth/login', {
        body: { username: account.username, password: account.password, captcha },
      });
      expect(res.status, captcha).toBe(400);
      expect(res.body.field).toBe('captcha');
      expect(res.body.code).toBe('VALIDATION_ERROR');
    }
  });

  it('accepts a solved captcha once: a replay is refused', async () => {
    const { app, ctx } = testApp();
    const account = await seedAccount(ctx);
    const captcha = await solvedCaptcha(app);
    const first = await call(app, 'POST', '/api/v1/auth/login', {
      body: { username: account.username, password: account.password, captcha },
    });
    expect(first.status).toBe(200);
    const replay = await call(app, 'POST', '/api/v1/auth/login', {
      body: { username: account.username, password: account.password, captcha },
    });
    expect(replay.status).toBe(400);
    expect(replay.body.error).toMatch(/already used/);
  });

  it('refuses a replay even when the first use failed on the password', async () => {
    const { app, ctx } = testApp();
    const account = await seedAccount(ctx);
    const captcha = await solvedCaptcha(app);
    expect(
      (await call(app, 'POST', '/api/v1/auth/login', { body: { username: account.username, password: 'wrong password', captcha } })).status,
    ).toBe(401);
    const replay = await call(app, 'POST', '/api/v1/auth/login', {
      body: { username: account.username, password: account.password, captcha },
    });
    expect(replay.status).toBe(400);
  });

  it('refuses a captcha solved after it expired', async () => {
    const { app, ctx, clock } = testApp();
    const account = await seedAccount(ctx);
    const captcha = await solvedCaptcha(app);
    clock.advance(600_000);
    const res = await call(app, 'POST', '/api/v1/auth/login', {
      body: { username: account.username, password: account.password, captcha },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/expired/);
  });

  it('keeps used captchas in the database until they expire, then the maintenance job forgets them', async () => {
    const { app, ctx, clock } = testApp();
    const account = await seedAccount(ctx);
    const captcha = await solvedCaptcha(app);
    const { signature } = JSON.parse(Buffer.from(captcha, 'base64').toString()) as { signature: string };
    await call(app, 'POST', '/api/v1/auth/login', { body: { username: account.username, password: account.password, captcha } });
    const spent = () => ctx.db.selectFrom('captchaUses').selectAll().where('signature', '=', signature).executeTakeFirst();
    ctx.jobs.kick('prune');
    await ctx.jobs.settled();
    expect(await spent()).toBeDefined();
    clock.advance(601_000);
    ctx.jobs.kick('prune');
    await ctx.jobs.settled();
    expect(await spent()).toBeUndefined();
  });
});

describe('register failures', () => {
  it('refuses a taken username with 409', async () => {
    const { app, ctx } = testApp();
    const account = await seedAccount(ctx);
    const res = await call(app, 'POST', '/api/v1/auth/register', {
      body: { username: account.username, password: 'another long password', captcha: await solvedCaptcha(app) },
    });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('CONFLICT');
  });

  it('refuses bad usernames and short passwords', async () => {
    const { app } = testApp();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ username: 'ab', password: 'long enough pass' }, 'username'],
      [{ username: 'has space', password: 'long enough pass' }, 'username'],
      [{ username: 'x'.repeat(33), password: 'long enough pass' }, 'username'],
      [{ username: 'shortpass', password: 'short' }, 'password'],
      [{ username: 'typed', password: 12345678901 }, 'password'],
      [{ username: 'extra_field', password: 'long enough pass', role: 'admin' }, 'role'],
    ];
    for (const [body, field] of cases) {
      const res = await call(app, 'POST', '/api/v1/auth/register', { body: { ...body, captcha: await solvedCaptcha(app) } });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.field).toBe(field);
    }
  });

  it('answers 403 REGISTRATION_CLOSED by default', async () => {
    const closed = await startTestApp({ CAPTCHA_MAX_NUMBER: '200' });
    try {
      const res = await call(closed.app, 'POST', '/api/v1/auth/register', {
        body: { username: 'closed_door', password: 'long enough pass', captcha: await solvedCaptcha(closed.app) },
      });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('REGISTRATION_CLOSED');
      expect(
        await closed.ctx.db.selectFrom('accounts').selectAll().where('username', '=', 'closed_door').executeTakeFirst(),
      ).toBeUndefined();
    } finally {
      await closed.app.close();
      await closed.database.drop();
    }
  });
});

describe('two-factor failures', () => {
  async function withTwoFactor() {
    const { app, ctx, clock } = testApp();
    const account = await seedAccount(ctx);
    const session = await signIn(app, account);
    const secret = (await call(app, 'POST', '/api/v1/account/2fa/setup', { headers: session.headers })).body.data.secret as string;
    expect(
      (await call(app, 'POST', '/api/v1/account/2fa/enable', { headers: session.headers, body: { totp: totpCode(secret, clock.now) } }))
        .status,
    ).toBe(200);
    clock.advance(30_000);
    return { account, session, secret };
  }

  it('refuses a wrong code with 401 UNAUTHORIZED', async () => {
    const { clock } = testApp();
    const { account, secret } = await withTwoFactor();
    const right = totpCode(secret, clock.now);
    const wrong = right === '000000' ? '111111' : '000000';
    const res = await login({ username: account.username, password: account.password, totp: wrong });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('UNAUTHORIZED');
  });

  it('refuses the same code twice in its window', async () => {
    const { clock } = testApp();
    const { account, secret } = await withTwoFactor();
    const code = totpCode(secret, clock.now);
    expect((await login({ username: account.username, password: account.password, totp: code })).status).toBe(200);
    const replay = await login({ username: account.username, password: account.password, totp: code });
    expect(replay.status).toBe(401);
    expect(replay.body.code).toBe('UNAUTHORIZED');
  });

  it('refuses a code from a step already used for enabling', async () => {
    const { app, ctx, clock } = testApp();
    const account = await seedAccount(ctx);
    const { headers } = await signIn(app, account);
    const secret = (await call(app, 'POST', '/api/v1/account/2fa/setup', { headers })).body.data.secret as string;
    const code = totpCode(secret, clock.now);
    expect((await call(app, 'POST', '/api/v1/account/2fa/enable', { headers, body: { totp: code } })).status).toBe(200);
    const res = await login({ username: account.username, password: account.password, totp: code });
    expect(res.status).toBe(401);
  });

  it('refuses enable without setup, setup twice once on, and bad codes on enable and disable', async () => {
    const { app, ctx, clock } = testApp();
    const account = await seedAccount(ctx);
    const { headers } = await signIn(app, account);
    const early = await call(app, 'POST', '/api/v1/account/2fa/enable', { headers, body: { totp: '123456' } });
    expect(early.status).toBe(409);
    const notOn = await call(app, 'POST', '/api/v1/account/2fa/disable', { headers, body: { totp: '123456' } });
    expect(notOn.status).toBe(409);

    const secret = (await call(app, 'POST', '/api/v1/account/2fa/setup', { headers })).body.data.secret as string;
    const right = totpCode(secret, clock.now);
    const wrongCode = right === '000000' ? '111111' : '000000';
    const wrong = await call(app, 'POST', '/api/v1/account/2fa/enable', { headers, body: { totp: wrongCode } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.field).toBe('totp');
    const missing = await call(app, 'POST', '/api/v1/account/2fa/enable', { headers, body: {} });
    expect(missing.status).toBe(400);
    expect((await call(app, 'GET', '/api/v1/account', { key: account.accountKey })).body.data.twoFactorEnabled).toBe(false);

    expect((await call(app, 'POST', '/api/v1/account/2fa/enable', { headers, body: { totp: right } })).status).toBe(200);
    expect((await call(app, 'POST', '/api/v1/account/2fa/setup', { headers })).status).toBe(409);
    clock.advance(30_000);
    const badDisable = await call(app, 'POST', '/api/v1/account/2fa/disable', {
      headers,
      body: { totp: wrongCode === totpCode(secret, clock.now) ? right : wrongCode },
    });
    expect(badDisable.status).toBe(400);
    expect((await call(app, 'GET', '/api/v1/account', { key: account.accountKey })).body.data.twoFactorEnabled).toBe(true);
  });
});
