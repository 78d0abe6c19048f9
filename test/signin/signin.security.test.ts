import { describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { buildApp } from '../../src/app.ts';
import { startTestApp, useTestApp } from '../helpers/app.ts';
import { call, seedAccount, seedService } from '../helpers/seed.ts';
import { cookieOf, signIn, SIGNIN_ENV, solvedCaptcha } from './helpers.ts';

const testApp = useTestApp(SIGNIN_ENV);

describe('CSRF', () => {
  it('refuses a cookie-authenticated mutation without X-CSRF-Token', async () => {
    const { app, ctx } = testApp();
    const account = await seedAccount(ctx);
    const { cookie } = await signIn(app, account);
    const before = await ctx.db.selectFrom('accounts').select('apiKeyDigest').where('id', '=', account.id).executeTakeFirstOrThrow();
    const res = await call(app, 'POST', '/api/v1/account/api-key/regenerate', { headers: { cookie } });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('CSRF_FAILED');
    const after = await ctx.db.selectFrom('accounts').select('apiKeyDigest').where('id', '=', account.id).executeTakeFirstOrThrow();
    expect(after.apiKeyDigest).toBe(before.apiKeyDigest);
  });

  it('refuses a wrong token and another session’s token', async () => {
    const { app, ctx } = testApp();
    const account = await seedAccount(ctx);
    const mine = await signIn(app, account);
    const other = await signIn(app, await seedAccount(ctx));
    for (const token of ['nope', other.csrf, mine.csrf.slice(0, -1)]) {
      const res = await call(app, 'POST', '/api/v1/services', {
        headers: { cookie: mine.cookie, 'x-csrf-token': token },
        body: { name: 'x' },
      });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('CSRF_FAILED');
    }
    const put = await call(app, 'PATCH', '/api/v1/services/whatever', { headers: { cookie: mine.cookie }, body: { name: 'x' } });
    expect(put.status).toBe(403);
    const del = await call(app, 'DELETE', '/api/v1/services/whatever', { headers: { cookie: mine.cookie } });
    expect(del.status).toBe(403);
    const logout = await call(app, 'POST', '/api/v1/auth/logout', { headers: { cookie: mine.cookie } });
    expect(logout.status).toBe(403);
  });

  it('needs no CSRF token on reads, nor with an account key', async () => {
    const { app, ctx } = testApp();
    const account = await seedAccount(ctx);
    const { cookie } = await signIn(app, account);
    expect((await call(app, 'GET', '/api/v1/services', { headers: { cookie } })).status).toBe(200);
    expect((await call(app, 'POST', '/api/v1/services', { key: account.accountKey, body: { name: 'By key' } })).status).toBe(201);
  });
});

describe('session lifetime', () => {
  it('expires an idle session', async () => {
    const { app, ctx, clock } = testApp();
    const { cookie } = await signIn(app, await seedAccount(ctx));
    clock.advance(719 * 60_000);
    expect((await call(app, 'GET', '/api/v1/auth/session', { headers: { cookie } })).status).toBe(200);
    clock.advance(719 * 60_000);
    expect((await call(app, 'GET', '/api/v1/auth/session', { headers: { cookie } })).status).toBe(200);
    clock.advance(721 * 60_000);
    const res = await call(app, 'GET', '/api/v1/auth/session', { headers: { cookie } });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('UNAUTHORIZED');
  });

  it('expires a busy session at its absolute limit', async () => {
    const { app, ctx, clock } = testApp();
    const { cookie } = await signIn(app, await seedAccount(ctx));
    for (let hour = 0; hour < 167; hour += 10) {
      clock.advance(10 * 3_600_000);
      const res = await call(app, 'GET', '/api/v1/account', { headers: { cookie } });
      if (hour + 10 < 168) expect(res.status, `hour ${hour + 10}`).toBe(200);
      else expect(res.status).toBe(401);
    }
  });

  it('refuses a forged or unknown session cookie', async () => {
    const { app } = testApp();
    const res = await call(app, 'GET', '/api/v1/account', { headers: { cookie: 'kw_session=made-up-token' } });
    expect(res.status).toBe(401);
  });
});

describe('session-only routes', () => {
  it('answers 403 SESSION_REQUIRED to an account key and 401 to nothing', async () => {
    const { app, ctx } = testApp();
    const account = await seedAccount(ctx);
    for (const url of ['/api/v1/account/2fa/setup', '/api/v1/auth/logout']) {
      const keyed = await call(app, 'POST', url, { key: account.accountKey });
      expect(keyed.status).toBe(403);
      expect(keyed.body.code).toBe('SESSION_REQUIRED');
      expect((await call(app, 'POST', url)).status).toBe(401);
    }
    const session = await call(app, 'GET', '/api/v1/auth/session', { key: account.accountKey });
    expect(session.body.code).toBe('SESSION_REQUIRED');
    const bogus = await call(app, 'GET', '/api/v1/auth/session', { key: 'kw_' + 'z'.repeat(40) });
    expect(bogus.status).toBe(401);
  });
});

describe('disabled accounts', () => {
  it('stops the session, the account key and the service key at once', async () => {
    const { app, ctx } = testApp();
    const service = await seedService(ctx);
    const { cookie } = await signIn(app, service.account);
    expect((await call(app, 'GET', '/api/v1/account', { headers: { cookie } })).status).toBe(200);
    await ctx.db.updateTable('accounts').set({ disabled: 1 }).where('id', '=', service.account.id).execute();
    expect((await call(app, 'GET', '/api/v1/account', { headers: { cookie } })).status).toBe(401);
    expect((await call(app, 'GET', '/api/v1/account', { key: service.account.accountKey })).status).toBe(401);
    expect((await call(app, 'GET', '/api/v1/keys/api/service/info', { key: service.serviceKey })).status).toBe(401);
  });
});

describe('cookie attributes', () => {
  it('marks the cookie Secure when BASE_URL is https', async () => {
    const secure = await startTestApp({ ...SIGNIN_ENV, BASE_URL: 'https://keyward.example' });
    try {
      const account = await seedAccount(secure.ctx);
      const res = await call(secure.app, 'POST', '/api/v1/auth/login', {
        body: { username: account.username, password: account.password, captcha: await solvedCaptcha(secure.app) },
      });
      expect(res.status).toBe(200);
      const setCookie = String(res.headers['set-cookie']);
      expect(setCookie).toMatch(/; Secure/);
      expect(setCookie).toMatch(/HttpOnly/);
      expect(setCookie).toMatch(/SameSite=Strict/);
      expect(cookieOf(res.headers)).toMatch(/^kw_session=/);
    } finally {
      await secure.app.close();
      await secure.database.drop();
    }
  });
});

describe('login rate limit', () => {
  it('allows 10 login attempts a minute per address, then 429', async () => {
    const limited = await startTestApp({ ...SIGNIN_ENV, RATE_LIMIT_LOGIN_PER_MINUTE: '10' });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 11; i++) {
        const res = await call(limited.app, 'POST', '/api/v1/auth/login', {
          body: { username: 'x_user', password: 'y', captcha: 'z' },
          remoteAddress: '10.9.8.7',
        });
        statuses.push(res.status);
      }
      expect(statuses.slice(0, 10).every((s) => s === 400)).toBe(true);
      expect(statuses[10]).toBe(429);
      const other = await call(limited.app, 'POST', '/api/v1/auth/login', {
        body: { username: 'x_user', password: 'y', captcha: 'z' },
        remoteAddress: '10.9.8.6',
      });
      expect(other.status).toBe(400);
    } finally {
      await limited.app.close();
      await limited.database.drop();
    }
  });
});

describe('logging', () => {
  it('never writes passwords, TOTP secrets, session cookies or captchas to the log, even at trace level', async () => {
    const { ctx, clock, config, database } = testApp();
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const logged = await buildApp({
      config,
      database: { db: ctx.db, dialect: ctx.dialect, source: database.handle.source, close: async () => {} },
      clock: clock.read,
      logger: { level: 'trace', stream },
    });
    try {
      const account = await seedAccount(ctx);
      const captcha = await solvedCaptcha(logged);
      await call(logged, 'POST', '/api/v1/auth/login', {
        body: { username: account.username, password: 'secret-wrong-password-1', captcha },
      });
      const session = await signIn(logged, account);
      const setup = await call(logged, 'POST', '/api/v1/account/2fa/setup', { headers: session.headers });
      await call(logged, 'POST', '/api/v1/auth/logout', { headers: session.headers });
      const text = lines.join('');
      expect(text.length).toBeGreaterThan(0);
      for (const secret of [
        account.password,
        'secret-wrong-password-1',
        captcha,
        session.cookie.split('=')[1]!,
        session.csrf,
        setup.body.data.secret,
      ]) {
        expect(text).not.toContain(secret);
      }
    } finally {
      await logged.close();
    }
  });
});
