import type { Redis } from 'ioredis';
import { ENDED_KEPT_MS } from './live-sessions.ts';

// The Lua scripts and key names of the live sessions in Redis (live-sessions.redis.ts), one script per operation so
// that no other instance runs between a script's reads and writes.

// Key names: a hash per session, and sorted sets of session ids scored by the moment each stops being live (its last
// heartbeat plus two periods): one per service (the list and the count), kept by the heartbeats (at once, or by the
// instance's next flush); one per key (the limit counts it, an end by key reads it) and one per executor (§29's
// peak), whose scores are the deadlines as they stood when last looked at: heartbeats leave them alone, and a count
// first brings their passed members up to date from the service's set (RESCORE). The Lua scripts build the set names
// from the hash's fields, so they assume one Redis node (as the rest of Keyward).
export const PREFIX = 'kw:ls:';
export const hashKey = (sessionId: string) => `${PREFIX}s:${sessionId}`;
export const keySet = (serviceId: string, key: string) => `${PREFIX}k:${serviceId}:${key}`;
export const serviceSet = (serviceId: string) => `${PREFIX}v:${serviceId}`;
export const executorSet = (serviceId: string, executor: string) => `${PREFIX}e:${serviceId}:${executor}`;
// A service's end counter: every end, close and change of a key's expiry moves it, so an instance that heard a session
// lately knows it unchanged while the counter stands. It starts at a random number, so a Redis that lost its data
// (and the sessions with it) never shows an instance the number it knew.
export const counterKey = (serviceId: string) => `${PREFIX}n:${serviceId}`;
// An executor's set outlives its last open by a day: its sessions' peak is counted when one opens.
export const EXECUTOR_SET_TTL_MS = 24 * 3600_000;

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

// Open: bring the key's set up to date, refuse at the limit (0), else store the session and answer the service's end
// counter (started at ARGV[15] where there is none). One script, so no other open (on any instance) runs between the
// count and the insert.
const OPEN = `
local max = tonumber(ARGV[2])
if max > 0 then
  ${RESCORE('KEYS[2]', 'KEYS[3]', 'ARGV[1]')}
  if redis.call('ZCARD', KEYS[2]) >= max then return 0 end
end
redis.call('HSET', KEYS[1], 'service', ARGV[5], 'key', ARGV[6], 'hwid', ARGV[7], 'script', ARGV[8], 'hb', ARGV[9],
  'kexp', ARGV[10], 'started', ARGV[1], 'exe', ARGV[12], 'by', ARGV[13])
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
redis.call('SET', KEYS[5], ARGV[15], 'NX')
return redis.call('GET', KEYS[5])
`;

// How many of an executor's sessions live (contract §29's peak). KEYS: the executor's set, the service's set; ARGV: now.
const EXECUTOR_COUNT = `
${RESCORE('KEYS[1]', 'KEYS[2]', 'ARGV[1]')}
return redis.call('ZCARD', KEYS[1])
`;

