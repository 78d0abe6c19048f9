import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, seedAccount } from '../helpers/seed.ts';
import { cookieOf, signIn, SIGNIN_ENV, solvedCaptcha, totpCode } from './helpers.ts';

const testApp = useTestApp(SIGNIN_ENV);

describe('sign-in', () => {
  it('hands out an ALTCHA challenge signed by the server', async () => {
    const { app } = testApp();
    const res = await call(app, 'GET', '/api/v1/auth/captcha');
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ algorithm: 'SHA-256', maxnumber: 200 });
    expect(res.body.data.salt).toMatch(/expires=\d+/);
    expect(res.body.data.signature).toMatch(/^[0-9a-f]{64}$/);
  });

  it('registers an account when registration is open and stores only a scrypt hash', async () => {
    const { app, ctx } = testApp();
    const res = await call(app, 'POST', '/api/v1/auth/register', {
      body: { username: 'newcomer_1', password: 'a long enough password', captcha: await solvedCaptcha(app) },
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ username: 'newcomer_1', role: 'user', twoFactorEnabled: false });
    const row = await ctx.db.selectFrom('accounts').selectAll().where('username', '=', 'newcomer_1').executeTakeFirstOrThrow();
    expect(row.passwordHash).toMatch(/^scrypt\$/);
    expect(row.passwordHash).not.toContain('a long enough password');
  });

  it('signs in with username and password and sets an HttpOnly SameSite=Strict cookie', async () => {
    const { app, ctx } = testApp();
    const account = await seedAccount(ctx);
    const res = await call(app, 'POST', '/api/v1/auth/login', {
      body: { username: account.username, password: account.password, captcha: await solvedCaptcha(app) },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.account).toMatchObject({ id: account.id, username: account.username, role: 'user', twoFactorEnabled: false });
    const setCookie = String(res.headers['set-cookie']);
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Strict/);
    expect(setCookie).not.toMatch(/Secure/); // BASE_URL is http in tests
    const cookie = cookieOf(res.headers);
    const session = await call(app, 'GET', '/api/v1/auth/session', { headers: { cookie } });
    expect(session.status).toBe(200);
    expect(session.body.data.account.id).toBe(account.id);
    expect(session.body.data.csrfToken).toEqual(expect.any(String));
  });

  it('keeps only a digest of the session token in the database', async () => {
    const { app, ctx } = testApp();
    const account = await seedAccount(ctx);
    const { cookie } = await signIn(app, account);
    const token = cookie.split('=')[1]!;
    const rows = await ctx.db.selectFrom('sessions').selectAll().where('accountId', '=', account.id).execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.tokenDigest).not.toBe(token);
  });

  it('lets a session act as the account, with the CSRF token on mutations', async () => {
    const { app, ctx } = testApp();
    const account = await seedAccount(ctx);
    const { cookie, headers } = await signIn(app, account);
    const me = await call(app, 'GET', '/api/v1/account', { headers: { cookie } });
    expect(me.status).toBe(200);
    expect(me.body.data.id).toBe(account.id);
    const created = await call(app, 'POST', '/api/v1/services', { headers, body: { name: 'From the dashboard' } });
    expect(created.status).toBe(201);
  });

  it('signs in with the account key instead of a password', async () => {
    const { app, ctx } = testApp();
    const account = await seedAccount(ctx);
    const res = await call(app, 'POST', '/api/v1/auth/login', { body: { apiKey: account.accountKey, captcha: await solvedCaptcha(app) } });
    expect(res.status).toBe(200);
    expect(res.body.data.account.id).toBe(account.id);
    expect(cookieOf(res.headers)).toMatch(/^kw_session=/);
  });

  it('logs out: the cookie stops working', async () => {
    const { app, ctx } = testApp();
    const account = await seedAccount(ctx);
    const { cookie, headers } = await signIn(app, account);
    const out = await call(app, 'POST', '/api/v1/auth/logout', { headers });
    expect(out.status).toBe(200);
    expect(out.body.data).toEqual({ loggedOut: true });
    expect(String(out.headers['set-cookie'])).toMatch(/kw_session=;/);
    expect((await call(app, 'GET', '/api/v1/auth/session', { headers: { cookie } })).status).toBe(401);
  });
});

describe('two-factor', () => {
  it('sets up, enables, requires and disables TOTP', async () => {
    const { app, ctx, clock } = testApp();
    const account = await seedAccount(ctx);
    const { headers, cookie } = await signIn(app, account);

    const setup = await call(app, 'POST', '/api/v1/account/2fa/setup', { headers });
    expect(setup.status).toBe(200);
    expect(setup.body.data.otpauthUri).toMatch(/^otpauth:\/\/totp\/Keyward:/);
    const secret = setup.body.data.secret as string;
    const row = await ctx.db.selectFrom('accounts').selectAll().where('id', '=', account.id).executeTakeFirstOrThrow();
    expect(row.totpSecretSealed).toBeTruthy();
    expect(row.totpSecretSealed).not.toContain(secret);

    const enabled = await call(app, 'POST', '/api/v1/account/2fa/enable', { headers, body: { totp: totpCode(secret, clock.now) } });
    expect(enabled.status).toBe(200);
    expect(enabled.body.data).toEqual({ twoFactorEnabled: true });
    expect((await call(app, 'GET', '/api/v1/account', { headers: { cookie } })).body.data.twoFactorEnabled).toBe(true);

    clock.advance(30_000);
    const withoutCode = await call(app, 'POST', '/api/v1/auth/login', {
      body: { username: account.username, password: account.password, captcha: await solvedCaptcha(app) },
    });
    expect(withoutCode.status).toBe(401);
    expect(withoutCode.body.code).toBe('TOTP_REQUIRED');

    const withCode = await call(app, 'POST', '/api/v1/auth/login', {
      body: {
        username: account.username,
        password: account.password,
        totp: totpCode(secret, clock.now),
        captcha: await solvedCaptcha(app),
      },
    });
    expect(withCode.status).toBe(200);

    clock.advance(30_000);
    const disabled = await call(app, 'POST', '/api/v1/account/2fa/disable', { headers, body: { totp: totpCode(secret, clock.now) } });
    expect(disabled.status).toBe(200);
    expect(disabled.body.data).toEqual({ twoFactorEnabled: false });
    const after = await ctx.db.selectFrom('accounts').selectAll().where('id', '=', account.id).executeTakeFirstOrThrow();
    expect(after.totpEnabled).toBe(0);
    expect(after.totpSecretSealed).toBeNull();
    await signIn(app, account);
  });

  it('lets the account key sign in without the two-factor code', async () => {
    const { app, ctx, clock } = testApp();
    const account = await seedAccount(ctx);
    const { headers } = await signIn(app, account);
    const secret = (await call(app, 'POST', '/api/v1/account/2fa/setup', { headers })).body.data.secret as string;
    expect((await call(app, 'POST', '/api/v1/account/2fa/enable', { headers, body: { totp: totpCode(secret, clock.now) } })).status).toBe(
      200,
    );
    const res = await call(app, 'POST', '/api/v1/auth/login', { body: { apiKey: account.accountKey, captcha: await solvedCaptcha(app) } });
    expect(res.status).toBe(200);
    expect(res.body.data.account.twoFactorEnabled).toBe(true);
  });
});
