import { randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import * as usernameCase from '../../src/db/migrations/0014_username_case.ts';
import { useTestApp } from '../helpers/app.ts';
import { call, seedAccount } from '../helpers/seed.ts';
import { signIn, SIGNIN_ENV, solvedCaptcha } from './helpers.ts';

// Guarantee: usernames are unique regardless of case, and sign-in by username ignores case. Migration 0014 keeps
// accounts that already differ only by case (reported, none merged): each signs in with its exact spelling.
const t = useTestApp(SIGNIN_ENV);
const PASSWORD = 'correct horse battery';
const name = (tag: string) => `${tag}${randomBytes(4).toString('hex')}`;

async function register(username: string) {
  return call(t().app, 'POST', '/api/v1/auth/register', { body: { username, password: PASSWORD, captcha: await solvedCaptcha(t().app) } });
}

async function sessionUser(username: string) {
  const session = await signIn(t().app, { username, password: PASSWORD });
  const res = await call(t().app, 'GET', '/api/v1/auth/session', { headers: { cookie: session.cookie } });
  return res.body.data.account as { id: string; username: string };
}

describe('usernames regardless of case', () => {
  it('refuses FRANK next to frank with 409, and signs frank in by any case', async () => {
    const frank = name('frank');
    const first = await register(frank);
    expect(first.status).toBe(201);
    for (const spelling of [frank.toUpperCase(), frank[0]!.toUpperCase() + frank.slice(1)]) {
      const res = await register(spelling);
      expect(res.status, spelling).toBe(409);
      expect(res.body.code).toBe('CONFLICT');
    }
    const rows = await t().ctx.db.selectFrom('accounts').select('username').where('id', '=', first.body.data.id).execute();
    expect(rows).toEqual([{ username: frank }]);
    const signedIn = await sessionUser(frank.toUpperCase());
    expect(signedIn).toMatchObject({ id: first.body.data.id, username: frank });
  });

  it('a wrong password by another spelling still fails like any wrong password', async () => {
    const account = await seedAccount(t().ctx);
    const res = await call(t().app, 'POST', '/api/v1/auth/login', {
      body: { username: account.username.toUpperCase(), password: 'not the password', captcha: await solvedCaptcha(t().app) },
    });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('The username or password is wrong');
  });

  it('of several spellings registered at once, exactly one account is made', async () => {
    const base = name('racer');
    const spellings = [
      base,
      base.toUpperCase(),
      `R${base.slice(1)}`,
      `${base.slice(0, -1)}${base.at(-1)!.toUpperCase()}`,
      `rA${base.slice(2)}`,
    ];
    const answers = await Promise.all(spellings.map((s) => register(s)));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    for (const a of answers.filter((x) => x.status !== 201)) expect(a.status).toBe(409);
    const rows = await t()
      .ctx.db.selectFrom('accounts')
      .select('username')
      .where(sql<string>`lower(username)`, '=', base)
      .execute();
    expect(rows).toHaveLength(1);
  });
});

describe('migration 0014 with usernames that already differ only by case', () => {
  it('merges nothing, reports them, keeps each signing in with its exact spelling, and the oldest owns other spellings', async () => {
    const raw = t().ctx.db.withoutPlugins() as unknown as Kysely<unknown>;
    const dup = name('dup');
    const base = await seedAccount(t().ctx);
    const hash = (await t().ctx.db.selectFrom('accounts').select('passwordHash').where('id', '=', base.id).executeTakeFirstOrThrow())
      .passwordHash;
    // Back to the state before 0014, with three accounts of one name in three cases (oldest first).
    await usernameCase.down(raw);
    const spellings = [dup, dup.toUpperCase(), `D${dup.slice(1)}`];
    const ids: string[] = [];
    for (const [i, username] of spellings.entries()) {
      const id = `acc-${dup}-${i}`;
      ids.push(id);
      await raw
        .insertInto('accounts' as never)
        .values({ id, username, password_hash: hash, role: 'user', disabled: 0, created_at: 1_000 + i } as never)
        .execute();
    }
    const written: string[] = [];
    const original = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    }) as typeof process.stderr.write;
    try {
      await usernameCase.up(raw);
    } finally {
      process.stderr.write = original;
    }
    const report = written.join('');
    expect(report).toContain('differ only by case');
    for (const [i, username] of spellings.entries()) expect(report).toContain(`${username} (account ${ids[i]})`);

    const rows = await t()
      .ctx.db.selectFrom('accounts')
      .select(['id', 'username', 'usernameCaseDuplicate'])
      .where('id', 'in', ids)
      .orderBy('createdAt')
      .execute();
    expect(rows).toEqual([
      { id: ids[0], username: spellings[0], usernameCaseDuplicate: 0 },
      { id: ids[1], username: spellings[1], usernameCaseDuplicate: 1 },
      { id: ids[2], username: spellings[2], usernameCaseDuplicate: 1 },
    ]);
    for (const [i, username] of spellings.entries()) expect((await sessionUser(username)).id).toBe(ids[i]);
    // Any other spelling is the oldest account's; a new account of that name in any case is refused.
    expect((await sessionUser(`dU${dup.slice(2)}`)).id).toBe(ids[0]);
    expect((await register(`dU${dup.slice(2)}`)).status).toBe(409);
  });
});
