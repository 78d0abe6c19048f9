import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { Migrator, sql } from 'kysely';
import { ConfigError, loadConfig, type Config } from '../config.ts';
import { openDatabase, ping, type Db } from '../db/database.ts';
import { migrations } from '../db/migrations/index.ts';
import { isLoopbackHost } from '../lib/ip.ts';
import { checkDiscordRole, checkRedis } from './doctor-checks.ts';

/**
 * `keyward doctor` (contract §11): what a seller gets wrong when going live, one line per finding, checked from the
 * server's own settings. Exit 1 when any finding is an error.
 */
type Level = 'ok' | 'warn' | 'error';
interface Finding {
  level: Level;
  message: string;
}

type Env = Record<string, string | undefined>;

class Findings {
  readonly list: Finding[] = [];
  add(level: Level, message: string) {
    this.list.push({ level, message });
    console.log(`${level.padEnd(5)}  ${message}`);
  }
  get errors() {
    return this.list.filter((f) => f.level === 'error').length;
  }
  get warnings() {
    return this.list.filter((f) => f.level === 'warn').length;
  }
}

const TIMEOUT_MS = 5000;

function whyNot(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if (error instanceof Error && error.name === 'TimeoutError') return `no answer within ${TIMEOUT_MS / 1000} s`;
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}

/** True when the embedded mode has no secret yet (the server would make one). */
function checkSecret(env: Env, found: Findings): boolean {
  if (env.KEYWARD_SECRET) {
    found.add('ok', 'secret: KEYWARD_SECRET is set');
    return false;
  }
  if (env.DATABASE_URL) return false; // loadConfig refuses it, with its own sentence
  const file = resolve(env.DATA_DIR || './data', 'secret');
  if (existsSync(file)) {
    found.add('ok', `secret: kept in ${file} (back it up with the database: keys cannot be read without it)`);
    return false;
  }
  found.add('warn', `secret: KEYWARD_SECRET is unset and ${file} does not exist yet; the server makes one at its first start`);
  return true;
}

async function checkDatabase(config: Config, found: Findings): Promise<Db | null> {
  if (!config.databaseUrl) {
    const file = resolve(config.dataDir, 'keyward.db');
    if (!existsSync(file)) {
      found.add('error', `database: there is no ${file}; is DATA_DIR the server's? (the server creates it at its first start)`);
      return null;
    }
  }
  const where = config.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : `SQLite at ${resolve(config.dataDir, 'keyward.db')}`;
  const handle = openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    await ping(handle.db);
  } catch (error) {
    found.add('error', `database: ${where} does not answer (${whyNot(error)})`);
    await handle.close().catch(() => {});
    return null;
  }
  const migrator = new Migrator({ db: handle.db.withoutPlugins(), provider: { getMigrations: async () => migrations } });
  const pending = (await migrator.getMigrations()).filter((m) => m.executedAt === undefined).map((m) => m.name);
  if (pending.length === 0) found.add('ok', `database: ${where} answers and is migrated`);
  else
    found.add(
      'error',
      `database: ${where} answers but ${pending.length} migration(s) are not applied (${pending.join(', ')}); start the server, or run keyward migrate`,
    );
  if (config.databaseUrl) await checkAutovacuum(handle.db, found);
  return handle.db;
}

// The key tables whose statistics decide how validation and redemption find a key.
const KEY_TABLES = ['active_keys', 'generated_keys', 'key_hwids'];

/**
 * PostgreSQL plans a statement from the statistics autovacuum keeps; without them a table that was small when a
 * connection planned a lookup is scanned whole for as long as that connection lives. Measured (docs/benchmarks.md):
 * a redemption took 5.2 ms of the database's CPU instead of 1.7 once the key tables had grown unanalyzed.
 */
async function checkAutovacuum(db: Db, found: Findings) {
  const { rows } = await sql<{ setting: string }>`select current_setting('autovacuum') as setting`.execute(db);
  const { rows: off } = await sql<{ name: string }>`select relname as name from pg_class
    where relname in (${sql.join(KEY_TABLES)}) and relnamespace = current_schema()::regnamespace
      and 'autovacuum_enabled=false' = any(reloptions) order by relname`.execute(db);
  const advice = 'lookups of keys slow down as the tables grow; turn it on, or run ANALYZE after large imports';
  if (rows[0]?.setting !== 'on') found.add('warn', `database: PostgreSQL's autovacuum is off, so ${advice}`);
  else if (off.length > 0) found.add('warn', `database: autovacuum is off for ${off.map((r) => r.name).join(', ')}, so ${advice}`);
}

