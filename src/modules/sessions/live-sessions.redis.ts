import { randomInt } from 'node:crypto';
import type { Redis } from 'ioredis';
import { RedisBatch } from '../../lib/redis-batch.ts';
import {
  deadlineOf,
  ENDED_KEPT_MS,
  newSessionId,
  type Beat,
  type EndReason,
  type LiveSession,
  type LiveSessions,
  type OpenRequest,
  type Opened,
  type SessionFilter,
  type SessionSelector,
} from './live-sessions.ts';
import {
  counterKey,
  END_COUNTER,
  executorSet,
  EXECUTOR_SET_TTL_MS,
  hashKey,
  HEARTBEAT,
  keySet,
  PREFIX,
  serviceSet,
  withSessionScripts,
  type Scripted,
} from './redis-session-scripts.ts';

/**
 * A session's fields as its open wrote them (they never change; its key's expiry can), its key's expiry and the
 * service's end counter as this instance last read them, and when this instance last moved its hash's time to live.
 * That time to live is its period plus ENDED_KEPT_MS from the last move by any instance, so moving it once every
 * REFRESH_EVERY_MS (half of ENDED_KEPT_MS) keeps the hash, and the key's set, at least ENDED_KEPT_MS / 2 past the
 * session's deadline: an end, or a list, always finds them.
 */
interface KnownSession {
  serviceId: string;
  /** This instance's last heartbeat of it (or its open): while its deadline holds, the session cannot have timed out. */
  lastSeenAt: number;
  /** Its key's expiry ('' none) as of `counter`. */
  kexp: string;
  /** The service's end counter read before the session was last found live in Redis; undefined: not read. */
  counter?: string;
  key: string;
  hwid: string;
  scriptId: string;
  heartbeatSeconds: number;
  startedAt: number;
  refreshedAt: number;
}
const REFRESH_EVERY_MS = ENDED_KEPT_MS / 2;
// Sessions written by one ZADD of the flush.
const FLUSH_CHUNK = 500;
// About 200 bytes each; past it they are all let go, and each is read once more at its next heartbeat.
const KNOWN_LIMIT = 200_000;

const orNull = (value: string | null | undefined) => (value === '' || value === null || value === undefined ? null : value);
const numberOrNull = (value: string | null | undefined) => (orNull(value) === null ? null : Number(value));

/**
 * Live sessions in Redis (REDIS_URL set): every instance sees the same state, and a heartbeat touches no database. A
 * session's deadline in the service's set may lag its last heartbeat by one flush (SESSION_FLUSH_MS), as a row does
 * on the database stores; a heartbeat later than one and a half periods writes its own at once, so the set never
 * shows a live session out of time.
 */
export class LiveSessionsInRedis implements LiveSessions {
  private readonly redis: Scripted;
  // Heartbeats are the hot path: those that arrive while one batch is on the wire go to Redis together.
  private readonly batch: RedisBatch;
  private readonly beat: (args: [string, string, number, number | '', '1' | '', string, '1' | '']) => Promise<string | string[]>;
  private readonly endCounter: (args: [string]) => Promise<string>;
  /** The fields of the sessions this instance opened or heard a heartbeat of: the hot heartbeat reads none of them. */
  private readonly known = new Map<string, KnownSession>();
  /** Deadlines the fast heartbeat moved here, by session, for the next flush to write to the service's set. */
  private pending = new Map<string, { serviceId: string; deadline: number }>();
  private flushing: Promise<void> = Promise.resolve();

  constructor(redis: Redis) {
    this.redis = withSessionScripts(redis);
    this.batch = RedisBatch.of(redis);
    this.beat = this.batch.define<string | string[]>({
      name: 'heartbeat',
      params: ['service', 'id', 'now', 'period', 'refresh', 'key', 'fast'],
      lua: HEARTBEAT,
    });
    this.endCounter = this.batch.define<string>({ name: 'end counter', params: ['service'], lua: END_COUNTER, shared: true });
  }

  async open(request: OpenRequest): Promise<Opened> {
    const sessionId = newSessionId();
    const expiresAt = deadlineOf(request.now, request.heartbeatSeconds);
    const ttl = expiresAt - request.now + ENDED_KEPT_MS;
    const opened = await this.redis.sessionOpen(
      hashKey(sessionId),
      keySet(request.serviceId, request.key ?? ''),
      serviceSet(request.serviceId),
      executorSet(request.serviceId, request.executor ?? ''),
      counterKey(request.serviceId),
      request.now,
      request.key === null ? 0 : request.maxSessions,
      expiresAt,
      ttl,
      request.serviceId,
      request.key ?? '',
      request.hwid,
      request.scriptId ?? '',
      request.heartbeatSeconds,
      request.keyExpiresAt ?? '',
      sessionId,
      request.executor ?? '',
      request.keyCreatedBy ?? '',
      EXECUTOR_SET_TTL_MS,
      randomInt(2 ** 32, 2 ** 47),
    );
    if (typeof opened !== 'string') return 'limit';
    this.remember(sessionId, {
      serviceId: request.serviceId,
      lastSeenAt: request.now,
      key: request.key ?? '',
      hwid: request.hwid,
      scriptId: request.scriptId ?? '',
      heartbeatSeconds: request.heartbeatSeconds,
      startedAt: request.now,
      refreshedAt: request.now,
      kexp: String(request.keyExpiresAt ?? ''),
      counter: opened,
    });
    return { sessionId, expiresAt };
  }