// A heartbeat that needs Redis, in the shared batch of hot-path scripts (lib/redis-batch.ts): most are answered in
// memory after a read of END_COUNTER. `fast`: this instance heard the session beat lately, but its service's end
// counter moved or its time to live is due, so it has not timed out and lives unless it ended (an end marks the
// hash, a close deletes it): one
// HMGET answers with the one field that can change (its key's expiry), and the instance writes the deadline with its
// next flush. Otherwise the service's set, which holds each live session's deadline, says whether the session lives:
// an end takes the session out of it, and a session past its deadline is out of time. A session this instance knows
// (`period` given: its fields never change) then costs a ZSCORE, a ZADD and an HGET, answered as the expiry's string;
// one it does not know reads its fields too, and a session not live answers its end reason or TIMED_OUT in a table.
// The hash's time to live moves only when the instance asks (`refresh`, see REFRESH_EVERY_MS).
export const HEARTBEAT = `
    local vs = '${PREFIX}v:' .. service
    local hk = '${PREFIX}s:' .. id
    local kexp, fields
    if fast == '1' then
      local h = redis.call('HMGET', hk, 'service', 'ended', 'kexp')
      if h[1] == service and not h[2] then
        if refresh ~= '1' then return h[3] or '' end
        kexp = h[3] or ''
        -- XX: a session the set no longer holds is not put back.
        redis.call('ZADD', vs, 'XX', 'GT', tonumber(now) + tonumber(period), id)
      end
    end
    if not kexp then
      local deadline = redis.call('ZSCORE', vs, id)
      if not deadline or tonumber(deadline) < tonumber(now) then
        local h = redis.call('HMGET', hk, 'ended', 'key', 'hwid', 'service')
        if h[1] and h[4] == service then return {h[1], h[2], h[3]} end
        return {'TIMED_OUT'}
      end
      if period == '' then
        fields = redis.call('HMGET', hk, 'kexp', 'hb', 'key', 'hwid', 'script', 'started', 'service')
        if fields[7] ~= service then return {'TIMED_OUT'} end
        period, refresh, key = 2 * tonumber(fields[2]) * 1000, '1', fields[3]
      end
      redis.call('ZADD', vs, tonumber(now) + tonumber(period), id)
    end
    if refresh == '1' then
      local ttl = tonumber(period) + ${ENDED_KEPT_MS}
      redis.call('PEXPIRE', hk, ttl)
      if key ~= '' then redis.call('PEXPIRE', '${PREFIX}k:' .. service .. ':' .. key, ttl) end
    end
    if fields then return {'', fields[1], fields[2], fields[3], fields[4], fields[5], fields[6]} end
    return kexp or redis.call('HGET', hk, 'kexp') or {'TIMED_OUT'}`;

// End: marks the selected sessions ended with the reason (kept ENDED_KEPT_MS for their next heartbeat), frees their
// places and moves the service's end counter. ARGV: prefix, service, mode (id | key | hwid | script), value, reason,
// now, kept ms; close = 1 deletes the session instead (the client ended it itself).
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
if n > 0 then redis.call('INCR', prefix .. 'n:' .. service) end
return n
`;

// A heartbeat found the key's expiry moved (its first use started it). KEYS[1]: the session's hash; ARGV: new expiry
// ('' none), prefix.
const MOVE_EXPIRY = `
local service = redis.call('HGET', KEYS[1], 'service')
if service then
  redis.call('HSET', KEYS[1], 'kexp', ARGV[1])
  redis.call('INCR', ARGV[2] .. 'n:' .. service)
end
return 1
`;

// A seller changed the key's expiry: each of the key's sessions judges its heartbeats against the new one.
// KEYS: the key's set, the service's end counter; ARGV: prefix, new expiry ('' none).
const CHANGE_EXPIRY = `
local changed = false
for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  local hk = ARGV[1] .. 's:' .. id
  if redis.call('EXISTS', hk) == 1 then
    redis.call('HSET', hk, 'kexp', ARGV[2])
    changed = true
  end
end
if changed then redis.call('INCR', KEYS[2]) end
return 1
`;

// A service's end counter ('' where there is none), in the shared batch: one read serves every heartbeat of the
// service that waits for the same call.
export const END_COUNTER = `    return redis.call('GET', '${PREFIX}n:' .. service) or ''`;

export type Scripted = Redis & {
  sessionOpen(...args: (string | number)[]): Promise<number | string>;
  sessionExecutorCount(...args: (string | number)[]): Promise<number>;
  sessionEnd(...args: (string | number)[]): Promise<number>;
  sessionMoveExpiry(...args: (string | number)[]): Promise<number>;
  sessionChangeExpiry(...args: (string | number)[]): Promise<number>;
};

/** The connection with the session scripts defined on it (the heartbeat's goes in the shared batch instead). */
export function withSessionScripts(redis: Redis): Scripted {
  redis.defineCommand('sessionOpen', { numberOfKeys: 5, lua: OPEN });
  redis.defineCommand('sessionExecutorCount', { numberOfKeys: 2, lua: EXECUTOR_COUNT });
  redis.defineCommand('sessionEnd', { numberOfKeys: 0, lua: END });
  redis.defineCommand('sessionMoveExpiry', { numberOfKeys: 1, lua: MOVE_EXPIRY });
  redis.defineCommand('sessionChangeExpiry', { numberOfKeys: 2, lua: CHANGE_EXPIRY });
  return redis as Scripted;
}
