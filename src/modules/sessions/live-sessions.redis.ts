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

// Key names: a hash per session, and sorted sets of session ids scored by the moment each stops being live (its last
// heartbeat plus two periods): one per service (the list and the count), kept by every heartbeat; one per key (the
// limit counts it, an end by key reads it) and one per executor (§29's peak), whose scores are the deadlines as they
// stood when last looked at: heartbeats leave them alone, and a count first brings their passed members up to date
// from the service's set (RESCORE). The Lua scripts build the set names from the hash's fields, so they assume one
// Redis node (as the rest of Keyward).
const PREFIX = 'kw:ls:';
const hashKey = (sessionId: string) => `${PREFIX}s:${sessionId}`;
const keySet = (serviceId: string, key: string) => `${PREFIX}k:${serviceId}:${key}`;
const serviceSet = (serviceId: string) => `${PREFIX}v:${serviceId}`;
const executorSet = (serviceId: string, executor: string) => `${PREFIX}e:${serviceId}:${executor}`;
// An executor's set outlives its last open by a day: its sessions' peak is counted when one opens.
const EXECUTOR_SET_TTL_MS = 24 * 3600_000;

// Lua: the members of `set` whose score passed `now` take their deadline from `live` (the service's set), or leave
// when it is gone or passed too. Costs one lookup per session whose first deadline passed since the last count, not
// one per live session, and takes a write per heartbeat away from the hot path.
const RESCORE = (set: string, live: string, now: string) => `
for _, id in ipairs(redis.call('ZRANGEBYSCORE', ${set}, '-inf', '(' .. ${now})) do
  local deadline = redis.call('ZSCORE', ${live}, id)
  if deadline and tonumber(deadline) >= tonumber(${now}) then
    redis.call('ZADD', ${set}, deadline, id)
  else
    redis.call('ZREM', ${set}, id)
  end
end`;

// Open: bring the key's set up to date, refuse at the limit, else store the session. One script, so no other open
// (on any instance) runs between the count and the insert.
const OPEN = `
local max = tonumber(ARGV[2])
if max > 0 then
  ${RESCORE('KEYS[2]', 'KEYS[3]', 'ARGV[1]')}
  if redis.call('ZCARD', KEYS[2]) >= max then return 0 end
end
redis.call('HSET', KEYS[1], 'service', ARGV[5], 'key', ARGV[6], 'hwid', ARGV[7], 'script', ARGV[8], 'hb', ARGV[9],
  'kexp', ARGV[10], 'started', ARGV[1], 'seen', ARGV[1], 'exe', ARGV[12], 'by', ARGV[13])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
if ARGV[6] ~= '' then
  redis.call('ZADD', KEYS[2], ARGV[3], ARGV[11])
  redis.call('PEXPIRE', KEYS[2], ARGV[4])
end
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[11])
if ARGV[12] ~= '' then
  redis.call('ZADD', KEYS[4], ARGV[3], ARGV[11])
  redis.call('PEXPIRE', KEYS[4], ARGV[14])
end
return 1
`;

// How many of an executor's sessions live (contract §29's peak). KEYS: the executor's set, the service's set; ARGV: now.
const EXECUTOR_COUNT = `
${RESCORE('KEYS[1]', 'KEYS[2]', 'ARGV[1]')}
return redis.call('ZCARD', KEYS[1])
`;

