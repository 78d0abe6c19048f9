import { describe, expect, it } from 'vitest';
import { verifyPassword } from '../../src/lib/password.ts';
import { TEST_SECRET, useTestApp } from '../helpers/app.ts';
import { runKeyward } from '../helpers/cli.ts';
import { testDialect } from '../helpers/database.ts';

/** Issue 8's CLI frictions: say which database, say a command is unknown, ask for the password instead of taking it as an argument. */
const t = useTestApp();
function keyward(args: string[], stdin = '') {
  return runKeyward(args, { ...t().database.env, KEYWARD_SECRET: TEST_SECRET, BASE_URL: 'http://keyward.test' }, { stdin });
}

describe('keyward CLI messages', () => {
  it('reads the password from stdin when --password is absent, and says which database it wrote to', async () => {
    const res = await keyward(['account', 'create', '--username', 'piped_user', '--json'], 'a long piped password\n');
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toContain(
      testDialect() === 'postgres' ? 'keyward: using PostgreSQL at 127.0.0.1:5432/' : 'keyward: using SQLite at ',
    );
    expect(JSON.parse(res.stdout)).toMatchObject({ username: 'piped_user' });
    const row = await t()
      .ctx.db.selectFrom('accounts')
      .select('passwordHash')
      .where('username', '=', 'piped_user')
      .executeTakeFirstOrThrow();
    expect(await verifyPassword('a long piped password', row.passwordHash!)).toBe(true);
  });

  it('says a command is unknown, with exit code 2', async () => {
    const res = await keyward(['keys', 'list']);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('keyward: unknown command "keys list"');
    expect(res.stderr).toContain('Usage:');
  });
});
