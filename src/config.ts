import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import { isAddressOrRange } from './lib/ip.ts';
import { trustProxyEntryProblem } from './lib/trust-proxy.ts';

export interface Config {
  host: string;
  port: number;
  baseUrl: string;
  /** False when BASE_URL was left unset and baseUrl is the http://localhost:<PORT> default. */
  baseUrlSet: boolean;
  dataDir: string;
  databaseUrl: string | null;
  /** PostgreSQL connections each instance keeps at most (DATABASE_POOL_SIZE). */
  databasePoolSize: number;
  redisUrl: string | null;
  secret: string;
  /** Which proxies' X-Forwarded-For to believe: false, true, a hop count, or a list of addresses/CIDRs (lib/trust-proxy.ts). */
  trustProxy: boolean | number | string[];
  hwidHeaders: string[];
  rateLimit: { clientPerMinute: number; apiPerMinute: number; loginPerMinute: number; authFailuresPerMinute: number };
  /** Contract §10: headers and body must arrive within this, else 408 and the connection closes. */
  requestTimeoutSeconds: number;
  maintenance: { pruneIntervalMs: number; outboxRetentionDays: number };
  registration: 'open' | 'closed';
  /** Sign-in: ALTCHA proof-of-work difficulty and lifetime, dashboard session lifetimes. */
  signin: { captchaMaxNumber: number; captchaTtlSeconds: number; sessionIdleMinutes: number; sessionAbsoluteHours: number };
  chatWebhookOrigins: string[];
  /** Origins event endpoints may use besides any public https one (http and loopback allowed: trusted, for tests). */
  eventWebhookOrigins: string[];
  /** Where Discord's API is (contract §12.3); another value is trusted, for tests. */
  discordApiUrl: string;
  /** Key-system provider APIs (contract §8); the bases are overridable for tests only, like CHAT_WEBHOOK_ORIGINS. */
  keySystem: { workinkApiUrl: string; linkvertiseApiUrl: string; lootlabsApiUrl: string; providerTimeoutMs: number };
  /** How often each instance looks for queued webhook messages; 0 turns the background worker off. */
  webhookWorkerIntervalMs: number;
  logLevel: string;
  /** Readable lines for a person at a terminal, JSON for a log collector (contract §27). */
  logFormat: 'pretty' | 'json';
  /** In-memory analytics counting on the client routes (ANALYTICS=off lets the benchmark measure its cost). */
  analytics: boolean;
  /** GET /metrics (contract §10): off unless METRICS=on, then only for METRICS_ALLOW addresses/CIDRs. */
  metrics: { enabled: boolean; allow: string[] };
  /** How often each instance writes its analytics counts (contract §7.5: at most 5 s late). */
  analyticsFlushMs: number;
  /** Audit entries older than this are pruned (contract §7.6). */
  auditRetentionDays: number;
  /** Memory each instance may spend on script code it serves (whole blobs, least recently used out). */
  scriptCacheBytes: number;
  /** How long an instance may answer from its copy of a key's verdict inputs; 0 reads every time. */
  verdictCacheMs: number;
  /** Applies migrations when the app starts; the CLI's `migrate` sets it too. */
  migrateOnStart: boolean;
  /** Script obfuscation providers (see src/obfuscation): a command per type, and Luraph's HTTP API. */
  obfuscation: {
    commands: Partial<Record<'IB1' | 'LURAPH' | 'WYNFUSCATOR', string>>;
    timeoutMs: number;
    maxOutputBytes: number;
    luraph: { apiKey: string | null; apiUrl: string; pollIntervalMs: number };
  };
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

// How many statements an instance runs at once on PostgreSQL; instances × this must stay under PostgreSQL's
// max_connections. The default stays at the driver's usual 10: redeemPostgres32 (bench/run.ts) gave 496 and 545 a
// second with 10 and 507 and 672 with 40, no difference the test VM's noise allows claiming.
const DEFAULT_POOL_SIZE = 10;

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

function list(raw: string | undefined, fallback: string[]): string[] {
  if (raw === undefined) return fallback;
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

function parseTrustProxy(raw: string | undefined): Config['trustProxy'] {
  if (raw === undefined || raw === '' || raw === 'false') return false;
  if (raw === 'true') return true;
  if (/^\d+$/.test(raw)) {
    const hops = Number(raw);
    if (hops > 100)
      throw new ConfigError(`TRUST_PROXY: ${raw} proxies in front of the server is not plausible (a hop count is usually 1 or 2)`);
    return hops === 0 ? false : hops;
  }
  const entries = list(raw, []);
  for (const entry of entries) {
    const problem = trustProxyEntryProblem(entry);
    if (problem) throw new ConfigError(`TRUST_PROXY: ${problem} (use true, a number of proxies, or addresses)`);
  }
  return entries;
}

function parseUrl(name: string, raw: string): URL {
  try {
    return new URL(raw);
  } catch {
    throw new ConfigError(`${name} is not a valid URL: "${raw}"`);
  }
}

/** An API base URL without a trailing slash. */
const apiBase = (env: Env, name: string, fallback: string) =>
  parseUrl(name, (env[name] || fallback).replace(/\/+$/, '')).href.replace(/\/+$/, '');

/** The secret is generated once and kept beside the embedded database, so restarts keep revealing keys. */
function loadOrCreateSecret(dataDir: string): string {
  const file = join(dataDir, 'secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(32).toString('base64url');
  writeFileSync(file, secret + '\n', { mode: 0o600 });
  return secret;
}

export const DEFAULT_HWID_HEADERS = [
  'syn-fingerprint',
  'krnl-hwid',
  'krnl-fingerprint',
  'sw-fingerprint',
  'syn-user-identifier',
  'sw-user-identifier',
  'fingerprint',
];

export function loadConfig(env: Env = process.env): Config {
  const port = int(env, 'PORT', 3000, 0, 65535);
  // Unset, it follows PORT: loadstrings must point at where this server actually listens.
  const baseUrl = (env.BASE_URL || `http://localhost:${port}`).replace(/\/+$/, '');
  const base = parseUrl('BASE_URL', baseUrl);
  if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new ConfigError('BASE_URL must be http or https');

  const databaseUrl = env.DATABASE_URL || null;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must start with postgres:// (leave it unset for the embedded SQLite database)');
  }
  const dataDir = resolve(env.DATA_DIR || './data');

  let secret = env.KEYWARD_SECRET || '';
  if (secret && secret.length < 16) throw new ConfigError('KEYWARD_SECRET must be at least 16 characters');
  if (!secret) {
    if (databaseUrl) {
      throw new ConfigError('KEYWARD_SECRET is required with DATABASE_URL: every instance must share one secret');
    }
    secret = loadOrCreateSecret(dataDir);
  }

  const registration = env.REGISTRATION ?? 'closed';
  if (registration !== 'open' && registration !== 'closed') throw new ConfigError('REGISTRATION must be open or closed');

  const analytics = env.ANALYTICS ?? 'on';
  if (analytics !== 'on' && analytics !== 'off') throw new ConfigError('ANALYTICS must be on or off');

  const chatWebhookOrigins = list(env.CHAT_WEBHOOK_ORIGINS, []).map((o) => parseUrl('CHAT_WEBHOOK_ORIGINS', o).origin);
  const eventWebhookOrigins = list(env.EVENT_WEBHOOK_ORIGINS, []).map((o) => parseUrl('EVENT_WEBHOOK_ORIGINS', o).origin);

  const logFormat = env.LOG_FORMAT || (process.stdout.isTTY ? 'pretty' : 'json');
  if (logFormat !== 'pretty' && logFormat !== 'json') throw new ConfigError('LOG_FORMAT must be pretty or json');
  const metrics = env.METRICS ?? 'off';
  if (metrics !== 'on' && metrics !== 'off') throw new ConfigError('METRICS must be on or off');
  const metricsAllow = list(env.METRICS_ALLOW, ['127.0.0.0/8', '::1']);
  for (const entry of metricsAllow) {
    if (!isAddressOrRange(entry)) throw new ConfigError(`METRICS_ALLOW: "${entry}" is not an IP address or CIDR range`);
  }

  return {
    host: env.HOST || '0.0.0.0',
    port,
    baseUrl,
    baseUrlSet: Boolean(env.BASE_URL),
    dataDir,
    databaseUrl,
    databasePoolSize: int(env, 'DATABASE_POOL_SIZE', DEFAULT_POOL_SIZE, 1, 500),
    redisUrl: env.REDIS_URL || null,
    secret,
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    hwidHeaders: list(env.HWID_HEADERS, DEFAULT_HWID_HEADERS).map((h) => h.toLowerCase()),
    rateLimit: {
      clientPerMinute: int(env, 'RATE_LIMIT_CLIENT_PER_MINUTE', 120, 0, 1e9),
      apiPerMinute: int(env, 'RATE_LIMIT_API_PER_MINUTE', 600, 0, 1e9),
      loginPerMinute: int(env, 'RATE_LIMIT_LOGIN_PER_MINUTE', 10, 0, 1e9),
      authFailuresPerMinute: int(env, 'RATE_LIMIT_AUTH_FAILURES_PER_MINUTE', 30, 0, 1e9),
    },
    requestTimeoutSeconds: int(env, 'REQUEST_TIMEOUT_SECONDS', 30, 1, 3600),
    maintenance: {
      pruneIntervalMs: int(env, 'PRUNE_INTERVAL_MS', 3_600_000, 0, 86_400_000),
      outboxRetentionDays: int(env, 'OUTBOX_RETENTION_DAYS', 7, 1, 3650),
    },
    registration,
    signin: {
      captchaMaxNumber: int(env, 'CAPTCHA_MAX_NUMBER', 100_000, 10, 10_000_000),
      captchaTtlSeconds: int(env, 'CAPTCHA_TTL_SECONDS', 600, 10, 86_400),
      sessionIdleMinutes: int(env, 'SESSION_IDLE_MINUTES', 720, 1, 525_600),
      sessionAbsoluteHours: int(env, 'SESSION_ABSOLUTE_HOURS', 168, 1, 8_760),
    },
    chatWebhookOrigins,
    eventWebhookOrigins,
    discordApiUrl: apiBase(env, 'DISCORD_API_URL', 'https://discord.com'),
    keySystem: {
      workinkApiUrl: apiBase(env, 'WORKINK_API_URL', 'https://work.ink'),
      linkvertiseApiUrl: apiBase(env, 'LINKVERTISE_API_URL', 'https://publisher.linkvertise.com'),
      lootlabsApiUrl: apiBase(env, 'LOOTLABS_API_URL', 'https://creators.lootlabs.gg'),
      providerTimeoutMs: int(env, 'KEY_SYSTEM_PROVIDER_TIMEOUT_MS', 5000, 100, 60_000),
    },
    webhookWorkerIntervalMs: int(env, 'WEBHOOK_WORKER_INTERVAL_MS', 2000, 0, 3_600_000),
    logLevel: env.LOG_LEVEL || 'info',
    logFormat,
    analytics: analytics === 'on',
    metrics: { enabled: metrics === 'on', allow: metricsAllow },
    analyticsFlushMs: int(env, 'ANALYTICS_FLUSH_MS', 2000, 100, 5000),
    auditRetentionDays: int(env, 'AUDIT_RETENTION_DAYS', 365, 1, 36_500),
    scriptCacheBytes: int(env, 'SCRIPT_CACHE_MB', 64, 0, 65_536) * 1024 * 1024,
    verdictCacheMs: int(env, 'VERDICT_CACHE_MS', 1000, 0, 1000),
    migrateOnStart: true,
    obfuscation: {
      commands: Object.fromEntries(
        (['IB1', 'LURAPH', 'WYNFUSCATOR'] as const).flatMap((t) =>
          env[`OBFUSCATOR_${t}_COMMAND`] ? [[t, env[`OBFUSCATOR_${t}_COMMAND`]!]] : [],
        ),
      ),
      timeoutMs: int(env, 'OBFUSCATOR_TIMEOUT_MS', 300_000, 100, 86_400_000),
      maxOutputBytes: int(env, 'OBFUSCATOR_MAX_OUTPUT_BYTES', 128 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
      luraph: {
        apiKey: env.LURAPH_API_KEY || null,
        apiUrl: parseUrl('LURAPH_API_URL', (env.LURAPH_API_URL || 'https://api.lura.ph/v1').replace(/\/+$/, '')).href.replace(/\/+$/, ''),
        pollIntervalMs: int(env, 'LURAPH_POLL_INTERVAL_MS', 2000, 10, 600_000),
      },
    },
  };
}
