import type { FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { Redis } from 'ioredis';
// The plugin's own stores, reused rather than rewritten (the package has no export map, so the files are reachable).
// @ts-expect-error -- plain CommonJS without type declarations
import LocalStore from '@fastify/rate-limit/store/LocalStore.js';
// @ts-expect-error -- plain CommonJS without type declarations
import RedisStore from '@fastify/rate-limit/store/RedisStore.js';

type Callback = (err: Error | null, result: { current: number; ttl: number } | null) => void;
interface Store {
  incr(key: string, cb: Callback, timeWindow: number, max: number): void;
  read(key: string, cb: Callback, timeWindow: number, max: number): void;
  child(routeOptions: unknown): Store;
}
interface StoreParams {
  continueExceeding: boolean;
  exponentialBackoff: boolean;
}

/**
 * Redis is an add-on (contract §6, §22): while it answers, the counters are shared by every instance; while it does
 * not, each instance counts for itself (the plugin's in-memory store) instead of letting every request through, and
 * goes back to the shared counters once Redis answers again.
 */
export function sharedOrLocalStore(redis: Redis, nameSpace: string): FastifyRateLimitStoreCtor {
  const pair = (shared: Store, local: Store): Store => {
    const run = (method: 'incr' | 'read', key: string, cb: Callback, timeWindow: number, max: number) => {
      if (redis.status !== 'ready') return local[method](key, cb, timeWindow, max);
      shared[method](key, (err, result) => (err ? local[method](key, cb, timeWindow, max) : cb(null, result)), timeWindow, max);
    };
    return {
      incr: (key, cb, timeWindow, max) => run('incr', key, cb, timeWindow, max),
      read: (key, cb, timeWindow, max) => run('read', key, cb, timeWindow, max),
      child: (routeOptions) => pair(shared.child(routeOptions), local.child(routeOptions)),
    };
  };
  // The plugin constructs its store with `new`; a constructor that returns an object hands that object back.
  return function SharedOrLocalStore(params: StoreParams) {
    const shared = new RedisStore(params.continueExceeding, params.exponentialBackoff, redis, nameSpace) as Store;
    const local = new LocalStore(params.continueExceeding, params.exponentialBackoff) as Store;
    return pair(shared, local);
  } as unknown as FastifyRateLimitStoreCtor;
}
