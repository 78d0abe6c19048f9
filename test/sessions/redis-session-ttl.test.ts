import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { ENDED_KEPT_MS, type Beat } from '../../src/modules/sessions/live-sessions.ts';
import { LiveSessionsInRedis } from '../../src/modules/sessions/live-sessions.redis.ts';

// The Redis store's hot heartbeat reads none of the session's fields (the instance keeps them) and moves the hash's
// time to live only now and then: what must hold so that an end or a list still finds a session kept alive for long,
// and so that an instance that never saw the session answers with its fields. Against the real Redis, two stores on
// two connections standing for two instances. The Redis keys are named here as the store names them.
const REDIS_URL = process.env.KEYWARD_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const connections = [new Redis(REDIS_URL), new Redis(REDIS_URL)];
const [one, other] = connections.map((redis) => new LiveSessionsInRedis(redis)) as [LiveSessionsInRedis, LiveSessionsInRedis];
const redis = connections[0]!;
const serviceId = `svc-${randomUUID()}`;

afterAll(async () => {
  const keys = await redis.keys(`kw:ls:*${serviceId}*`);
  if (keys.length > 0) await redis.del(...keys);
  for (const connection of connections) connection.disconnect();
});

const HEARTBEAT_SECONDS = 10;
const open = async (key: string, now: number, service = serviceId) => {
  const opened = await one.open({
    serviceId: service,
    key,
    hwid: `hwid-${key}`,
    scriptId: 'script-1',
    maxSessions: 0,
    heartbeatSeconds: HEARTBEAT_SECONDS,
    keyExpiresAt: now + 3_600_000,
    now,
  });
  if (opened === 'limit') throw new Error('opened nothing');
  return { sessionId: opened.sessionId, hash: `kw:ls:s:${opened.sessionId}`, keySet: `kw:ls:k:${service}:${key}` };
};
/**
 * Redis's MONITOR on a socket of its own (ioredis's monitor mode can take the first lines as replies): every command
 * Redis ran, those of scripts too, until a marker command sent through `redis` once it is on.
 */
async function monitorRedis() {
  const { hostname, port } = new URL(REDIS_URL);
  const socket = connect(Number(port || 6379), hostname);
  const lines: string[][] = [];
  let text = '';
  let ready!: () => void;
  let marked!: () => void;
  const on = new Promise<void>((resolve) => (ready = resolve));
  const seen = new Promise<void>((resolve) => (marked = resolve));
  const marker = `kw:test:marker:${randomUUID()}`;
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    text += chunk;
    let end;
    while ((end = text.indexOf('\r\n')) >= 0) {
      const line = text.slice(0, end);
      text = text.slice(end + 2);
      if (line === '+OK') ready();
      // +1700000000.123456 [0 lua] "GET" "key"
      const args = [...line.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]!);
      if (args[1] === marker) marked();
      else if (args.length > 0) lines.push([args[0]!.toUpperCase(), ...args.slice(1)]);
    }
  });
  socket.write('MONITOR\r\n');
  await on;
  return {
    async upTo(client: Redis) {
      await client.get(marker);
      await seen;
      return lines;
    },
    close: () => socket.destroy(),
  };
}

const alive = (beat: Beat) => {
  if (!beat.alive) throw new Error(`ended: ${beat.reason}`);
  return beat.session;
};

it("keeps a session's hash and its key's set past its deadline, however long it beats", async () => {
  const t0 = Date.now();
  const { sessionId, hash, keySet } = await open('K-long', t0);
  // As if most of the time to live the open set had run down in Redis.
  await redis.pexpire(hash, 60_000);
  await redis.pexpire(keySet, 60_000);
  let now = t0;
  while (now - t0 < ENDED_KEPT_MS / 2 - 15_000) {
    now += 15_000;
    alive(await one.heartbeat(serviceId, sessionId, now));
  }
  // Beats within the refresh interval leave the time to live alone.
  expect(await redis.pttl(hash)).toBeLessThanOrEqual(60_000);
  now += 15_000;
  alive(await one.heartbeat(serviceId, sessionId, now));
  const period = 2 * HEARTBEAT_SECONDS * 1000;
  expect(await redis.pttl(hash)).toBeGreaterThan(period + ENDED_KEPT_MS - 10_000);
  expect(await redis.pttl(keySet)).toBeGreaterThan(period + ENDED_KEPT_MS - 10_000);
  // Ended by key on the other instance: the key's set still names it, and its next heartbeat hears the reason.
  expect(await other.end(serviceId, { key: 'K-long' }, 'KILLED', now)).toBe(1);
  expect(await one.heartbeat(serviceId, sessionId, now + 1000)).toMatchObject({ alive: false, reason: 'KILLED' });
});

