import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { verifyPassword } from '../../src/lib/password.ts';
import { TEST_SECRET, useTestApp } from '../helpers/app.ts';
import { runKeyward, type CliRun } from '../helpers/cli.ts';
import { compiledCli } from '../helpers/compiled-build.ts';
import { testDialect } from '../helpers/database.ts';
import { seedAccount } from '../helpers/seed.ts';
import { SIGNIN_ENV, signIn } from '../signin/helpers.ts';

// A DATA_DIR, -wal and -shm files and the file snapshot belong to the embedded database: on PostgreSQL these cases are
// not registered at all (rather than reported as skipped).
const onSqlite = testDialect() === 'sqlite' ? it : () => undefined;
const describeOnSqlite = testDialect() === 'sqlite' ? describe : () => undefined;

/**
 * Contract §22 (what a new seller tripped on): the CLI never prints a stack trace, names a path it cannot use and
 * why, prints its usage for `keyward` and `--help`, and `account reset-password` sets a password and signs the
 * account out.
 */
const t = useTestApp(SIGNIN_ENV);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'keyward-cli-'));
chmodSync(scratch, 0o755);
afterAll(() => chmodSync(scratch, 0o755));

/** A stack trace's lines ("    at rmSync (node:fs…)") or Node's own error dump. */
const STACK = /^\s+at |node:internal|Error: |\{\s*$/m;

/**
 * Runs the CLI. `asOtherUser` runs it as an unprivileged user when the tests run as root (root may write anywhere,
 * which is the very case the seller hit as the service user), so the permission checks are real.
 */
function keyward(args: string[], opts: { stdin?: string; asOtherUser?: boolean; env?: Record<string, string> } = {}): Promise<CliRun> {
  const demote = opts.asOtherUser && process.getuid?.() === 0;
  return runKeyward(
    args,
    { ...(opts.env ?? t().database.env), KEYWARD_SECRET: TEST_SECRET, BASE_URL: 'http://keyward.test' },
    { stdin: opts.stdin, ...(demote ? { user: { uid: 65534, gid: 65534 } } : {}) },
  );
}

/** The database an unprivileged run can open: its own SQLite folder, or the test's PostgreSQL database. */
function otherUserEnv(): Record<string, string> {
  if (testDialect() === 'postgres') return t().database.env;
  const dir = mkdtempSync(join(scratch, 'data-'));
  chmodSync(dir, 0o777);
  return { DATA_DIR: dir };
}

describe('keyward CLI: usage and paths (contract §22)', () => {
  it.each([[[]], [['--help']], [['help']]])('prints the usage for keyward %j, exit 0', async (args) => {
    const res = await keyward(args);
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('Usage:');
    expect(res.stdout).toContain('keyward account reset-password --username');
    expect(res.stdout + res.stderr).not.toContain('unknown command');
  });

  it.each([
    [['account', 'create', '--help'], 'keyward account create --username'],
    [['account', 'reset-password', '-h'], 'keyward account reset-password --username'],
    [['keys', 'import', '--help'], 'keyward keys import --service'],
    [['backup', '--help'], 'keyward backup --out FILE'],
    [['copy-db', '--help'], 'keyward copy-db --to'],
    [['doctor', '--help'], 'keyward doctor'],
  ])('prints only the usage of %j after --help, exit 0 (contract §27)', async (args, line) => {
    const res = await keyward(args);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^Usage:\n/);
    expect(res.stdout).toContain(line);
    expect(res.stdout).not.toContain('keyward migrate');
    expect(res.stderr).not.toMatch(/unknown option|unknown command/i);
  });

  it('backup --out in a folder it may not write: one sentence naming the path and "permission denied"', async () => {
    const folder = mkdtempSync(join(scratch, 'root-owned-'));
    chmodSync(folder, 0o555);
    const out = join(folder, 'backup-test.db');
    const res = await keyward(['backup', '--out', out], { asOtherUser: true, env: otherUserEnv() });
    expect(res.code).toBe(1);
    expect(res.stderr).not.toMatch(STACK);
    expect(res.stderr).toContain(`keyward: cannot write ${out}: permission denied`);
    expect(readdirSync(folder)).toEqual([]);
  });

  it('backup --out into a folder that does not exist names it', async () => {
    const out = join(scratch, 'missing', 'b.db');
    const res = await keyward(['backup', '--out', out]);
    expect(res.code).toBe(1);
    expect(res.stderr).not.toMatch(STACK);
    expect(res.stderr).toContain(`keyward: cannot write ${out}: the folder ${join(scratch, 'missing')} does not exist`);
  });

  it('restore of a file in a folder it may not read says "permission denied", not that there is no file', async () => {
    const folder = mkdtempSync(join(scratch, 'root-only-'));
    const file = join(folder, 'snapshot.db');
    writeFileSync(file, 'x');
    chmodSync(folder, 0o700);
    const res = await keyward(['restore', file], { asOtherUser: true, env: otherUserEnv() });
    expect(res.code).toBe(1);
    expect(res.stderr).not.toMatch(STACK);
    expect(res.stderr).toContain(`keyward: cannot read ${file}: permission denied`);
    expect(res.stderr).not.toContain('there is no file');
  });

  it('restore of a file that is not there says "no such file"', async () => {
    const file = join(scratch, 'nothing-here.db');
    const res = await keyward(['restore', file]);
    expect(res.code).toBe(1);
    expect(res.stderr).not.toMatch(STACK);
    expect(res.stderr).toContain(`keyward: cannot read ${file}: no such file`);
  });

  onSqlite('a DATA_DIR it may not use is named, not "unable to open database file"', async () => {
    const dir = mkdtempSync(join(scratch, 'server-only-'));
    chmodSync(dir, 0o700);
    const res = await keyward(['migrate'], { asOtherUser: true, env: { DATA_DIR: dir } });
    expect(res.code).toBe(1);
    expect(res.stderr).not.toMatch(STACK);
    expect(res.stderr).toContain(`keyward: cannot use ${dir} (DATA_DIR): permission denied`);
  });

  it('an unexpected failure is its message, never a stack trace', async () => {
    const res = await keyward(['account', 'create', '--username', 'short_pw_user'], { stdin: 'short\n' });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('keyward: password must be at least 10 characters');
    expect(res.stderr).not.toMatch(STACK);
  });
});

