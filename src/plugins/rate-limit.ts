import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import type { Redis } from 'ioredis';
import type { AppContext } from '../context.ts';
import { AppError } from '../errors.ts';
import { addressKey } from '../lib/ip.ts';
import { digest } from '../lib/secrets.ts';
import { RedisBatch } from '../lib/redis-batch.ts';
import { presentedKey, presentedLuarmorKey } from './auth.ts';
import { sharedOrLocalStore } from './rate-limit-store.ts';
import { serviceForClient } from '../modules/services/services.service.ts';
import { cachedScript, deliverableScript } from '../modules/loader/loader.service.ts';

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
export function clientTarget(ctx: AppContext, request: { params?: unknown; query?: unknown; body?: unknown }): string | Promise<string> {
  const sources = [request.params, request.query, request.body] as Array<Record<string, unknown> | undefined>;
  for (const source of sources) {
    if (!source || typeof source !== 'object') continue;
    if (typeof source.service === 'string') {
      const cached = ctx.services.peek(source.service);
      if (cached) return cached.id;
      return serviceForClient(ctx, source.service).then(
        (row) => row.id,
        () => UNKNOWN_TARGET,
      );
    }
    if (typeof source.scriptId === 'string') {
      const cached = cachedScript(ctx, source.scriptId);
      if (cached) return cached.serviceId;
      return deliverableScript(ctx, source.scriptId).then(
        (script) => (script ? script.serviceId : UNKNOWN_TARGET),
        () => UNKNOWN_TARGET,
      );
    }
  }
  return '';
}

const UNKNOWN_TARGET = '?';

// The client kind is counted by clientLimiter (below), per address and service: one busy game server must not starve
// another seller's users.
const keyGenerators = (): Record<Exclude<LimitKind, 'client'>, (request: FastifyRequest) => string> => ({
  api: (request) => {
    // The Luarmor-compatible routes spend the same budget per key as Keyward's own (contract §20).
    const key = request.routeOptions.config.auth === 'luarmor' ? presentedLuarmorKey(request) : presentedKey(request);
    return key ? `api:${digest(key)}` : `api-ip:${addressKey(request.ip)}`;
  },
  login: (request) => `login:${addressKey(request.ip)}`,
});

const WINDOW_MS = 60_000;

/**
 * Fixed one-minute windows counted in this process, with bounded memory: a flood of addresses drops
 * ended windows first, then everything (a reset window errs toward letting requests through).
 */
export class WindowCounter {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();

  constructor(private readonly maxEntries = 100_000) {}

  /** Counts one hit; the window's count including it, and when the window ends. */
  hit(key: string, now: number): { count: number; resetAt: number } {
    const entry = this.windows.get(key);
    if (entry && entry.resetAt > now) {
      entry.count += 1;
      return entry;
    }
    if (!entry && this.windows.size >= this.maxEntries) {
      for (const [k, e] of this.windows) if (e.resetAt <= now) this.windows.delete(k);
      if (this.windows.size >= this.maxEntries) this.windows.clear();
    }
    const fresh = { count: 1, resetAt: now + WINDOW_MS };
    this.windows.set(key, fresh);
    return fresh;
  }

  /** The window's count without counting, 0 when none is open. */
  peek(key: string, now: number): { count: number; resetAt: number } {
    const entry = this.windows.get(key);
    return entry && entry.resetAt > now ? entry : { count: 0, resetAt: now };
  }
}

type Window = { count: number; resetAt: number };

/** Counts hits of keys in their windows: at once in this process, or with a promise when Redis counts them. */
interface Counter {
  hit(key: string, now: number): Window | Promise<Window>;
  /** Counts one hit and runs `work` where the window then holds at most `max` (see ClientBudget.spendThen). */
  hitThen<T>(key: string, now: number, max: number, work: () => T): { window: Window | Promise<Window>; result?: T };
}

/** This process's own count: `work` runs after it, when the window allows. */
const localCounter = (windows: WindowCounter): Counter => ({
  hit: (key, now) => windows.hit(key, now),
  hitThen(key, now, max, work) {
    const window = windows.hit(key, now);
    return window.count <= max ? { window, result: work() } : { window };
  },
});

/**
 * The client budget: the hot path of every executor call, so a counter and three headers rather than the plugin's
 * promise chain (bench/cpu-cost.ts: about a sixth of a validation's CPU). Same answers as the plugin gives the other
 * kinds: RateLimit-* headers, 429 with Retry-After. Spent by the client routes' hook below and by the hot lane
 * (plugins/hot-lane.ts), so both count one budget and answer alike.
 */
export class ClientBudget {
  private readonly limit: string;

  constructor(
    private readonly max: number,
    private readonly counter: Counter,
  ) {
    this.limit = String(max);
  }

  /** Counts one call of the address to the target (a service id); the window as it stands after it. */
  spend(ip: string, target: string, now: number): Window | Promise<Window> {
    return this.counter.hit(keyOf(ip, target), now);
  }