// A heartbeat, in the shared batch of hot-path scripts (lib/redis-batch.ts): the end reason, TIMED_OUT, or (alive) the
// session's fields after moving its deadline.
const HEARTBEAT = `
    local hk = '${PREFIX}s:' .. id
    local h = redis.call('HMGET', hk, 'ended', 'seen', 'hb', 'service', 'key', 'hwid', 'script', 'started', 'kexp')
    if not h[2] or h[4] ~= service then return {'TIMED_OUT'} end
    if h[1] then return {h[1], h[5], h[6]} end
    local at = tonumber(now)
    local period = 2 * tonumber(h[3]) * 1000
    if tonumber(h[2]) + period < at then return {'TIMED_OUT'} end
    local deadline = at + period
    local ttl = period + ${ENDED_KEPT_MS}
    redis.call('HSET', hk, 'seen', now)
    redis.call('PEXPIRE', hk, ttl)
    -- The key's set keeps its scores until a count looks (RESCORE); it must outlive the session, for an end by key.
    if h[5] ~= '' then redis.call('PEXPIRE', '${PREFIX}k:' .. service .. ':' .. h[5], ttl) end
    redis.call('ZADD', '${PREFIX}v:' .. service, deadline, id)
    return {'', h[5], h[6], h[7], h[3], h[8], h[9]}`;

// End: marks the selected sessions ended with the reason (kept ENDED_KEPT_MS for their next heartbeat) and frees
// their places. ARGV: prefix, service, mode (id | key | hwid | script), value, reason, now, kept ms; close = 1 deletes
// the session instead (the client ended it itself).
const END = `
local prefix, service, mode, value, reason = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local function finish(id)
  local hk = prefix .. 's:' .. id
  local h = redis.call('HMGET', hk, 'service', 'key', 'ended', 'exe')
  if h[1] ~= service or h[3] then return 0 end
  if h[2] ~= '' then redis.call('ZREM', prefix .. 'k:' .. service .. ':' .. h[2], id) end
  if h[4] and h[4] ~= '' then redis.call('ZREM', prefix .. 'e:' .. service .. ':' .. h[4], id) end
  redis.call('ZREM', prefix .. 'v:' .. service, id)
  if ARGV[8] == '1' then
    redis.call('DEL', hk)
  else
    redis.call('HSET', hk, 'ended', reason, 'endedAt', ARGV[6])
    redis.call('PEXPIRE', hk, ARGV[7])
  end
  return 1
end
local n = 0
if mode == 'id' then
  n = finish(value)
elseif mode == 'key' then
  for _, id in ipairs(redis.call('ZRANGE', prefix .. 'k:' .. service .. ':' .. value, 0, -1)) do n = n + finish(id) end
elseif mode == 'all' then
  for _, id in ipairs(redis.call('ZRANGE', prefix .. 'v:' .. service, 0, -1)) do n = n + finish(id) end
else
  local field = mode == 'hwid' and 'hwid' or 'script'
  for _, id in ipairs(redis.call('ZRANGE', prefix .. 'v:' .. service, 0, -1)) do
    if redis.call('HGET', prefix .. 's:' .. id, field) == value then n = n + finish(id) end
  end
end
return n
`;

const MOVE_EXPIRY = `if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('HSET', KEYS[1], 'kexp', ARGV[1]) end return 1`;

// A seller changed the key's expiry: each of the key's sessions judges its heartbeats against the new one.
// KEYS[1]: the key's set; ARGV: prefix, new expiry ('' none).
const CHANGE_EXPIRY = `
for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  local hk = ARGV[1] .. 's:' .. id
  if redis.call('EXISTS', hk) == 1 then redis.call('HSET', hk, 'kexp', ARGV[2]) end
end
return 1
`;

type Scripted = Redis & {
  sessionOpen(...args: (string | number)[]): Promise<number>;
  sessionExecutorCount(...args: (string | number)[]): Promise<number>;
  sessionEnd(...args: (string | number)[]): Promise<number>;
  sessionMoveExpiry(...args: (string | number)[]): Promise<number>;
  sessionChangeExpiry(...args: (string | number)[]): Promise<number>;
};

const orNull = (value: string | null | undefined) => (value === '' || value === null || value === undefined ? null : value);
const numberOrNull = (value: string | null | undefined) => (orNull(value) === null ? null : Number(value));

/** Live sessions in Redis (REDIS_URL set): every instance sees the same state, and a heartbeat touches no database. */
export class LiveSessionsInRedis implements LiveSessions {
  private readonly redis: Scripted;
  // Heartbeats are the hot path: those that arrive while one batch is on the wire go to Redis together.
  private readonly beat: (args: [string, string, number]) => Promise<string[]>;