it('answers with the fields an instance that never saw the session reads, and its last heartbeat in the list', async () => {
  const t0 = Date.now();
  const { sessionId, hash } = await open('K-fields', t0);
  await redis.pexpire(hash, 60_000);
  const fromOpener = alive(await one.heartbeat(serviceId, sessionId, t0 + 5_000));
  const fromOther = alive(await other.heartbeat(serviceId, sessionId, t0 + 6_000));
  expect(fromOther).toEqual({ ...fromOpener, lastSeenAt: t0 + 6_000 });
  expect(fromOther).toMatchObject({ key: 'K-fields', hwid: 'hwid-K-fields', scriptId: 'script-1', startedAt: t0, heartbeatSeconds: 10 });
  // Its first heartbeat there moved the time to live, as it cannot know when another instance last did.
  expect(await redis.pttl(hash)).toBeGreaterThan(2 * HEARTBEAT_SECONDS * 1000 + ENDED_KEPT_MS - 10_000);
  const listed = await one.list(serviceId, { key: 'K-fields' }, { offset: 0, limit: 10 }, t0 + 7_000);
  expect(listed.items).toEqual([{ ...fromOther }]);
  // The key's expiry is read at every heartbeat: a change reaches the instance that holds the other fields.
  await other.keyExpiryChanged(serviceId, 'K-fields', t0 + 10_000);
  expect(alive(await one.heartbeat(serviceId, sessionId, t0 + 8_000)).keyExpiresAt).toBe(t0 + 10_000);
  // So does an expiry another instance's heartbeat found moved on the key's row.
  await other.keyExpiryMoved(alive(await other.heartbeat(serviceId, sessionId, t0 + 8_500)), t0 + 20_000);
  expect(alive(await one.heartbeat(serviceId, sessionId, t0 + 9_000)).keyExpiresAt).toBe(t0 + 20_000);
});

it('answers TIMED_OUT for a session whose deadline passed, or that a Redis which lost its data no longer holds, on an instance that knows it', async () => {
  const t0 = Date.now();
  const late = await open('K-late', t0);
  expect(await one.heartbeat(serviceId, late.sessionId, t0 + 2 * HEARTBEAT_SECONDS * 1000 + 1)).toMatchObject({
    alive: false,
    reason: 'TIMED_OUT',
  });
  // As after a restart of a Redis that keeps nothing on disk: the hashes and the service's end counter are gone (a
  // service where nothing ended yet, so the counter stands where it started).
  const fresh = `${serviceId}-restarted`;
  const [lost, gone] = [await open('K-lost', t0, fresh), await open('K-gone', t0, fresh)];
  await redis.del(lost.hash, gone.hash, `kw:ls:n:${fresh}`);
  expect(await one.heartbeat(fresh, lost.sessionId, t0 + 1000)).toMatchObject({ alive: false, reason: 'TIMED_OUT' });
  // An open since then started a new counter, which is not the one the instance knew.
  await open('K-after', t0 + 1000, fresh);
  expect(await one.heartbeat(fresh, gone.sessionId, t0 + 2000)).toMatchObject({ alive: false, reason: 'TIMED_OUT' });
});

