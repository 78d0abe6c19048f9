import { hkdfSync } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Config } from './config.ts';
import { writesOf, type Db, type DbHandle, type Dialect, type PoolUse } from './db/database.ts';
import { jobs } from './jobs.ts';
import { publishingBus, startInvalidationBus, type InvalidationBus } from './lib/invalidation.ts';
import { JobRunner } from './lib/jobs.ts';
import type { OutboundPolicy } from './lib/outbound.ts';
import { Sealer } from './lib/secrets.ts';
import { systemClock, type Clock } from './lib/time.ts';
import { AnalyticsAggregator } from './modules/analytics/aggregator.ts';
import { ExportWorkers } from './modules/keys/export-workers.ts';
import { DeliveryCache } from './modules/loader/delivery-cache.ts';
import { ExecutionCounter } from './modules/loader/execution-counter.ts';
import { ServiceLookup } from './modules/services/service-lookup.ts';
import { KeyTouches } from './modules/validation/key-touches.ts';
import { VerdictCache } from './modules/validation/verdict-cache.ts';
import { outboundPolicy } from './modules/webhook/webhook.service.ts';
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
 * Everything one app instance holds, built once by createContext(): what domain code may depend on, and no
 * HTTP. Services take it (or its parts) as arguments; nothing per-app lives in module-level tables.
 */
export interface AppContext {
  config: Config;
  db: Db;
  dialect: Dialect;
  /** PostgreSQL's connection pool use, for /metrics; null on SQLite. */
  poolUse: (() => PoolUse) | null;
  sealer: Sealer;
  clock: Clock;
  log: Log;
  redis: Redis | null;
  /** Tells every instance which cached copies went stale (lib/invalidation.ts). */
  bus: InvalidationBus;
  /** Keys derived from the server secret, each for one purpose. */
  keys: { captchaHmac: string; vaultTokenMac: Buffer };
  /** Service rows the public client routes name, kept briefly. */
  services: ServiceLookup;
  /** Script rows and code the loader serves. */
  delivery: DeliveryCache;
  /** What judging a key read lately, dropped on every write to it (modules/validation/verdict-cache.ts). */
  verdicts: VerdictCache;
  /** The obfuscators this server has configured, by type. */
  obfuscators: Partial<Record<ObfuscatedType, ObfuscationProvider>>;
  /** Where the webhook may post and how long it waits (tests swap DNS through it). */
  outbound: { webhook: OutboundPolicy };
  /** This instance's fetch executions not yet written (modules/loader/execution-counter.ts). */
  executions: ExecutionCounter;
  /** This instance's lastUsedAt of validated keys not yet written (modules/validation/key-touches.ts). */
  touches: KeyTouches;
  /** This instance's analytics counts not yet written (contract §7.5). */
  analytics: AnalyticsAggregator;
  /** The key exports running now, each in a worker thread (modules/keys/export-workers.ts). */
  exports: ExportWorkers;
  /** The background jobs (src/jobs.ts); started by the server, never by the CLI. */
  jobs: JobRunner;
  /** Ends running exports, stops the jobs (flushing what they hold), then lets go of the bus, Redis and, if it opened it, the database. */
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

const derivedKey = (secret: string, purpose: string) => Buffer.from(hkdfSync('sha256', secret, 'keyward', `keyward:${purpose}:v1`, 32));

export async function createContext(options: ContextOptions): Promise<AppContext> {
  const { config, database, log, role } = options;
  const clock = options.clock ?? systemClock;
  const server = role === 'server';
  const redis =
    server && config.redisUrl
      ? new Redis(config.redisUrl, { maxRetriesPerRequest: 1, connectTimeout: 2000, enableOfflineQueue: false, lazyConnect: false })
      : null;
  redis?.on('error', (err) => log.warn({ err }, 'redis error'));
  const bus = server ? await startInvalidationBus(config, database.db, redis, log) : publishingBus(database.db, database.dialect);

  const ctx: AppContext = {
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
    services: new ServiceLookup(database.db, clock),
    delivery: new DeliveryCache({ db: database.db, bus, clock }, config.scriptCacheBytes),
    verdicts: new VerdictCache({ bus, clock, writes: writesOf(database.db), log }, server ? config.verdictCacheMs : 0),
    obfuscators: providersFrom(config.obfuscation),
    outbound: { webhook: outboundPolicy(config) },
    executions: new ExecutionCounter(),
    touches: new KeyTouches(),
    analytics: new AnalyticsAggregator(clock, server && config.analytics),
    exports: new ExportWorkers(database.source, log),
    jobs: undefined as unknown as JobRunner,
    close: async () => {
      await ctx.exports.close();
      await ctx.jobs.stop();
      ctx.verdicts.close();
      await bus.close();
      redis?.disconnect();
      if (options.ownsDatabase) await database.close();
    },
  };
  ctx.jobs = new JobRunner(ctx, log, jobs);
  return ctx;
}