  constructor(redis: Redis) {
    redis.defineCommand('sessionOpen', { numberOfKeys: 4, lua: OPEN });
    redis.defineCommand('sessionExecutorCount', { numberOfKeys: 2, lua: EXECUTOR_COUNT });
    redis.defineCommand('sessionEnd', { numberOfKeys: 0, lua: END });
    redis.defineCommand('sessionMoveExpiry', { numberOfKeys: 1, lua: MOVE_EXPIRY });
    redis.defineCommand('sessionChangeExpiry', { numberOfKeys: 1, lua: CHANGE_EXPIRY });
    this.redis = redis as Scripted;
    this.beat = RedisBatch.of(redis).define<string[]>({ name: 'heartbeat', params: ['service', 'id', 'now'], lua: HEARTBEAT });
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
    );
    return opened === 1 ? { sessionId, expiresAt } : 'limit';
  }

  async heartbeat(serviceId: string, sessionId: string, now: number): Promise<Beat> {
    const answer = await this.beat([serviceId, sessionId, now]);
    if (answer[0] !== '') return { alive: false, reason: answer[0] as EndReason, key: orNull(answer[1]), hwid: answer[2] };
    const [, key, hwid, script, hb, started, kexp] = answer;
    const heartbeatSeconds = Number(hb);
    const session: LiveSession = {
      sessionId,
      serviceId,
      key: orNull(key),
      hwid: hwid ?? '',
      scriptId: orNull(script),
      heartbeatSeconds,
      startedAt: Number(started),
      lastSeenAt: now,
      keyExpiresAt: numberOrNull(kexp),
    };
    return { alive: true, session, expiresAt: deadlineOf(now, heartbeatSeconds) };
  }

  async keyExpiryMoved(session: LiveSession, keyExpiresAt: number | null): Promise<void> {
    await this.redis.sessionMoveExpiry(hashKey(session.sessionId), keyExpiresAt ?? '');
  }

  async keyExpiryChanged(serviceId: string, key: string, keyExpiresAt: number | null): Promise<void> {
    await this.redis.sessionChangeExpiry(keySet(serviceId, key), PREFIX, keyExpiresAt ?? '');
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
    return (await this.redis.sessionEnd(PREFIX, serviceId, 'id', sessionId, '', now, ENDED_KEPT_MS, '1')) > 0;
  }

  private async liveIds(serviceId: string, now: number): Promise<string[]> {
    return this.redis.zrangebyscore(serviceSet(serviceId), now, '+inf');
  }

  async list(serviceId: string, filter: SessionFilter, page: { offset: number; limit: number }, now: number) {
    const ids = await this.liveIds(serviceId, now);
    const pipeline = this.redis.pipeline();
    for (const id of ids) pipeline.hmget(hashKey(id), 'key', 'hwid', 'script', 'hb', 'started', 'seen', 'kexp', 'ended', 'by');
    const rows = ((await pipeline.exec()) ?? []).map(([, value], i) => [ids[i]!, value as (string | null)[]] as const);
    const sessions = rows
      .filter(([, h]) => h[5] !== null && h[7] === null && (filter.createdBy === undefined || h[8] === filter.createdBy))
      .map(([id, h]): LiveSession => ({
        sessionId: id,
        serviceId,
        key: orNull(h[0]),
        hwid: h[1] ?? '',
        scriptId: orNull(h[2]),
        heartbeatSeconds: Number(h[3]),
        startedAt: Number(h[4]),
        lastSeenAt: Number(h[5]),
        keyExpiresAt: numberOrNull(h[6]),
      }))
      .filter(
        (s) => (filter.key === undefined || s.key === filter.key) && (filter.scriptId === undefined || s.scriptId === filter.scriptId),
      )
      .sort((a, b) => b.startedAt - a.startedAt || (a.sessionId < b.sessionId ? -1 : 1));
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

  async flush(): Promise<void> {}
}