it('beats the sessions it heard lately with one read of their service’s end counter for all the heartbeats of a call', async () => {
  const t0 = Date.now();
  const opened = await Promise.all(Array.from({ length: 20 }, (_, i) => open(`K-counter-${i}`, t0)));
  // What names this service's counter or these sessions' hashes (the batch's own call names neither).
  const ours = new Set([`kw:ls:n:${serviceId}`, ...opened.map((s) => s.hash)]);
  const monitor = await monitorRedis();
  try {
    const beats = await Promise.all(opened.map((s) => one.heartbeat(serviceId, s.sessionId, t0 + 1000)));
    expect(beats.map((beat) => alive(beat).lastSeenAt)).toEqual(opened.map(() => t0 + 1000));
    const commands = await monitor.upTo(redis);
    expect(commands.filter((args) => args.slice(1).some((arg) => ours.has(arg))).map((args) => `${args[0]} ${args[1]}`)).toEqual([
      `GET kw:ls:n:${serviceId}`,
    ]);
  } finally {
    monitor.close();
  }
  // An end moves the counter: each session is then looked at once in Redis, and answers as it stands.
  expect(await other.end(serviceId, { sessionId: opened[0]!.sessionId }, 'KILLED', t0 + 1500)).toBe(1);
  const after = await Promise.all(opened.slice(0, 2).map((s) => one.heartbeat(serviceId, s.sessionId, t0 + 2000)));
  expect(after[0]).toMatchObject({ alive: false, reason: 'KILLED' });
  expect(alive(after[1]!).lastSeenAt).toBe(t0 + 2000);
});

// A heartbeat of a session this instance heard lately reads only whether it ended, and the session-flush job writes
// its deadline to the service's set (the list, the count and the key's limit read that set); a later one goes the
// whole way at once. Each of these fails where that split is undone or the flush's ZADD loses XX or GT.
describe('the deadlines the flush writes', () => {
  const deadline = async (sessionId: string) => Number(await redis.zscore(`kw:ls:v:${serviceId}`, sessionId));
  const period = 2 * HEARTBEAT_SECONDS * 1000;

  it('moves a lately heard session in the service’s set at the flush, and lists its last beat before', async () => {
    const t0 = Date.now();
    const { sessionId } = await open('K-flush', t0);
    alive(await one.heartbeat(serviceId, sessionId, t0 + 5_000));
    expect(await deadline(sessionId)).toBe(t0 + period);
    const listed = await one.list(serviceId, { key: 'K-flush' }, { offset: 0, limit: 10 }, t0 + 6_000);
    expect(listed.items.map((s) => s.lastSeenAt)).toEqual([t0 + 5_000]);
    await one.flush();
    expect(await deadline(sessionId)).toBe(t0 + 5_000 + period);
    expect(await other.count(serviceId, t0 + period + 1)).toBeGreaterThanOrEqual(1);
  });

  it('writes a beat later than one and a half periods at once', async () => {
    const t0 = Date.now();
    const { sessionId } = await open('K-late-beat', t0);
    const late = t0 + 1.5 * HEARTBEAT_SECONDS * 1000 + 1;
    alive(await one.heartbeat(serviceId, sessionId, late));
    expect(await deadline(sessionId)).toBe(late + period);
  });

  it('never puts an ended session back, nor moves another instance’s later deadline back', async () => {
    const t0 = Date.now();
    const ended = await open('K-ended-flush', t0);
    alive(await one.heartbeat(serviceId, ended.sessionId, t0 + 1_000));
    expect(await other.end(serviceId, { sessionId: ended.sessionId }, 'KILLED', t0 + 2_000)).toBe(1);
    await one.flush();
    expect(await redis.zscore(`kw:ls:v:${serviceId}`, ended.sessionId)).toBeNull();
    expect(await one.heartbeat(serviceId, ended.sessionId, t0 + 3_000)).toMatchObject({ alive: false, reason: 'KILLED' });

    const shared = await open('K-two-flushes', t0);
    alive(await other.heartbeat(serviceId, shared.sessionId, t0 + 1_000)); // the other instance learns it
    alive(await one.heartbeat(serviceId, shared.sessionId, t0 + 5_000));
    alive(await other.heartbeat(serviceId, shared.sessionId, t0 + 6_000));
    await other.flush();
    await one.flush();
    expect(await deadline(shared.sessionId)).toBe(t0 + 6_000 + period);
  });
});