describe('keyward account reset-password (contract §22)', () => {
  it('sets the new password, lifts nothing else, and signs every session of the account out', async () => {
    const account = await seedAccount(t().ctx);
    const other = await seedAccount(t().ctx);
    const first = await signIn(t().app, account);
    await signIn(t().app, account);
    await signIn(t().app, other);
    const sessionsOf = async (id: string) =>
      (await t().ctx.db.selectFrom('sessions').select('accountId').where('accountId', '=', id).execute()).length;
    expect(await sessionsOf(account.id)).toBe(2);

    const res = await keyward(['account', 'reset-password', '--username', account.username], { stdin: 'a brand new password\n' });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain(`Set a new password for ${account.username}; 2 sessions were signed out.`);
    expect(res.stderr).not.toMatch(STACK);

    const row = await t().ctx.db.selectFrom('accounts').select('passwordHash').where('id', '=', account.id).executeTakeFirstOrThrow();
    expect(await verifyPassword('a brand new password', row.passwordHash!)).toBe(true);
    expect(await sessionsOf(account.id)).toBe(0);
    expect(await sessionsOf(other.id)).toBe(1);
    const session = await t().app.inject({ method: 'GET', url: '/api/v1/auth/session', headers: { cookie: first.cookie } });
    expect(session.statusCode).toBe(401);
    // The new password signs in.
    await signIn(t().app, { username: account.username, password: 'a brand new password' });
  });

  it('an unknown username is one sentence', async () => {
    const res = await keyward(['account', 'reset-password', '--username', 'nobody_at_all'], { stdin: 'a brand new password\n' });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('keyward: There is no account named nobody_at_all');
    expect(res.stderr).not.toMatch(STACK);
  });
});

