import { Jobs, openInfrastructure, type AppContext, type ContextOptions } from '../context.ts';
import { writesOf } from '../db/database.ts';
import type { OutboundPolicy } from '../net/outbound.ts';
import { AnalyticsAggregator } from './analytics/aggregator.ts';
import { ExportWorkers } from './keys/export-workers.ts';
import { DeliveryCache } from './loader/delivery-cache.ts';
import { ExecutionCounter } from './loader/execution-counter.ts';
import { ServiceLookup } from './services/service-lookup.ts';
import { SigningKeyCache } from './signing/signing.service.ts';
import { KeyTouches } from './validation/key-touches.ts';
import { VerdictCache } from './validation/verdict-cache.ts';
import { outboundPolicy } from './webhook/webhook.service.ts';
import { discordPolicy } from './discord-role/discord-role.service.ts';
import { eventsPolicy } from './events/events-policy.ts';
import { createLiveSessions, type LiveSessions } from './sessions/sessions.service.ts';

/**
 * What the modules keep per app instance, added to the context's ModuleState here, beside the code that builds it,
 * so src/context.ts names no module (and no module file is imported by it).
 */
declare module '../context.ts' {
  interface ModuleState {
    /** Service rows the public client routes name, kept briefly. */
    services: ServiceLookup;
    /** Script rows and code the loader serves. */
    delivery: DeliveryCache;
    /** What judging a key read lately, dropped on every write to it (modules/validation/verdict-cache.ts). */
    verdicts: VerdictCache;
    /** Each service's opened Ed25519 signing key, dropped on rotation (modules/signing/signing.service.ts). */
    signingKeys: SigningKeyCache;
    /** Where the webhook may post and how long it waits (tests swap DNS through it). */
    outbound: { webhook: OutboundPolicy; events: OutboundPolicy; discord: OutboundPolicy };
    /** This instance's fetch executions not yet written (modules/loader/execution-counter.ts). */
    executions: ExecutionCounter;
    /** This instance's lastUsedAt of validated keys not yet written (modules/validation/key-touches.ts). */
    touches: KeyTouches;
    /** This instance's analytics counts not yet written, flushed hourly by the analytics job. */
    analytics: AnalyticsAggregator;
    /** The key exports running now, each in a worker thread (modules/keys/export-workers.ts). */
    exports: ExportWorkers;
    /** Live sessions of every instance, in Redis or the database (modules/sessions/live-sessions.ts). */
    liveSessions: LiveSessions;
  }
}

/**
 * Builds one app instance's context: the infrastructure (src/context.ts), then each module's state on top of it.
 * The server's job runner is built and attached by app.ts; other callers (CLI, benchmarks, tests) run no jobs.
 */
export async function createContext(options: ContextOptions): Promise<AppContext> {
  const infrastructure = await openInfrastructure(options);
  const { config, db, bus, clock, log } = infrastructure;
  const server = options.role === 'server';
  const ctx: AppContext = {
    ...infrastructure,
    services: new ServiceLookup(db, clock),
    delivery: new DeliveryCache({ db, bus, clock }, config.scriptCacheBytes),
    verdicts: new VerdictCache({ bus, clock, writes: writesOf(db), log }, server ? config.verdictCacheMs : 0),
    signingKeys: new SigningKeyCache(bus),
    outbound: { webhook: outboundPolicy(config), events: eventsPolicy(config), discord: discordPolicy(config) },
    executions: new ExecutionCounter(),
    touches: new KeyTouches(),
    analytics: new AnalyticsAggregator(clock, server && config.analytics, infrastructure.dialect),
    exports: new ExportWorkers(options.database.source, log),
    liveSessions: createLiveSessions({ ...infrastructure, server }),
    jobs: new Jobs(),
    close: async () => {
      await ctx.exports.close();
      await ctx.jobs.stop();
      ctx.verdicts.close();
      await infrastructure.close();
    },
  };
  return ctx;
}