  /**
   * spend(), then `work` only within the budget (`result` is absent when it did not run), in one trip to Redis where
   * Redis counts: `work` then starts at once and the items it adds to the Redis batch travel in the count's call,
   * behind it, and run only if the count allows them (RedisBatch.behind). So `work`'s only effect before its first
   * await must be such items; the caller still judges the window, and discards `result` when it is refused.
   */
  spendThen<T>(ip: string, target: string, now: number, work: () => T): { window: Window | Promise<Window>; result?: T } {
    return this.counter.hitThen(keyOf(ip, target), now, this.max, work);
  }

  /** The headers the answer carries, with the refusal once the window is spent (then with Retry-After too). */
  judge(window: Window, now: number, header: (name: string, value: string | number) => void): AppError | undefined {
    const resetSeconds = Math.max(1, Math.ceil((window.resetAt - now) / 1000));
    header('ratelimit-limit', this.limit);
    header('ratelimit-remaining', Math.max(0, this.max - window.count));
    header('ratelimit-reset', resetSeconds);
    if (window.count <= this.max) return undefined;
    header('retry-after', resetSeconds);
    return new AppError('RATE_LIMITED', `Too many requests; try again in ${resetSeconds} seconds`, { retryAfter: resetSeconds });
  }
}

/** The client routes' hook: callback style, synchronous when the service is cached and the count local (no promise per call). */
function clientLimiter(ctx: AppContext, budget: ClientBudget) {
  const spend = (request: FastifyRequest, reply: FastifyReply, target: string, done: HookHandlerDoneFunction) => {
    const now = Date.now();
    const header = (name: string, value: string | number) => void reply.header(name, value);
    const counted = budget.spend(request.ip, target, now);
    if (!(counted instanceof Promise)) return done(budget.judge(counted, now, header));
    counted.then((window) => done(budget.judge(window, now, header)), done);
  };
  return (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    const target = clientTarget(ctx, request);
    if (typeof target === 'string') return spend(request, reply, target, done);
    target.then((resolved) => spend(request, reply, resolved, done), done);
  };
}

// One fixed window per key, as the plugin's Redis store counts (same key names, so every instance shares them), in the
// shared batch of hot-path scripts (lib/redis-batch.ts): the count alone when the instance knows when the window ends
// (`known`), else {count, ms left}.
const SPEND_LUA = `
    local count = redis.call('INCR', key)
    if count == 1 then
      redis.call('PEXPIRE', key, ${WINDOW_MS})
      return {count, ${WINDOW_MS}}
    end
    if known == '1' then return count end
    return {count, redis.call('PTTL', key)}`;

/**
 * The client budget counted in Redis, shared by every instance. Executor calls arrive by the thousand a second, so
 * their counts go in batches. While Redis does not answer, this instance counts for itself (`local`), as the other
 * kinds' store does (rate-limit-store.ts). Each instance remembers when the windows it has seen end, so a count of one
 * it knows asks Redis for no time to live: the time is taken before the call and the time to live read after it, so
 * the end remembered is never later than the window's, and a new window (its count is 1) always comes back with its own.
 */
function sharedClientCounter(redis: Redis, local: Counter): Counter {
  const batch = RedisBatch.of(redis);
  const spend = batch.define<number | [number, number]>({
    name: 'client budget',
    params: ['key', 'known', 'max'],
    lua: SPEND_LUA,
    // The items behind a count run only within the budget (hitThen).
    opens: `(type(reply) == 'table' and reply[1] or reply) <= tonumber(max)`,
  });
  const ends = new Map<string, number>();
  const remember = (key: string, resetAt: number, now: number) => {
    if (ends.size >= WINDOW_ENDS_KEPT) for (const [k, at] of ends) if (at <= now) ends.delete(k);
    if (ends.size >= WINDOW_ENDS_KEPT) ends.clear();
    ends.set(key, resetAt);
  };
  const shared = (key: string, now: number, max: number): Promise<Window> => {
    const known = ends.get(key);
    const current = known !== undefined && known > now;
    return spend([`${REDIS_NAMESPACE}${key}`, current ? '1' : '', max]).then(
      (reply) => {
        if (typeof reply === 'number') return { count: reply, resetAt: known! };
        const resetAt = now + Math.max(0, reply[1]);
        remember(key, resetAt, now);
        return { count: reply[0], resetAt };
      },
      () => local.hit(key, now),
    );
  };
  return {
    // `max` only gates what waits behind a count; a plain count lets everything through.
    hit: (key, now) => (redis.status === 'ready' ? shared(key, now, Number.MAX_SAFE_INTEGER) : local.hit(key, now)),
    hitThen(key, now, max, work) {
      if (redis.status !== 'ready') return local.hitThen(key, now, max, work);
      // The count's item is the last one added: work's items wait behind it.
      const window = shared(key, now, max);
      return { window, result: batch.behind(work) };
    },
  };
}

// About 100 bytes each; past it the ended are dropped, then all (each costs one more time-to-live read).
const WINDOW_ENDS_KEPT = 100_000;
const REDIS_NAMESPACE = 'keyward:rl:';
const keyOf = (ip: string, target: string) => `client:${addressKey(ip)}:${target}`;

