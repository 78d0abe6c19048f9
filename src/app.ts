import { randomUUID } from 'node:crypto';
import type { RequestListener } from 'node:http';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import cookie from '@fastify/cookie';
import type { Config } from './config.ts';
import type { AppContext } from './context.ts';
import { openDatabase, migrate, type DbHandle } from './db/database.ts';
import type { ErrorBody } from './errors.ts';
import { requestLogValue } from './lib/redact.ts';
import { lazyChildLoggerFactory } from './lib/lazy-child-logger.ts';
import { fastifyTrustProxy } from './lib/trust-proxy.ts';
import { cutIdleConnections } from './lib/idle-connections.ts';
import type { Clock } from './lib/time.ts';
import { ajvOptions, rejectUnstorableText } from './plugins/validation.ts';
import { installErrorHandlers } from './plugins/errors.ts';
import { installAuth } from './plugins/auth.ts';
import { installRateLimits, type ClientBudget } from './plugins/rate-limit.ts';
import { HotLane } from './plugins/hot-lane.ts';
import { installDocs } from './plugins/docs.ts';
import { installMetrics } from './plugins/metrics.ts';
import { modules } from './modules/index.ts';
import { createContext } from './modules/state.ts';
import { jobs } from './jobs/registry.ts';
import { JobRunner } from './jobs/runner.ts';
import { refuseForbiddenKeys } from './lib/forbidden-keys.ts';

export const BODY_LIMIT_BYTES = 1024 * 1024;

export interface BuildOptions {
  config: Config;
  /** An already-open database (tests pass their per-file one); otherwise the config decides. */
  database?: DbHandle;
  clock?: Clock;
  logger?: FastifyServerOptions['logger'];
}

declare module 'fastify' {
  interface FastifyInstance {
    ctx: AppContext;
    hotLane: HotLane;
  }
}

export type App = FastifyInstance;

async function mergeBodyIntoQuery(request: FastifyRequest) {
  if (request.body === undefined) return;
  if (request.body === null || typeof request.body !== 'object' || Array.isArray(request.body)) {
    throw Object.assign(new Error('body'), {
      validation: [{ keyword: 'type', instancePath: '', schemaPath: '', params: { type: 'object' }, message: '' }],
      validationContext: 'body',
    });
  }
  request.query = { ...(request.query as object), ...(request.body as object) };
  request.body = undefined;
}

/**
 * A slow or stalled client never holds a connection for ever (contract §10): headers and body must arrive
 * within REQUEST_TIMEOUT_SECONDS, else Node answers 408 and closes. Node checks that every
 * connectionsCheckingInterval (30 s by default), so the check is tightened to match; a socket silent in both
 * directions closes a little later (after the 408 had its chance: cutIdleConnections), and an idle keep-alive
 * connection is a request that has not arrived: the same limit.
 */
const checkEveryMs = (ms: number) => Math.min(5000, Math.max(250, Math.round(ms / 4)));
function timeouts(ms: number) {
  return {
    requestTimeout: ms,
    keepAliveTimeout: ms,
    http: { headersTimeout: ms, connectionsCheckingInterval: checkEveryMs(ms) },
  };
}

/** Whatever logger is asked for, request lines carry the URL with secret query values redacted (lib/redact.ts). */
function withRedactedUrls(logger: FastifyServerOptions['logger']): FastifyServerOptions['logger'] {
  if (!logger || typeof logger !== 'object') return logger;
  return { ...logger, serializers: { ...logger.serializers, req: requestLogValue as never } };
}

/**
 * A person at a terminal reads lines, not JSON (contract §27): pino-pretty, in pino's worker thread so formatting
 * never runs on the request path. A request line reads "GET /path" when it arrives and "200 12.3 ms" when it ends.
 */
const PRETTY_LOG = {
  target: 'pino-pretty',
  options: {
    translateTime: 'SYS:HH:MM:ss',
    ignore: 'pid,hostname,reqId,req,res,responseTime',
    messageFormat: '{if req.method}{req.method} {req.url} {end}{if res.statusCode}{res.statusCode} {responseTime} ms {end}{msg}',
    singleLine: true,
  },
};

const CLOSING_RETRY_AFTER_SECONDS = 5;
/** Every answer's X-Request-Id, whichever edge gives it. */
const newRequestId = () => randomUUID();

/**
 * The hot lane (plugins/hot-lane.ts) listens in Fastify's place and hands it what it does not answer. It stays out
 * while request lines are logged (Fastify writes them) or metrics are counted (an onResponse hook counts them).
 */
