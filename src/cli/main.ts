import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Config } from '../config.ts';
import { AppError } from '../errors.ts';
import type { AppContext, Log } from '../context.ts';
import type { Role } from '../modules/accounts/accounts.service.ts';
import { OpsError } from './cli-errors.ts';
import { assertUsableFolder, pathProblem, PathError } from './paths.ts';
import { USAGE, usageOf } from './usage.ts';

// Each command imports what it runs when it runs: loading the whole app (the database drivers, every module) took
// most of a second, so `keyward --help` and a mistyped command paid for it before saying anything.

/**
 * Which database a command works on, said on every run (stderr, so --json output stays clean): run without
 * the server's DATA_DIR, the CLI would otherwise silently write a second database the server never reads.
 */
function announceDatabase(config: Config): void {
  let where: string;
  if (config.databaseUrl) {
    const url = new URL(config.databaseUrl);
    where = `PostgreSQL at ${url.host}${url.pathname} (DATABASE_URL)`;
  } else {
    where = `SQLite at ${resolve(config.dataDir, 'keyward.db')} (DATA_DIR)`;
    // SQLite would only say "unable to open database file": name the folder and why, before opening it.
    assertUsableFolder(config.dataDir, 'DATA_DIR');
  }
  console.error(`keyward: using ${where}`);
}

/** The password from a hidden prompt on a terminal, else the first line of stdin (`echo … | keyward …`). */
async function readPassword(): Promise<string> {
  const input = process.stdin;
  if (!input.isTTY) {
    const lines = createInterface({ input });
    for await (const line of lines) return line;
    return '';
  }
  // On a terminal nobody sees what they typed: asked twice, so a typo does not become the password.
  const first = await promptHidden('Password: ');
  const second = await promptHidden('Password again: ');
  if (first !== second) throw new OpsError('the two passwords differ; nothing was changed. Run the command again.');
  return first;
}

/**
 * One hidden line from the terminal. Read with a listener, not `for await`: leaving such a loop destroys stdin, and
 * the second prompt ("Password again") would find it closed.
 */
function promptHidden(prompt: string): Promise<string> {
  const input = process.stdin;
  process.stderr.write(prompt);
  input.setRawMode(true);
  input.setEncoding('utf8');
  return new Promise((resolve, reject) => {
    let typed = '';
    const finish = (error: Error | null) => {
      input.off('data', onData);
      input.off('end', onEnd);
      input.setRawMode(false);
      input.pause();
      process.stderr.write('\n');
      if (error) reject(error);
      else resolve(typed);
    };
    const onEnd = () => finish(null);
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === '\u0003') return finish(new OpsError('cancelled'));
        if (char === '\r' || char === '\n') return finish(null);
        if (char === '\u007f' || char === '\b') typed = typed.slice(0, -1);
        else typed += char;
      }
    };
    input.on('data', onData);
    input.once('end', onEnd);
    input.resume();
  });
}

async function withContext<T>(run: (ctx: AppContext) => Promise<T>): Promise<T> {
  const config = loadConfig();
  announceDatabase(config);
  const [{ migrate, openDatabase }, { createContext }] = await Promise.all([import('../db/database.ts'), import('../modules/state.ts')]);
  const database = openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  let ctx: AppContext | undefined;
  try {
    await migrate(database.db);
    ctx = await createContext({ config, database, ownsDatabase: true, log: cliLog, role: 'cli' });
    return await run(ctx);
  } finally {
    await (ctx ? ctx.close() : database.close());
  }
}

/** The CLI talks to a person: warnings and errors as plain lines on stderr, nothing else. */
const cliLog: Log = {
  info: () => {},
  warn: (_obj, msg) => console.error(`keyward: warning: ${msg ?? ''}`),
  error: (_obj, msg) => console.error(`keyward: ${msg ?? ''}`),
};

const HELP_FLAGS = new Set(['--help', '-h']);

