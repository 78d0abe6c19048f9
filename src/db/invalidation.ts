import { EventEmitter } from 'node:events';
import pg from 'pg';
import type { Redis } from 'ioredis';
import { sql } from 'kysely';
import type { Config } from '../config.ts';
import type { Db, Dialect } from './database.ts';

/**
 * Tells every instance that cached copies of something are stale. One mechanism per deployment:
 * Redis pub/sub when REDIS_URL is set, else PostgreSQL LISTEN/NOTIFY, else (SQLite: one process)
 * an in-process bus shared by the app instances on one database handle.
 *
 * Messages are `topic` + `key`; a key of '*' (also sent to every handler after a lost connection,
 * when messages may have been missed) means "drop everything of this topic".
 */
export type InvalidationHandler = (key: string) => void;

export interface InvalidationBus {
  /** Called after the change committed; returns once the message is handed to the transport. */
  publish(topic: string, key: string): Promise<void>;
  subscribe(topic: string, handler: InvalidationHandler): void;
  close(): Promise<void>;
}

const CHANNEL = 'keyward_invalidate';
// Topics have no spaces; keys may (only the first space separates).
const SEPARATOR = ' ';
const RECONNECT_MS = 1000;

class LocalHandlers {
  private readonly emitter = new EventEmitter().setMaxListeners(0);

  on(topic: string, handler: InvalidationHandler) {
    this.emitter.on(topic, handler);
  }

  off(topic: string, handler: InvalidationHandler) {
    this.emitter.off(topic, handler);
  }

  deliver(message: string) {
    const at = message.indexOf(SEPARATOR);
    if (at < 0) return;
    this.emitter.emit(message.slice(0, at), message.slice(at + 1));
  }

  /** Everything may be stale (a message could have been lost while disconnected). */
  flushAll() {
    for (const topic of this.emitter.eventNames()) this.emitter.emit(topic, '*');
  }
}

const encode = (topic: string, key: string) => topic + SEPARATOR + key;

/** Same-process instances on one SQLite handle share one bus, as they share the data. */
const processBuses = new WeakMap<Db, LocalHandlers>();

function inProcessBus(db: Db): InvalidationBus {
  let shared = processBuses.get(db);
  if (!shared) processBuses.set(db, (shared = new LocalHandlers()));
  const bus = shared;
  const mine: Array<[string, InvalidationHandler]> = [];
  return {
    publish: async (topic, key) => bus.deliver(encode(topic, key)),
    subscribe: (topic, handler) => {
      mine.push([topic, handler]);
      bus.on(topic, handler);
    },
    close: async () => {
      for (const [topic, handler] of mine) bus.off(topic, handler);
    },
  };
}

type Log = { warn(obj: unknown, msg: string): void };

const notifyPostgres = (db: Db, topic: string, key: string) => sql`select pg_notify(${CHANNEL}, ${encode(topic, key)})`.execute(db);

function postgresBus(databaseUrl: string, db: Db, log: Log): InvalidationBus {
  const handlers = new LocalHandlers();
  let client: pg.Client | null = null;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;

  const connect = async () => {
    if (closed) return;
    const next = new pg.Client({ connectionString: databaseUrl });
    const retry = (err: unknown) => {
      if (closed || client !== next) return;
      log.warn({ err }, 'invalidation listener lost its connection; caches flushed, reconnecting');
      client = null;
      next.removeAllListeners();
      next.end().catch(() => {});
      handlers.flushAll();
      timer = setTimeout(() => void connect(), RECONNECT_MS);
    };
    client = next;
    next.on('error', retry);
    next.on('end', () => retry(new Error('connection ended')));
    next.on('notification', (n) => {
      if (n.channel === CHANNEL && n.payload !== undefined) handlers.deliver(n.payload);
    });
    try {
      await next.connect();
      await next.query(`LISTEN ${CHANNEL}`);
    } catch (err) {
      retry(err);
    }
  };

  return {
    ready: connect(),
    publish: async (topic, key) => {
      // Through the shared pool, so it needs no listener; NOTIFY also reaches this instance's listener,
      // but this instance drops its own copy at once rather than waiting for the round trip.
      handlers.deliver(encode(topic, key));
      await notifyPostgres(db, topic, key);
    },
    subscribe: (topic, handler) => handlers.on(topic, handler),
    close: async () => {
      closed = true;
      clearTimeout(timer);
      const current = client;
      client = null;
      current?.removeAllListeners();
      await current?.end().catch(() => {});
    },
  } as InvalidationBus & { ready: Promise<void> };
}

function redisBus(redis: Redis, log: Log): InvalidationBus {
  const handlers = new LocalHandlers();
  // Its own connection (a subscribed one can do nothing else); unlike the app's, it queues the
  // SUBSCRIBE until connected and re-subscribes after a reconnect.
  const subscriber = redis.duplicate({ enableOfflineQueue: true, maxRetriesPerRequest: null, autoResubscribe: true });
  // Its failures are the app connection's too, which says so once a minute (context.ts watchRedis); not per retry.
  subscriber.on('error', () => {});
  // A reconnect may have missed messages: everything cached is suspect.
  subscriber.on('ready', () => handlers.flushAll());
  subscriber.on('message', (channel: string, message: string) => {
    if (channel === CHANNEL) handlers.deliver(message);
  });
  const ready = subscriber.subscribe(CHANNEL).then(() => {});
  return {
    ready,
    publish: async (topic, key) => {
      handlers.deliver(encode(topic, key));
      // The change is committed whatever happens here; other instances' entries expire on their own.
      if (redis.status !== 'ready') return;
      await redis.publish(CHANNEL, encode(topic, key)).catch((err: unknown) => log.warn({ err }, 'invalidation not published'));
    },
    subscribe: (topic, handler) => handlers.on(topic, handler),
    close: async () => {
      subscriber.removeAllListeners('message');
      subscriber.disconnect();
    },
  } as InvalidationBus & { ready: Promise<void> };
}

const BUS_START_WAIT_MS = 3_000;

/** The bus for this deployment; resolves once it listens, so nothing published after start is missed. */
export async function startInvalidationBus(config: Config, db: Db, redis: Redis | null, log: Log): Promise<InvalidationBus> {
  const bus = redis ? redisBus(redis, log) : config.databaseUrl ? postgresBus(config.databaseUrl, db, log) : inProcessBus(db);
  // A bus whose server does not answer (Redis down at start) must not keep the server from opening its port: after
  // a short wait it starts anyway, subscribes once the server answers and then drops every cached copy (contract §22).
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), BUS_START_WAIT_MS);
    timer.unref();
  });
  const outcome = await Promise.race([
    ((bus as { ready?: Promise<void> }).ready ?? Promise.resolve()).then(() => 'ready' as const),
    waited,
  ]).catch((err: unknown) => log.warn({ err }, 'invalidation bus is not listening yet'));
  clearTimeout(timer);
  if (outcome === 'late') log.warn({}, 'the invalidation bus is not listening yet; starting anyway, cached verdicts expire on their own');
  return bus;
}

/**
 * The bus of code run outside a server (the CLI): it keeps no caches, so it only tells the running instances,
 * through NOTIFY on PostgreSQL. (With Redis, instances also listen there, so the CLI's NOTIFY alone would
 * miss them; SQLite servers in other processes see the change when their cached copy expires.)
 */
export function publishingBus(db: Db, dialect: Dialect): InvalidationBus {
  const local = inProcessBus(db);
  return dialect === 'postgres' ? { ...local, publish: async (topic, key) => void (await notifyPostgres(db, topic, key)) } : local;
}
