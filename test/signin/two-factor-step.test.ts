import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, seedAccount } from '../helpers/seed.ts';
import { expectValidationError } from '../helpers/records.ts';
import { cookieOf, signIn, SIGNIN_ENV, solvedCaptcha, totpCode } from './helpers.ts';

// Issue 22 item 10: after a right password, TOTP_REQUIRED carries a short-lived signed step token; the code then
// follows alone (no password, no second captcha). The code is still spent once and wrong ones count as failures.
const testApp = useTestApp(SIGNIN_ENV);
const LOGIN = '/api/v1/auth/login';

async function twoFactorAccount() {
  const { app, ctx, clock } = testApp();
  const account = await seedAccount(ctx);
  const { headers } = await signIn(app, account);
  const secret = (await call(app, 'POST', '/api/v1/account/2fa/setup', { headers })).body.data.secret as string;
  expect((await call(app, 'POST', '/api/v1/account/2fa/enable', { headers, body: { totp: totpCode(secret, clock.now) } })).status).toBe(
    200,
  );
  clock.advance(30_000);
  return { account, secret };
}

async function passwordStep(account: { username: string; password: string }) {
  const { app } = testApp();
  const res = await call(app, 'POST', LOGIN, {
    body: { username: account.username, password: account.password, captcha: await solvedCaptcha(app) },
  });
  expect(res.status).toBe(401);
  expect(res.body.code).toBe('TOTP_REQUIRED');
  expect(res.body.error).not.toMatch(/totp/);
  expect(typeof res.body.stepToken).toBe('string');
  return res.body.stepToken as string;
}

describe('two-factor sign-in in two steps', () => {
  it('signs in with the step token and the code alone, and spends the code once', async () => {
    const { app, clock } = testApp();
    const { account, secret } = await twoFactorAccount();
    const stepToken = await passwordStep(account);
    const code = totpCode(secret, clock.now);
    const res = await call(app, 'POST', LOGIN, { body: { username: account.username, stepToken, totp: code } });
    expect(res.status).toBe(200);
    expect(res.body.data.account.username).toBe(account.username);
    const cookie = cookieOf(res.headers);
    expect((await call(app, 'GET', '/api/v1/auth/session', { headers: { cookie } })).status).toBe(200);
    const replay = await call(app, 'POST', LOGIN, { body: { username: account.username, stepToken, totp: code } });
    expect(replay.status).toBe(401);
    expect(replay.body.error).toMatch(/already used/);
  });

  it('a wrong code is refused and counted; an expired, forged or another account’s token opens nothing', async () => {
    const { app, ctx, clock } = testApp();
    const { account, secret } = await twoFactorAccount();
    const stepToken = await passwordStep(account);
    const before = (await ctx.db.selectFrom('accounts').select('failedLoginCount').where('id', '=', account.id).executeTakeFirstOrThrow())
      .failedLoginCount;
    const wrong = totpCode(secret, clock.now) === '000000' ? '111111' : '000000';
    const refused = await call(app, 'POST', LOGIN, { body: { username: account.username, stepToken, totp: wrong } });
    expect(refused.status).toBe(401);
    expect(refused.body.error).toBe('The two-factor code is wrong or was already used');
    const after = (await ctx.db.selectFrom('accounts').select('failedLoginCount').where('id', '=', account.id).executeTakeFirstOrThrow())
      .failedLoginCount;
    expect(Number(after)).toBe(Number(before) + 1);

    const other = await twoFactorAccount();
    const otherToken = await passwordStep(other.account);
    const crossed = await call(app, 'POST', LOGIN, {
      body: { username: account.username, stepToken: otherToken, totp: totpCode(secret, clock.now) },
    });
    expect(crossed.status).toBe(401);
    expect(crossed.headers['set-cookie']).toBeUndefined();
    const [id, expires] = stepToken.split('.');
    const forged = `${id}.${expires}.${'A'.repeat(43)}`;
    expect(
      (await call(app, 'POST', LOGIN, { body: { username: account.username, stepToken: forged, totp: totpCode(secret, clock.now) } }))
        .status,
    ).toBe(401);
    clock.advance(5 * 60_000 + 1);
    const late = await call(app, 'POST', LOGIN, { body: { username: account.username, stepToken, totp: totpCode(secret, clock.now) } });
    expect(late.status).toBe(401);
    expect(late.body.error).toBe('The sign-in took too long; enter your password again');
  });

  it('refuses a step token sent with a password, and a password sign-in without a captcha', async () => {
    const { app } = testApp();
    const { account } = await twoFactorAccount();
    const stepToken = await passwordStep(account);
    expectValidationError(
      await call(app, 'POST', LOGIN, { body: { username: account.username, password: account.password, stepToken, totp: '123456' } }),
      'stepToken',
    );
    expectValidationError(await call(app, 'POST', LOGIN, { body: { username: account.username, password: account.password } }), 'captcha');
  });
});
