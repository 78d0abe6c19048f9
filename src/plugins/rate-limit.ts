import type { FastifyInstance, FastifyRequest } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import type { AppContext } from '../context.ts';
import { AppError } from '../errors.ts';
import { digest } from '../lib/secrets.ts';
import { presentedKey } from './auth.ts';
import { serviceForClient } from '../modules/services/service-lookup.ts';
import { deliverableScript } from '../modules/loader/loader.service.ts';

/** Which budget a route spends (contract §5). Routes name one in `config.limit`. */
export type LimitKind = 'client' | 'api' | 'login';

declare module 'fastify' {
  interface FastifyContextConfig {
    limit?: LimitKind;
  }
}

/**
 * The service a public client call names (contract §10: one budget per address and service, whatever
 * spelling, case or route names it). A script counts as its service. Both lookups are the ones the route
 * makes next (cached per instance). Every name that resolves to nothing shares one budget, so inventing
 * names buys no extra requests.
 */
async function clientTarget(ctx: AppContext, request: FastifyRequest): Promise<string> {
  const sources = [request.params, request.query, request.body] as Array<Record<string, unknown> | undefined>;
  for (const source of sources) {
    if (!source || typeof source !== 'object') continue;
    if (typeof source.service === 'string') {
      return serviceForClient(ctx, source.service).then(
        (row) => row.id,
        () => UNKNOWN_TARGET,
      );
    }
    if (typeof source.scriptId === 'string') {
      const script = await deliverableScript(ctx, source.scriptId).catch(() => undefined);
      return script ? script.serviceId : UNKNOWN_TARGET;
    }
  }
  return '';
}

const UNKNOWN_TARGET = '?';

const keyGenerators = (ctx: AppContext): Record<LimitKind, (request: FastifyRequest) => string | Promise<string>> => ({
  // Per address and service: one busy game server must not starve another seller's users.
  client: async (request) => `client:${request.ip}:${await clientTarget(ctx, request)}`,
  api: (request) => {
    const key = presentedKey(request);
    return key ? `api:${digest(key)}` : `api-ip:${request.ip}`;
  },
  login: (request) => `login:${request.ip}`,
});

/**
 * Must be installed before routes are added. Each kind of budget is ONE limiter shared by every route
 * that names it in `config.limit`: the plugin's per-route `config.rateLimit` would give each route its
 * own store (a key could then spend 600 a minute on every route). With REDIS_URL the counters are
 * shared by every instance.
 */
export async function installRateLimits(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const perMinute: Record<LimitKind, number> = {
    client: ctx.config.rateLimit.clientPerMinute,
    api: ctx.config.rateLimit.apiPerMinute,
    login: ctx.config.rateLimit.loginPerMinute,
  };
  await app.register(rateLimit, {
    global: false,
    enableDraftSpec: true,
    redis: ctx.redis ?? undefined,
    nameSpace: 'keyward:rl:',
    skipOnError: true,
    errorResponseBuilder: (_request, context) =>
      new AppError('RATE_LIMITED', `Too many requests; try again in ${Math.ceil(context.ttl / 1000)} seconds`),
  });
  const keyFor = keyGenerators(ctx);
  const limiters = new Map<LimitKind, ReturnType<FastifyInstance['rateLimit']>>();
  for (const kind of ['client', 'api', 'login'] as const) {
    if (perMinute[kind] > 0) limiters.set(kind, app.rateLimit({ max: perMinute[kind], timeWindow: 60_000, keyGenerator: keyFor[kind] }));
  }
  if (ctx.config.rateLimit.authFailuresPerMinute > 0) installAuthFailureBudget(app, ctx, ctx.config.rateLimit.authFailuresPerMinute);
  app.addHook('onRoute', (route) => {
    const kind = route.config?.limit;
    const limiter = kind ? limiters.get(kind) : undefined;
    if (!limiter) return;
    // Client routes carry the service in the body on POST, which is parsed by preHandler time.
    const hook = kind === 'client' ? 'preHandler' : 'onRequest';
    const existing = route[hook];
    route[hook] = [...(existing === undefined ? [] : Array.isArray(existing) ? existing : [existing]), limiter] as never;
  });
}

const WINDOW_MS = 60_000;

/**
 * Failed authentication spends the caller address's budget (contract §10): every 401 counts, and once
 * the budget is spent the address's requests to routes that check credentials (and sign-in) are 429s
 * until the window ends, before any key is looked up. Public client routes stay open to that address.
 * Counted in Redis when configured (all instances agree), else per instance.
 */
function installAuthFailureBudget(app: FastifyInstance, ctx: AppContext, max: number): void {
  const local = new Map<string, { count: number; resetAt: number }>();
  const counterKey = (ip: string) => `keyward:authfail:${ip}`;

  async function spent(ip: string): Promise<number> {
    if (ctx.redis) {
      try {
        const [count, ttl] = await Promise.all([ctx.redis.get(counterKey(ip)), ctx.redis.pttl(counterKey(ip))]);
        return Number(count) >= max ? Math.max(1, Math.ceil(ttl / 1000)) : 0;
      } catch {
        return 0; // Like the other limits: a Redis outage does not take the service down.
      }
    }
    const entry = local.get(ip);
    const now = Date.now();
    if (!entry || entry.resetAt <= now) return 0;
    return entry.count >= max ? Math.max(1, Math.ceil((entry.resetAt - now) / 1000)) : 0;
  }

  async function count(ip: string): Promise<void> {
    if (ctx.redis) {
      try {
        if ((await ctx.redis.incr(counterKey(ip))) === 1) await ctx.redis.pexpire(counterKey(ip), WINDOW_MS);
      } catch {
        // Counting is best effort; see spent().
      }
      return;
    }
    const now = Date.now();
    const entry = local.get(ip);
    if (!entry || entry.resetAt <= now) {
      // Bounded memory: a flood of addresses drops old windows rather than growing without end.
      if (local.size >= 100_000) {
        for (const [address, e] of local) if (e.resetAt <= now) local.delete(address);
        if (local.size >= 100_000) local.clear();
      }
      local.set(ip, { count: 1, resetAt: now + WINDOW_MS });
    } else entry.count += 1;
  }

  app.addHook('onRequest', async (request) => {
    const config = request.routeOptions.config;
    if (!config?.auth && config?.limit !== 'login') return;
    const retryAfter = await spent(request.ip);
    if (retryAfter > 0) {
      throw new AppError('RATE_LIMITED', `Too many failed authentications from this address; try again in ${retryAfter} seconds`, {
        retryAfter,
      });
    }
  });
  // Counted before the answer leaves, so the caller's next request already sees it.
  app.addHook('onSend', async (request, reply, payload) => {
    if (reply.statusCode === 401) await count(request.ip);
    return payload;
  });
}