async function main(argv: string[]): Promise<number> {
  const [command, subcommand] = argv;
  if (!command || HELP_FLAGS.has(command) || command === 'help') {
    console.log(USAGE);
    return 0;
  }
  const helpAt = argv.findIndex((arg) => HELP_FLAGS.has(arg));
  if (helpAt > 0) {
    console.log(usageOf(argv.slice(0, helpAt).filter((word) => !word.startsWith('-'))));
    return 0;
  }
  if (command === 'migrate') {
    const config = loadConfig();
    announceDatabase(config);
    const { migrate, openDatabase } = await import('../db/database.ts');
    const database = openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
    try {
      const applied = await migrate(database.db);
      console.log(applied.length ? `Applied ${applied.length} migration(s): ${applied.join(', ')}` : 'The database is up to date.');
    } finally {
      await database.close();
    }
    return 0;
  }
  if (command === 'backup' || command === 'restore') {
    const config = loadConfig();
    announceDatabase(config);
    const { backupCommand, restoreCommand } = await import('./backup.ts');
    return command === 'backup' ? backupCommand(config, argv.slice(1)) : restoreCommand(config, argv.slice(1));
  }
  if (command === 'doctor') return (await import('./doctor.ts')).doctorCommand();
  if (command === 'copy-db') {
    const config = loadConfig();
    announceDatabase(config);
    const { copyDbCommand } = await import('./copy-db.ts');
    return copyDbCommand(config, argv.slice(1));
  }
  if (command === 'keys') {
    const { keysCommand } = await import('./keys.ts');
    const code = await keysCommand(withContext, argv.slice(1));
    if (code !== undefined) return code;
  }
  if (command === 'account' && subcommand === 'create') {
    const { values } = parseArgs({
      args: argv.slice(2),
      options: {
        username: { type: 'string' },
        password: { type: 'string' },
        role: { type: 'string', default: 'user' },
        json: { type: 'boolean', default: false },
      },
      strict: true,
    });
    if (!values.username) {
      console.error('account create needs --username\n\n' + USAGE);
      return 2;
    }
    // A password typed as an argument lands in the shell history: without --password it is asked for.
    const password = values.password ?? (await readPassword());
    const { createAccount, revealAccountKey } = await import('../modules/accounts/accounts.service.ts');
    const result = await withContext(async (ctx) => {
      const account = await createAccount(ctx, { username: values.username!, password, role: values.role as Role });
      return { id: account.id, username: account.username, accountKey: await revealAccountKey(ctx, account.id) };
    });
    if (values.json) console.log(JSON.stringify(result));
    else
      console.log(
        `Created account ${result.username} (${result.id}).\nAccount key: ${result.accountKey}\nKeep it secret: it acts as you on the API.`,
      );
    return 0;
  }
  if (command === 'account' && subcommand === 'reset-password') {
    const { values } = parseArgs({
      args: argv.slice(2),
      options: { username: { type: 'string' }, password: { type: 'string' } },
      strict: true,
    });
    if (!values.username) {
      console.error('account reset-password needs --username\n\n' + USAGE);
      return 2;
    }
    const password = values.password ?? (await readPassword());
    const { resetPassword } = await import('../modules/auth/auth.service.ts');
    const { endedSessions } = await withContext((ctx) => resetPassword(ctx, { username: values.username!, password }));
    console.log(
      `Set a new password for ${values.username}; ${endedSessions === 1 ? '1 session was' : `${endedSessions} sessions were`} signed out. ` +
        'The account key is unchanged.',
    );
    return 0;
  }
  console.error(
    `keyward: unknown command "${argv
      .filter((a) => !a.startsWith('-'))
      .slice(0, 2)
      .join(' ')}"\n\n${USAGE}`,
  );
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    // Never a stack trace: what the person can fix is one sentence, and anything else is its message alone.
    const path = pathProblem(error);
    if (path) console.error(`keyward: ${path}`);
    else if (error instanceof ConfigError || error instanceof AppError || error instanceof OpsError || error instanceof PathError)
      console.error(`keyward: ${error.message}`);
    else if (error instanceof Error && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS'))
      console.error(`keyward: ${error.message}\n\n${USAGE}`);
    else console.error(`keyward: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