  async heartbeat(serviceId: string, sessionId: string, now: number): Promise<Beat> {
    const known = this.known.get(sessionId);
    const refresh = known !== undefined && now - known.refreshedAt >= REFRESH_EVERY_MS;
    // Only this instance's own beats make it sure the session has not timed out (another may have moved the deadline
    // since). A beat later than one and a half periods after the last goes the whole way: the service's set, which
    // the list, the count and the key's limit read, then still holds the session until the next flush writes it.
    const fast = known !== undefined && known.serviceId === serviceId && now <= known.lastSeenAt + 1.5 * known.heartbeatSeconds * 1000;
    if (!fast || refresh) return this.beatInRedis(serviceId, sessionId, now, known, fast, refresh);
    // Lately heard, so only an end, a close or a change of its key's expiry can have changed it, and each moves the
    // service's end counter: while the counter stands as it stood when the session was last found live, the
    // session is as known. Its beat is kept in memory, so it waits for the client budget's answer (a refused beat
    // records nothing), and the counter's one read serves every heartbeat of the service in its call.
    const [counter] = await Promise.all([this.endCounter([serviceId]), this.batch.admission()]);
    if (counter === '' || counter !== known.counter || this.known.get(sessionId) !== known) {
      const beat = await this.beatInRedis(serviceId, sessionId, now, known, true, false);
      if (beat.alive) known.counter = counter;
      return beat;
    }
    known.lastSeenAt = Math.max(known.lastSeenAt, now);
    return this.alive(sessionId, serviceId, known, now, true);
  }

  private async beatInRedis(
    serviceId: string,
    sessionId: string,
    now: number,
    known: KnownSession | undefined,
    fast: boolean,
    refresh: boolean,
  ): Promise<Beat> {
    const answer = await this.beat([
      serviceId,
      sessionId,
      now,
      known ? 2 * known.heartbeatSeconds * 1000 : '',
      refresh ? '1' : '',
      refresh && known ? known.key : '',
      fast ? '1' : '',
    ]);
    if (Array.isArray(answer) && answer[0] !== '') {
      this.known.delete(sessionId);
      this.pending.delete(sessionId);
      return { alive: false, reason: answer[0] as EndReason, key: orNull(answer[1]), hwid: answer[2] };
    }
    // A bare string is the key's expiry of a session this instance knew; a table brings its fields too.
    const [kexp, fields] = typeof answer === 'string' ? [answer, known!] : [answer[1] ?? '', this.learn(sessionId, serviceId, answer, now)];
    if (refresh) fields.refreshedAt = now;
    if (fields.lastSeenAt < now) fields.lastSeenAt = now;
    fields.kexp = kexp;
    // Only the fast script leaves the deadline to the flush; the whole way wrote it.
    return this.alive(sessionId, serviceId, fields, now, fast);
  }

  /** A live session's answer; `forFlush`: its deadline is written by the next flush. */
  private alive(sessionId: string, serviceId: string, fields: KnownSession, now: number, forFlush: boolean): Beat {
    const expiresAt = deadlineOf(now, fields.heartbeatSeconds);
    if (forFlush) this.pending.set(sessionId, { serviceId, deadline: expiresAt });
    const session: LiveSession = {
      sessionId,
      serviceId,
      key: orNull(fields.key),
      hwid: fields.hwid,
      scriptId: orNull(fields.scriptId),
      heartbeatSeconds: fields.heartbeatSeconds,
      startedAt: fields.startedAt,
      lastSeenAt: now,
      keyExpiresAt: numberOrNull(fields.kexp),
    };
    return { alive: true, session, expiresAt };
  }

  /** The fields a heartbeat read for a session this instance did not know (['', kexp, hb, key, hwid, script, started]). */
  private learn(sessionId: string, serviceId: string, [, , hb, key, hwid, script, started]: string[], now: number): KnownSession {
    const fields = {
      serviceId,
      lastSeenAt: now,
      key: key ?? '',
      hwid: hwid ?? '',
      scriptId: script ?? '',
      heartbeatSeconds: Number(hb),
      startedAt: Number(started),
      refreshedAt: now,
      kexp: '',
    };
    this.remember(sessionId, fields);
    return fields;
  }

  private remember(sessionId: string, fields: KnownSession): void {
    if (this.known.size >= KNOWN_LIMIT) this.known.clear();
    this.known.set(sessionId, fields);
  }

  async keyExpiryMoved(session: LiveSession, keyExpiresAt: number | null): Promise<void> {
    await this.redis.sessionMoveExpiry(hashKey(session.sessionId), keyExpiresAt ?? '', PREFIX);
  }

  async keyExpiryChanged(serviceId: string, key: string, keyExpiresAt: number | null): Promise<void> {
    await this.redis.sessionChangeExpiry(keySet(serviceId, key), counterKey(serviceId), PREFIX, keyExpiresAt ?? '');
  }