async function checkBaseUrl(config: Config, db: Db | null, found: Findings) {
  const base = new URL(config.baseUrl);
  const local = isLoopbackHost(base.hostname);
  if (!config.baseUrlSet) {
    if (isLoopbackHost(config.host)) {
      found.add('warn', `BASE_URL is not set, so links point at ${config.baseUrl}: fine on this machine only`);
    } else {
      found.add(
        'error',
        `BASE_URL is not set, so loadstrings and links point at ${config.baseUrl}, which only this machine can open; set BASE_URL to the address buyers use`,
      );
    }
  }

  let response: Response;
  try {
    response = await fetch(`${config.baseUrl}/healthz`, { signal: AbortSignal.timeout(TIMEOUT_MS), redirect: 'manual' });
  } catch (error) {
    found.add(
      'error',
      `BASE_URL ${config.baseUrl} does not answer (${whyNot(error)}): buyers' loadstrings and links cannot reach this server`,
    );
    return null;
  }
  if (!response.headers.get('x-request-id')) {
    found.add(
      'error',
      `BASE_URL ${config.baseUrl} answers ${response.status}, but not as Keyward (no X-Request-Id): is the proxy forwarding to it?`,
    );
    return null;
  }
  if (!response.ok)
    found.add('error', `BASE_URL ${config.baseUrl}: Keyward answers /healthz with ${response.status} (its database is unavailable)`);

  // This server, not another Keyward: the one answering must know a service of this database.
  const service = db ? await db.selectFrom('services').select(['identifier']).orderBy('createdAt').limit(1).executeTakeFirst() : undefined;
  if (service) {
    const page = await fetch(`${config.baseUrl}/reset/${encodeURIComponent(service.identifier)}`, {
      signal: AbortSignal.timeout(TIMEOUT_MS),
      redirect: 'manual',
    }).catch(() => null);
    if (page?.status === 200) found.add('ok', `BASE_URL ${config.baseUrl} reaches this server`);
    else
      found.add(
        'error',
        `BASE_URL ${config.baseUrl} reaches a Keyward server that does not know this database's service "${service.identifier}": another server or database`,
      );
  } else found.add('ok', `BASE_URL ${config.baseUrl} reaches a Keyward server (no service yet to tell whether it uses this database)`);

  if (base.protocol === 'https:') found.add('ok', 'BASE_URL is https');
  else if (local) found.add('warn', 'BASE_URL is plain http: fine on this machine; buyers and Discord need https (docs/deploy.md)');
  else
    found.add(
      'error',
      'BASE_URL is plain http: keys and sessions cross the network readable and Discord refuses the interactions URL; put Caddy in front for https (docs/deploy.md)',
    );
  return response;
}

function checkTrustProxy(config: Config, response: Response | null, found: Findings) {
  // Keyward itself never speaks https, so an https BASE_URL that reaches it means a proxy in front.
  const via = response?.headers.get('via') ?? null;
  const proxied = new URL(config.baseUrl).protocol === 'https:' || via !== null;
  const setting = config.trustProxy;
  const said = Array.isArray(setting) ? setting.join(',') : String(setting);
  if (proxied && setting === false) {
    found.add(
      'error',
      'TRUST_PROXY is not set but a proxy is in front (BASE_URL is https): every client looks like the proxy, so one client spends every budget; set TRUST_PROXY=1',
    );
  } else if (!proxied && setting !== false) {
    found.add(
      'warn',
      `TRUST_PROXY=${said} but no proxy seems to be in front: a client reaching the server directly may choose its address with X-Forwarded-For`,
    );
  } else if (setting === true) {
    found.add(
      'warn',
      'TRUST_PROXY=true believes every X-Forwarded-For entry, so a client can choose its address; set the number of proxies (1 behind Caddy)',
    );
  } else found.add('ok', proxied ? `TRUST_PROXY=${said} with a proxy in front` : 'TRUST_PROXY is off and no proxy is in front');
}

async function checkServices(config: Config, db: Db, found: Findings) {
  const services = await db
    .selectFrom('services')
    .select(['id', 'identifier', 'name', 'webhookUrl', 'webhookEnabled', 'chatInteractionsPublicKey'])
    .orderBy('createdAt')
    .limit(500)
    .execute();
  const https = config.baseUrl.startsWith('https:');
  for (const service of services) {
    const label = `service "${service.name}" (${service.identifier})`;
    if (service.webhookEnabled && !service.webhookUrl) found.add('error', `${label}: the Discord webhook is on but has no URL`);
    else if (service.webhookEnabled) {
      const failed = await db
        .selectFrom('webhookOutbox')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('serviceId', '=', service.id)
        .where('status', '=', 'failed')
        .executeTakeFirst();
      const count = Number(failed?.n ?? 0);
      if (count > 0)
        found.add('warn', `${label}: ${count} Discord webhook message(s) failed; check the webhook URL on the service's Webhook page`);
      else found.add('ok', `${label}: the Discord webhook is set`);
    }
    await checkDiscordRole(db, service.id, label, (level, message) => found.add(level, message));
    if (service.chatInteractionsPublicKey) {
      const url = `${config.baseUrl}/api/v1/chat/interactions/${service.identifier}`;
      if (https) found.add('ok', `${label}: Discord's Interactions Endpoint URL is ${url}`);
      else found.add('error', `${label}: the Discord bot needs an https Interactions Endpoint URL, and ${url} is not`);
    }
  }
}

export async function doctorCommand(env: Env = process.env): Promise<number> {
  const found = new Findings();
  const secretMissing = checkSecret(env, found);
  let config: Config;
  try {
    // A stand-in secret where none exists yet: loading the settings must not create DATA_DIR/secret as a side effect.
    config = loadConfig(secretMissing ? { ...env, KEYWARD_SECRET: 'doctor-placeholder-secret' } : env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    found.add('error', `settings: ${error.message}`);
    console.log(`1 error: the server would not start.`);
    return 1;
  }
  const db = await checkDatabase(config, found);
  try {
    const response = await checkBaseUrl(config, db, found);
    checkTrustProxy(config, response, found);
    await checkRedis(config, (level, message) => found.add(level, message));
    if (db) await checkServices(config, db, found);
  } finally {
    await db?.destroy();
  }
  const { errors, warnings } = found;
  console.log(
    errors === 0
      ? `No errors${warnings ? `, ${warnings} warning(s)` : ''}.`
      : `${errors} error(s), ${warnings} warning(s): fix the errors above.`,
  );
  return errors > 0 ? 1 : 0;
}
