import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.ts';
import { anotherInstance, useTestApp } from '../helpers/app.ts';
import { RedisBatch } from '../../src/lib/redis-batch.ts';
import { call, generateKeys, seedService } from '../helpers/seed.ts';
import { openSession } from '../sessions/session-helpers.ts';

const REDIS_URL = process.env.KEYWARD_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const t = useTestApp({ RATE_LIMIT_API_PER_MINUTE: '3', RATE_LIMIT_CLIENT_PER_MINUTE: '2', REDIS_URL });
let second: App;

beforeAll(async () => {
  // A second instance on the same database and Redis, as behind a load balancer.
  second = await anotherInstance(t());
});
afterAll(async () => {
  await second?.close();
});

describe('rate limits shared through Redis (REDIS_URL)', () => {
  it('counts one key across two instances', async () => {
    const s = await seedService(t().ctx);
    const apps = [t().app, second, t().app];
    for (const app of apps) expect((await call(app, 'GET', '/api/v1/keys/api/service/info', { key: s.serviceKey })).status).toBe(200);
    const fourth = await call(second, 'GET', '/api/v1/keys/api/service/status', { key: s.serviceKey });
    expect(fourth.status).toBe(429);
    expect(fourth.body.code).toBe('RATE_LIMITED');
    expect(Number(fourth.headers['retry-after'])).toBeGreaterThan(0);
    const other = await seedService(t().ctx);
    expect((await call(second, 'GET', '/api/v1/keys/api/service/info', { key: other.serviceKey })).status).toBe(200);
  });

  it('counts one client address and service across two instances', async () => {
    const s = await seedService(t().ctx);
    const url = `/api/v1/keys/validate?service=${s.id}&key=nope&hwid=pc`;
    const address = `198.51.100.${Math.floor(Math.random() * 200) + 10}`;
    expect((await call(t().app, 'GET', url, { remoteAddress: address })).status).toBe(200);
    expect((await call(second, 'GET', url, { remoteAddress: address })).status).toBe(200);
    expect((await call(t().app, 'GET', url, { remoteAddress: address })).status).toBe(429);
  });

  it('spends exactly the budget when one address’s calls race on two instances (counted in batches)', async () => {
    const s = await seedService(t().ctx);
    const url = `/api/v1/keys/validate?service=${s.identifier}&key=nope&hwid=pc`;
    const address = `203.0.113.${Math.floor(Math.random() * 200) + 10}`;
    const racing = Array.from({ length: 40 }, (_, i) => call(i % 2 ? second : t().app, 'GET', url, { remoteAddress: address }));
    const statuses = (await Promise.all(racing)).map((res) => res.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(2);
    expect(statuses.filter((status) => status === 429)).toHaveLength(38);
    // Another address still has its own budget.
    expect((await call(second, 'GET', url, { remoteAddress: '203.0.113.250' })).status).toBe(200);
  });

  it('tells each instance when a window another instance opened ends, and a new window its own end', async () => {
    const s = await seedService(t().ctx);
    const url = `/api/v1/keys/validate?service=${s.id}&key=nope&hwid=pc`;
    const address = `192.0.2.${Math.floor(Math.random() * 200) + 10}`;
    const reset = (res: { headers: Record<string, unknown> }) => Number(res.headers['ratelimit-reset']);
    const redis = new Redis(REDIS_URL);
    try {
      expect(reset(await call(t().app, 'GET', url, { remoteAddress: address }))).toBe(60);
      // As if 40 of the window's seconds had passed before the other instance's first call.
      const windowKey = `keyward:rl:client:${address}:${s.id}`;
      expect(await redis.pexpire(windowKey, 20_000)).toBe(1);
      const first = await call(second, 'GET', url, { remoteAddress: address });
      expect(first.status).toBe(200);
      expect(reset(first)).toBeLessThanOrEqual(20);
      const again = await call(second, 'GET', url, { remoteAddress: address });
      expect(again.status).toBe(429);
      expect(reset(again)).toBeLessThanOrEqual(20);
      expect(Number(again.headers['retry-after'])).toBeLessThanOrEqual(20);
      // The window ended (its key expired): the next call opens a new one, whatever the instance remembered.
      await redis.del(windowKey);
      const fresh = await call(second, 'GET', url, { remoteAddress: address });
      expect(fresh.status).toBe(200);
      expect(reset(fresh)).toBe(60);
    } finally {
      redis.disconnect();
    }
  });

  describe('a heartbeat on the hot lane: its beat travels behind the count, in the same call to Redis', () => {
    const liveSession = async () => {
      const s = await seedService(t().ctx);
      const [key] = await generateKeys(t().app, s.serviceKey);
      const sessionId = await openSession(t().app, s, { key, hwid: 'pc-gate' });
      return { s, sessionId, url: `/api/v1/public/sessions/${s.id}/${sessionId}/heartbeat` };
    };

    it('within the budget it beats, in one call; past it the answer is 429 and the session did not move', async () => {
      const { s, sessionId, url } = await liveSession();
      const address = `198.18.0.${Math.floor(Math.random() * 200) + 10}`;
      const batch = RedisBatch.of(t().ctx.redis!);
      const lane = t().app.hotLane;
      const redis = new Redis(REDIS_URL);
      const deadline = async () => Number(await redis.zscore(`kw:ls:v:${s.id}`, sessionId));
      try {
        for (let i = 0; i < 2; i++) {
          const [calls, answered] = [batch.calls, lane.answered];
          const beat = await call(t().app, 'POST', url, { remoteAddress: address });
          expect(beat.status).toBe(200);
          expect(beat.body.data.alive).toBe(true);
          expect(lane.answered - answered).toBe(1);
          expect(batch.calls - calls).toBe(1);
        }
        // The beats' deadlines are written by the flush (the session-flush job); then set the deadline back (still
        // ahead of the server's clock), so that a beat that ran would show once flushed.
        const flush = () => t().ctx.liveSessions.flush(Date.now());
        await flush();
        const earlier = (await deadline()) - 10_000;
        await redis.zadd(`kw:ls:v:${s.id}`, earlier, sessionId);
        const answered = lane.answered;
        const refused = await call(t().app, 'POST', url, { remoteAddress: address });
        expect(refused.status).toBe(429);
        expect(refused.body.code).toBe('RATE_LIMITED');
        expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
        expect(lane.answered - answered).toBe(1);
        await flush();
        expect(await deadline()).toBe(earlier);
        // Another address, within its budget, moves it.
        expect((await call(t().app, 'POST', url, { remoteAddress: `${address}1`.slice(0, 14) })).status).toBe(200);
        await flush();
        expect(await deadline()).toBeGreaterThan(earlier);
      } finally {
        redis.disconnect();
      }
    });

    it('lets exactly the budget through when one address’s heartbeats race on two instances', async () => {
      const { url } = await liveSession();
      const address = `198.19.0.${Math.floor(Math.random() * 200) + 10}`;
      const racing = Array.from({ length: 40 }, (_, i) => call(i % 2 ? second : t().app, 'POST', url, { remoteAddress: address }));
      const statuses = (await Promise.all(racing)).map((res) => res.status);
      expect(statuses.filter((status) => status === 200)).toHaveLength(2);
      expect(statuses.filter((status) => status === 429)).toHaveLength(38);
    });
  });
});