  async end(serviceId: string, selector: SessionSelector, reason: EndReason, now: number): Promise<number> {
    const [mode, value] =
      'sessionId' in selector
        ? ['id', selector.sessionId]
        : 'key' in selector
          ? ['key', selector.key]
          : 'hwid' in selector
            ? ['hwid', selector.hwid]
            : 'scriptId' in selector
              ? ['script', selector.scriptId]
              : ['all', ''];
    return this.redis.sessionEnd(PREFIX, serviceId, mode, value, reason, now, ENDED_KEPT_MS, '0');
  }

  async close(serviceId: string, sessionId: string, now: number): Promise<boolean> {
    this.known.delete(sessionId);
    this.pending.delete(sessionId);
    return (await this.redis.sessionEnd(PREFIX, serviceId, 'id', sessionId, '', now, ENDED_KEPT_MS, '1')) > 0;
  }

  async list(serviceId: string, filter: SessionFilter, page: { offset: number; limit: number }, now: number) {
    // The set's score is the deadline its last heartbeat set, two periods after that heartbeat.
    const scored = await this.redis.zrangebyscore(serviceSet(serviceId), now, '+inf', 'WITHSCORES');
    const pipeline = this.redis.pipeline();
    for (let i = 0; i < scored.length; i += 2)
      pipeline.hmget(hashKey(scored[i]!), 'key', 'hwid', 'script', 'hb', 'started', 'kexp', 'ended', 'by');
    const replies = (await pipeline.exec()) ?? [];
    const sessions: LiveSession[] = [];
    replies.forEach(([, value], i) => {
      const h = value as (string | null)[];
      if (h[4] === null || h[6] !== null || (filter.createdBy !== undefined && h[7] !== filter.createdBy)) return;
      const heartbeatSeconds = Number(h[3]);
      const session: LiveSession = {
        sessionId: scored[2 * i]!,
        serviceId,
        key: orNull(h[0]),
        hwid: h[1] ?? '',
        scriptId: orNull(h[2]),
        heartbeatSeconds,
        startedAt: Number(h[4]),
        // This instance's beats not yet flushed are later than the set says.
        lastSeenAt: Math.max(Number(scored[2 * i + 1]), this.pending.get(scored[2 * i]!)?.deadline ?? 0) - 2 * heartbeatSeconds * 1000,
        keyExpiresAt: numberOrNull(h[5]),
      };
      if (
        (filter.key === undefined || session.key === filter.key) &&
        (filter.scriptId === undefined || session.scriptId === filter.scriptId)
      )
        sessions.push(session);
    });
    sessions.sort((a, b) => b.startedAt - a.startedAt || (a.sessionId < b.sessionId ? -1 : 1));
    return { items: sessions.slice(page.offset, page.offset + page.limit), total: sessions.length };
  }

  async count(serviceId: string, now: number): Promise<number> {
    // Timed-out members leave the set here (they free their key's place in the open script).
    await this.redis.zremrangebyscore(serviceSet(serviceId), '-inf', `(${now}`);
    return this.redis.zcard(serviceSet(serviceId));
  }

  /** Once per open (contract §29), never on a heartbeat; it reads only the sessions that heartbeated since it last ran. */
  async countOfExecutor(serviceId: string, executor: string, now: number): Promise<number> {
    return this.redis.sessionExecutorCount(executorSet(serviceId, executor), serviceSet(serviceId), now);
  }

  /**
   * Writes the deadlines of the fast heartbeats since the last flush (session-flush.job.ts, every SESSION_FLUSH_MS,
   * far inside the shortest period), one ZADD per service and chunk: XX, so an ended or closed session (taken out of
   * the set) is not put back; GT, so an instance never moves another's later deadline back. Flushes run one after
   * another, and a failed one keeps its deadlines for the next.
   */
  flush(): Promise<void> {
    const next = this.flushing.then(() => this.write());
    this.flushing = next.catch(() => {});
    return next;
  }

  private async write(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    const byService = new Map<string, (string | number)[]>();
    for (const [sessionId, { serviceId, deadline }] of batch) {
      let members = byService.get(serviceId);
      if (!members) byService.set(serviceId, (members = []));
      members.push(deadline, sessionId);
    }
    const pipeline = this.redis.pipeline();
    for (const [serviceId, members] of byService)
      for (let i = 0; i < members.length; i += 2 * FLUSH_CHUNK)
        pipeline.zadd(serviceSet(serviceId), 'XX', 'GT', ...members.slice(i, i + 2 * FLUSH_CHUNK));
    let failure: unknown = null;
    try {
      failure = ((await pipeline.exec()) ?? []).find(([err]) => err !== null)?.[0] ?? null;
    } catch (err) {
      failure = err;
    }
    if (failure === null) return;
    for (const [sessionId, entry] of batch) {
      const newer = this.pending.get(sessionId);
      if (!newer || newer.deadline < entry.deadline) this.pending.set(sessionId, entry);
    }
    throw failure;
  }
}
