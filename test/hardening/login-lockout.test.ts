import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, seedAccount } from '../helpers/seed.ts';
import { SIGNIN_ENV, solvedCaptcha } from '../signin/helpers.ts';

/** Contract §10: the lockout answers alike for existing and unknown usernames and never locks out the account key. */
const t = useTestApp(SIGNIN_ENV);

const login = async (body: Record<string, unknown>) =>
  call(t().app, 'POST', '/api/v1/auth/login', { body: { captcha: await solvedCaptcha(t().app), ...body } });

/** The answers of six wrong passwords in a row, without the request id. */
async function sixFailures(username: string) {
  const answers = [];
  for (let i = 0; i < 6; i++) {
    const res = await login({ username, password: 'wrong password!' });
    answers.push({ status: res.status, code: res.body.code, error: res.body.error, retryAfter: res.headers['retry-after'] });
  }
  return answers;
}

describe('login lockout', () => {
  it('answers an existing and an unknown username alike, failure by failure', async () => {
    const account = await seedAccount(t().ctx);
    const known = await sixFailures(account.username);
    const unknown = await sixFailures('nobody_has_this_name');
    expect(known.map((a) => a.status)).toEqual([401, 401, 401, 401, 401, 429]);
    expect(unknown).toEqual(known);
    const stored = await t()
      .ctx.db.selectFrom('loginFailures')
      .selectAll()
      .where('username', '=', 'nobody_has_this_name')
      .executeTakeFirstOrThrow();
    expect(stored).toMatchObject({ failures: 5, lockedUntil: t().clock.now + 30_000 });
  });

  it('lets the owner of a locked account sign in with the account key', async () => {
    const account = await seedAccount(t().ctx);
    await sixFailures(account.username);
    expect((await login({ username: account.username, password: account.password })).status).toBe(429);
    const byKey = await login({ apiKey: account.accountKey });
    expect(byKey.status).toBe(200);
    expect(byKey.headers['set-cookie']).toBeDefined();
  });

  it('locks a disabled account like any other', async () => {
    const account = await seedAccount(t().ctx);
    await t().ctx.db.updateTable('accounts').set({ disabled: 1 }).where('id', '=', account.id).execute();
    expect((await sixFailures(account.username)).map((a) => a.status)).toEqual([401, 401, 401, 401, 401, 429]);
  });
});
