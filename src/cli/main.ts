import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config.ts';
import { migrate, openDatabase } from '../db/database.ts';
import { AppError } from '../errors.ts';
import { Sealer } from '../lib/secrets.ts';
import { systemClock } from '../lib/time.ts';
import type { AppContext } from '../context.ts';
import { AnalyticsAggregator } from '../modules/analytics/aggregator.ts';
import { createAccount, revealAccountKey, type Role } from '../modules/accounts/accounts.service.ts';
import { keysCommand, KEYS_USAGE } from './keys.ts';

const USAGE = `Usage:
  keyward account create --username <name> --password <password> [--role user|moderator|admin] [--json]
  keyward migrate
${KEYS_USAGE}

Uses the same settings as the server: DATABASE_URL (PostgreSQL) or DATA_DIR (embedded SQLite), KEYWARD_SECRET.`;

async function withContext<T>(run: (ctx: AppContext) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const database = openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    await migrate(database.db);
    return await run({ config, db: database.db, dialect: database.dialect, sealer: new Sealer(config.secret), clock: systemClock, redis: null, analytics: new AnalyticsAggregator(systemClock, false) });
  } finally {
    await database.close();
  }
}

async function main(argv: string[]): Promise<number> {
  const [command, subcommand] = argv;
  if (command === 'migrate') {
    const config = loadConfig();
    const database = openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
    try {
      const applied = await migrate(database.db);
      console.log(applied.length ? `Applied ${applied.length} migration(s): ${applied.join(', ')}` : 'The database is up to date.');
    } finally {
      await database.close();
    }
    return 0;
  }
  if (command === 'keys') {
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
    if (!values.username || !values.password) {
      console.error('account create needs --username and --password\n\n' + USAGE);
      return 2;
    }
    const result = await withContext(async (ctx) => {
      const account = await createAccount(ctx, { username: values.username!, password: values.password!, role: values.role as Role });
      return { id: account.id, username: account.username, accountKey: await revealAccountKey(ctx, account.id) };
    });
    if (values.json) console.log(JSON.stringify(result));
    else console.log(`Created account ${result.username} (${result.id}).\nAccount key: ${result.accountKey}\nKeep it secret: it acts as you on the API.`);
    return 0;
  }
  console.error(USAGE);
  return command ? 2 : 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof ConfigError || error instanceof AppError) console.error(`keyward: ${error.message}`);
    else if (error instanceof Error && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS')) console.error(`keyward: ${error.message}\n\n${USAGE}`);
    else console.error('keyward:', error);
    process.exit(1);
  },
);