function installHotLane(app: App, ctx: AppContext, budget: ClientBudget | null, closing: () => boolean): void {
  const [fastify] = app.server.listeners('request') as RequestListener[];
  // Without a logger (tests pass `false`) Fastify's stand-in has no isLevelEnabled, and logs nothing.
  const log = app.log as FastifyBaseLogger & { isLevelEnabled?: (level: string) => boolean };
  const logsRequests = log.isLevelEnabled?.('info') ?? false;
  const lane = new HotLane({
    fastify: fastify!,
    ctx,
    budget,
    requestId: newRequestId,
    log: app.log,
    trustProxy: fastifyTrustProxy(ctx.config.trustProxy),
    open: () => !closing(),
    enabled: !logsRequests && !ctx.config.metrics.enabled,
  });
  app.server.removeListener('request', fastify!);
  app.server.on('request', lane.dispatch);
  app.decorate('hotLane', lane);
}

export async function buildApp(options: BuildOptions): Promise<App> {
  const { config } = options;
  const timeoutMs = config.requestTimeoutSeconds * 1000;
  const app = Fastify({
    logger: withRedactedUrls(
      options.logger ?? {
        level: config.logLevel,
        redact: ['req.headers.authorization', 'req.headers["x-api-key"]', 'req.headers.cookie'],
        ...(config.logFormat === 'pretty' && { transport: PRETTY_LOG }),
      },
    ),
    trustProxy: fastifyTrustProxy(config.trustProxy),
    bodyLimit: BODY_LIMIT_BYTES,
    genReqId: newRequestId,
    childLoggerFactory: lazyChildLoggerFactory,
    ...timeouts(timeoutMs),
    ajv: ajvOptions,
    routerOptions: { ignoreTrailingSlash: true },
    // Requests that arrive while the server closes get the error envelope (503 UNAVAILABLE, below), not Fastify's own body.
    return503OnClosing: false,
  }).withTypeProvider<TypeBoxTypeProvider>();
  const stopCutting = cutIdleConnections(app.server, timeoutMs + checkEveryMs(timeoutMs), checkEveryMs(timeoutMs));
  app.addHook('onClose', async () => stopCutting());

  const database =
    options.database ??
    openDatabase({
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      poolSize: config.databasePoolSize,
      backgroundCheckpoints: true,
    });
  if (config.migrateOnStart) await migrate(database.db);
  const ctx = await createContext({
    config,
    database,
    ownsDatabase: !options.database,
    log: app.log,
    clock: options.clock,
    role: 'server',
  });
  app.decorate('ctx', ctx);
  // Built once the context exists (a job's pass takes the context); ctx.close() stops it before the database goes.
  const runner = new JobRunner(ctx, app.log, jobs);
  ctx.jobs.attach(runner);
  // Background jobs run once the app is ready; closing stops them (a last analytics flush) before the database goes.
  app.addHook('onReady', async () => runner.start());
  app.addHook('onClose', async () => ctx.close());
  // Before the server waits for requests in flight: a running export would otherwise hold the shutdown until the
  // connections are cut (server.ts). Its response ends short, so the client sees an incomplete download.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
    await ctx.exports.close();
  });

  // Set first thing, so every answer carries it, errors and 404s included.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    // After SIGTERM: 503 UNAVAILABLE, and the client is told to take its next request elsewhere. Sent as text, so
    // no route's own response schema (the health check's) can turn it into a serialization error.
    if (closing) {
      const body: ErrorBody = {
        success: false,
        error: 'The server is shutting down; try again in a moment',
        code: 'UNAVAILABLE',
        retryAfter: CLOSING_RETRY_AFTER_SECONDS,
        requestId: request.id,
      };
      reply
        .code(503)
        .headers({ connection: 'close', 'retry-after': String(CLOSING_RETRY_AFTER_SECONDS) })
        .type('application/json; charset=utf-8')
        .send(JSON.stringify(body));
      return;
    }
    done();
  });

  // An empty body with a JSON content type (common on DELETE) is no body, not an error.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, undefined);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return done(Object.assign(new Error('invalid JSON'), { code: 'FST_ERR_CTP_INVALID_JSON_BODY', statusCode: 400 }), undefined);
    }
    // __proto__, constructor, prototype: a 400 naming the field (contract §22), not removed in silence.
    try {
      refuseForbiddenKeys(text, parsed);
    } catch (error) {
      return done(error as Error, undefined);
    }
    done(null, parsed);
  });

  // DELETE routes take their parameters from the query string or a JSON body (contract §1);
  // only DELETE routes carry the hook that merges them.
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!methods.includes('DELETE')) return;
    const existing = route.preValidation;
    route.preValidation = [...(existing === undefined ? [] : Array.isArray(existing) ? existing : [existing]), mergeBodyIntoQuery] as never;
  });

  installErrorHandlers(app);
  // Every route, schema or not: text the databases cannot store is a 400 before any handler runs.
  app.addHook('preValidation', rejectUnstorableText);
  // Cookies are read only where a session can be (lib/cookies.ts), not parsed on every executor call.
  await app.register(cookie, { hook: false });
  installAuth(app, ctx);
  const budget = await installRateLimits(app, ctx);
  installHotLane(app, ctx, budget, () => closing);
  await installDocs(app, ctx);
  installMetrics(app, ctx);
  for (const { plugin, prefix } of modules) await app.register(plugin, { prefix });
  return app;
}
