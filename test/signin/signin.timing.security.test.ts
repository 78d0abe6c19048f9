import { describe, expect, it, vi } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, seedAccount } from '../helpers/seed.ts';
import { SIGNIN_ENV, solvedCaptcha } from './helpers.ts';
import type * as Password from '../../src/lib/password.ts';

// Wraps the real password functions so the test can see which hash each login verified against.
const spies = vi.hoisted(() => ({ verified: [] as string[] }));
vi.mock('../../src/lib/password.ts', async (importOriginal) => {
  const real = await importOriginal<typeof Password>();
  return {
    ...real,
    verifyPassword: async (password: string, stored: string) => {
      spies.verified.push(stored);
      return real.verifyPassword(password, stored);
    },
  };
});

const testApp = useTestApp(SIGNIN_ENV);

describe('unknown users', () => {
  it('cost one scrypt verification against the dummy hash, like a known user', async () => {
    const { app, ctx } = testApp();
    const { dummyPasswordHash } = await import('../../src/lib/password.ts');
    const account = await seedAccount(ctx);
    spies.verified.length = 0;
    await call(app, 'POST', '/api/v1/auth/login', {
      body: { username: 'ghost_user', password: 'whatever pass', captcha: await solvedCaptcha(app) },
    });
    expect(spies.verified).toEqual([await dummyPasswordHash()]);

    spies.verified.length = 0;
    await call(app, 'POST', '/api/v1/auth/login', {
      body: { username: account.username, password: 'whatever pass', captcha: await solvedCaptcha(app) },
    });
    const row = await ctx.db.selectFrom('accounts').select('passwordHash').where('id', '=', account.id).executeTakeFirstOrThrow();
    expect(spies.verified).toEqual([row.passwordHash]);
    expect(row.passwordHash.split('$').slice(0, 4)).toEqual((await dummyPasswordHash()).split('$').slice(0, 4));
  });
});