describeOnSqlite('keyward backup leaves only the snapshot (contract §22)', () => {
  it('no *.partial, -wal or -shm beside the snapshot', async () => {
    const folder = mkdtempSync(join(scratch, 'out-'));
    const res = await keyward(['backup', '--out', join(folder, 'b.db')]);
    expect(res.code, res.stderr).toBe(0);
    expect(readdirSync(folder)).toEqual(['b.db']);
    expect(existsSync(join(folder, 'b.db'))).toBe(true);
  });
});

describeOnSqlite('the backup record survives a restore (contract §22)', () => {
  it('after restoring an older snapshot, the last backup is still the newest one', async () => {
    const env = { DATA_DIR: mkdtempSync(join(scratch, 'live-')) };
    expect((await keyward(['migrate'], { env })).code).toBe(0);
    const folder = mkdtempSync(join(scratch, 'snapshots-'));
    expect((await keyward(['backup', '--out', join(folder, 'first.db')], { env })).code).toBe(0);
    expect((await keyward(['backup', '--out', join(folder, 'second.db')], { env })).code).toBe(0);
    const restored = await keyward(['restore', join(folder, 'first.db')], { env });
    expect(restored.code, restored.stderr).toBe(0);

    const SQLite = (await import('better-sqlite3')).default;
    const db = new SQLite(join(env.DATA_DIR, 'keyward.db'), { readonly: true });
    const runs = db.prepare('select finished_at from backup_runs order by finished_at').all();
    db.close();
    // The snapshot held no record at all (each is written after its copy): both come from the replaced database.
    expect(runs).toHaveLength(2);
  });
});

/** Runs the CLI on a terminal (util-linux `script` gives it one) and types each answer once its prompt shows. */
function onTerminal(args: string[], answers: string[]): Promise<string> {
  return new Promise((resolve) => {
    const command = [...compiledCli(), ...args].map((a) => `'${a}'`).join(' ');
    const child = spawn('script', ['-qc', command, '/dev/null'], {
      cwd: ROOT,
      env: { ...process.env, ...t().database.env, KEYWARD_SECRET: TEST_SECRET, BASE_URL: 'http://keyward.test' },
    });
    let out = '';
    let asked = 0;
    child.stdout.on('data', (chunk) => {
      out += String(chunk);
      const prompts = out.match(/Password( again)?: /g)?.length ?? 0;
      while (asked < prompts && asked < answers.length) child.stdin.write(`${answers[asked++]}\r`);
    });
    child.on('close', () => resolve(out));
  });
}

describe('account create on a terminal asks twice (contract §22)', () => {
  it('creates the account when both answers match', async () => {
    const out = await onTerminal(['account', 'create', '--username', 'typed_twice'], ['a typed password', 'a typed password']);
    expect(out).toContain('Password: ');
    expect(out).toContain('Password again: ');
    expect(out).toContain('Created account typed_twice');
    const row = await t()
      .ctx.db.selectFrom('accounts')
      .select('passwordHash')
      .where('username', '=', 'typed_twice')
      .executeTakeFirstOrThrow();
    expect(await verifyPassword('a typed password', row.passwordHash!)).toBe(true);
  }, 30_000);

  it('refuses when they differ, and creates nothing', async () => {
    const out = await onTerminal(['account', 'create', '--username', 'typo_user'], ['a typed password', 'a typed pasword']);
    expect(out).toContain('keyward: the two passwords differ; nothing was changed.');
    expect(out).not.toMatch(STACK);
    expect(await t().ctx.db.selectFrom('accounts').select('id').where('username', '=', 'typo_user').executeTakeFirst()).toBeUndefined();
  }, 30_000);
});
