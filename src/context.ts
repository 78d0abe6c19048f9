import { hkdfSync } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Config } from './config.ts';
import type { Db, DbHandle, Dialect, PoolUse } from './db/database.ts';
import { publishingBus, startInvalidationBus, type InvalidationBus } from './db/invalidation.ts';
import { Sealer } from './lib/secrets.ts';
import { systemClock, type Clock } from './lib/time.ts';
import { providersFrom, type ObfuscatedType, type ObfuscationProvider } from './obfuscation/index.ts';

/** What background work and domain code may log through: pino's shape (Fastify's logger is one). */
export interface Log {
  info(obj: unknown, msg?: string): void;
  warn(obj: unknown, msg?: string): void;
  error(obj: unknown, msg?: string): void;
}

/** For code that has nobody to tell (benchmarks, tests that build a context of their own). */
export const silentLog: Log = { info: () => {}, warn: () => {}, error: () => {} };

/**
 * What the modules keep per app instance (caches, counters, workers). This file names no module: the fields are
 * declared where they are built, in src/modules/state.ts, which adds them here by interface merging.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface ModuleState {}

/** What a job runner answers to (src/jobs/runner.ts is the one the server builds). */
export interface JobControl {
  kick(name: string): void;
  settled(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The background jobs as domain code and tests see them. The server's runner is built in app.ts once the context
 * exists and is attached here; a context with no runner (the CLI, benchmarks, a test's own context) runs no job: a
 * kick does nothing and nothing is ever pending.
 */
export class Jobs implements JobControl {
  private runner: JobControl | null = null;

  attach(runner: JobControl): void {
    if (this.runner) throw new Error('this context already has a job runner');
    this.runner = runner;
  }

  kick(name: string): void {
    this.runner?.kick(name);
  }

  async settled(): Promise<void> {
    await this.runner?.settled();
  }

  async stop(): Promise<void> {
    await this.runner?.stop();
  }
}

/** The parts of an app instance that belong to no module: configuration, storage, secrets, time, logging. */
export interface Infrastructure {
  config: Config;
  db: Db;
  dialect: Dialect;
  /** PostgreSQL's connection pool use, for /metrics; null on SQLite. */
  poolUse: (() => PoolUse) | null;
  sealer: Sealer;
  clock: Clock;
  log: Log;
  redis: Redis | null;
  /** Tells every instance which cached copies went stale (db/invalidation.ts). */
  bus: InvalidationBus;
  /** Keys derived from the server secret, each for one purpose. */
  keys: { captchaHmac: string; vaultTokenMac: Buffer };
  /** The obfuscators this server has configured, by type. */
  obfuscators: Partial<Record<ObfuscatedType, ObfuscationProvider>>;
  /** Lets go of the bus, Redis and, if it opened it, the database. */
  close(): Promise<void>;
}

/**
 * Everything one app instance holds, built once by createContext() (src/modules/state.ts): what domain code may
 * depend on, and no HTTP. Services take it (or its parts) as arguments; nothing per-app lives in module-level tables.
 */
export interface AppContext extends Infrastructure, ModuleState {
  /** The background jobs (src/jobs/registry.ts); started by the server, never by the CLI. */
  jobs: Jobs;
  /** Ends running exports, stops the jobs (flushing what they hold), then lets go of the infrastructure. */
  close(): Promise<void>;
}

export interface ContextOptions {
  config: Config;
  /** An open database; the context closes it only when `ownsDatabase`. */
  database: DbHandle;
  ownsDatabase: boolean;
  log: Log;
  clock?: Clock;
  /**
   * `server`: Redis when configured, an invalidation bus that listens, analytics as configured. `cli`: a
   * one-shot command that only tells running servers what it changed, counts nothing, runs no jobs.
   */
  role: 'server' | 'cli';
}

/** How often at most the server says that Redis does not answer (contract §22: one sentence, once a minute). */
const REDIS_WARNING_EVERY_MS = 60_000;

/**
 * Redis is an add-on (contract §6): while it does not answer, limits and caches are per instance and the server
 * serves anyway. ioredis reconnects by itself and reports each failed try as an error; instead of a bare line per
 * try, the operator reads one sentence that names REDIS_URL, at most once a minute, and one when it answers again.
 */
function watchRedis(redis: Redis, log: Log, clock: () => number): void {
  let warnedAt: number | null = null;
  redis.on('error', (err: Error) => {
    const now = clock();
    if (warnedAt !== null && now - warnedAt < REDIS_WARNING_EVERY_MS) return;
    warnedAt = now;
    log.warn(
      { reason: err.message },
      'Redis at REDIS_URL does not answer; serving anyway with rate limits and caches kept per instance until it does',
    );
  });
  redis.on('ready', () => {
    if (warnedAt === null) return;
    warnedAt = null;
    log.info('Redis at REDIS_URL answers again; rate limits and caches are shared again');
  });
}

/** Whether the configured Redis answers now: `null` when none is configured (for /healthz and keyward doctor). */
export const redisState = (redis: Redis | null): 'ok' | 'unreachable' | null =>
  redis === null ? null : redis.status === 'ready' ? 'ok' : 'unreachable';

const derivedKey = (secret: string, purpose: string) => Buffer.from(hkdfSync('sha256', secret, 'keyward', `keyward:${purpose}:v1`, 32));

/** Opens what every app instance needs before any module: Redis (servers only), the invalidation bus, derived keys. */
export async function openInfrastructure(options: ContextOptions): Promise<Infrastructure> {
  const { config, database, log, role } = options;
  const clock = options.clock ?? systemClock;
  const server = role === 'server';
  const redis =
    server && config.redisUrl
      ? new Redis(config.redisUrl, { maxRetriesPerRequest: 1, connectTimeout: 2000, enableOfflineQueue: false, lazyConnect: false })
      : null;
  if (redis) watchRedis(redis, log, clock);
  const bus = server ? await startInvalidationBus(config, database.db, redis, log) : publishingBus(database.db, database.dialect);
  return {
    config,
    db: database.db,
    dialect: database.dialect,
    poolUse: database.poolUse ?? null,
    sealer: new Sealer(config.secret),
    clock,
    log,
    redis,
    bus,
    keys: { captchaHmac: derivedKey(config.secret, 'captcha').toString('hex'), vaultTokenMac: derivedKey(config.secret, 'vault-token') },
    obfuscators: providersFrom(config.obfuscation),
    close: async () => {
      await bus.close();
      redis?.disconnect();
      if (options.ownsDatabase) await database.close();
    },
  };
}