/**
 * Must be installed before routes are added. Each kind of budget is ONE limiter shared by every route
 * that names it in `config.limit`: the plugin's per-route `config.rateLimit` would give each route its
 * own store (a key could then spend 600 a minute on every route). With REDIS_URL the counters are
 * shared by every instance.
 */
export async function installRateLimits(app: FastifyInstance, ctx: AppContext): Promise<ClientBudget | null> {
  let budget: ClientBudget | null = null;
  const perMinute: Record<LimitKind, number> = {
    client: ctx.config.rateLimit.clientPerMinute,
    api: ctx.config.rateLimit.apiPerMinute,
    login: ctx.config.rateLimit.loginPerMinute,
  };
  await app.register(rateLimit, {
    global: false,
    enableDraftSpec: true,
    // While Redis does not answer, each instance counts for itself (rate-limit-store.ts), never no limit at all.
    ...(ctx.redis ? { store: sharedOrLocalStore(ctx.redis, REDIS_NAMESPACE) } : {}),
    skipOnError: true,
    errorResponseBuilder: (_request, context) =>
      new AppError('RATE_LIMITED', `Too many requests; try again in ${Math.ceil(context.ttl / 1000)} seconds`, {
        retryAfter: Math.ceil(context.ttl / 1000),
      }),
  });
  const keyFor = keyGenerators();
  const limiters = new Map<
    LimitKind,
    ((request: FastifyRequest, reply: FastifyReply) => Promise<unknown>) | ReturnType<typeof clientLimiter>
  >();
  for (const kind of ['client', 'api', 'login'] as const) {
    if (perMinute[kind] <= 0) continue;
    if (kind === 'client') {
      const local = localCounter(new WindowCounter());
      budget = new ClientBudget(perMinute[kind], ctx.redis ? sharedClientCounter(ctx.redis, local) : local);
      limiters.set(kind, clientLimiter(ctx, budget));
    } else limiters.set(kind, app.rateLimit({ max: perMinute[kind], timeWindow: WINDOW_MS, keyGenerator: keyFor[kind] }));
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
  return budget;
}

/**
 * Failed authentication spends the caller address's budget (contract §10): every 401 counts, and once
 * the budget is spent the address's requests to routes that check credentials (and sign-in) are 429s
 * until the window ends, before any key is looked up. Public client routes stay open to that address.
 * Counted in Redis when configured (all instances agree), else per instance.
 */
function installAuthFailureBudget(app: FastifyInstance, ctx: AppContext, max: number): void {
  const local = new WindowCounter();
  const counterKey = (ip: string) => `keyward:authfail:${ip}`;

  // Shared while Redis answers; this instance's own count while it does not (contract §22).
  const shared = () => ctx.redis?.status === 'ready';
  async function spent(ip: string): Promise<number> {
    if (ctx.redis && shared()) {
      try {
        const [count, ttl] = await Promise.all([ctx.redis.get(counterKey(ip)), ctx.redis.pttl(counterKey(ip))]);
        return Number(count) >= max ? Math.max(1, Math.ceil(ttl / 1000)) : 0;
      } catch {
        return 0; // Like the other limits: a Redis outage does not take the service down.
      }
    }
    const now = Date.now();
    const entry = local.peek(ip, now);
    return entry.count >= max ? Math.max(1, Math.ceil((entry.resetAt - now) / 1000)) : 0;
  }

  async function count(ip: string): Promise<void> {
    if (ctx.redis && shared()) {
      try {
        if ((await ctx.redis.incr(counterKey(ip))) === 1) await ctx.redis.pexpire(counterKey(ip), WINDOW_MS);
      } catch {
        // Counting is best effort; see spent().
      }
      return;
    }
    local.hit(ip, Date.now());
  }

  const check = async (request: FastifyRequest) => {
    const retryAfter = await spent(addressKey(request.ip));
    if (retryAfter > 0) {
      throw new AppError('RATE_LIMITED', `Too many failed authentications from this address; try again in ${retryAfter} seconds`, {
        retryAfter,
      });
    }
  };
  // Only routes that check credentials refuse a spent address, before their auth hook (installed first,
  // so this one is put in front of it); public routes carry no such hook at all.
  app.addHook('onRoute', (route) => {
    if (!route.config?.auth && route.config?.limit !== 'login') return;
    const existing = route.onRequest;
    route.onRequest = [check, ...(existing === undefined ? [] : Array.isArray(existing) ? existing : [existing])] as never;
  });
  // Any 401 counts, whichever route gave it; counted before the answer leaves, so the next request sees it.
  // Only an AppError answers 401 (plugins/errors.ts) and every error passes this hook before the error
  // handler: an answer without an error costs nothing here (an onSend hook ran on every executor call).
  app.addHook('onError', async (request, _reply, error) => {
    if (error instanceof AppError && error.status === 401) await count(addressKey(request.ip));
  });
}
