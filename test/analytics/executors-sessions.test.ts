import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, generateKeys, seedService } from '../helpers/seed.ts';

/**
 * An executor's peak of live sessions (contract §29) on each live-state implementation: the database one, and Redis.
 * Each session remembers the executor its run reported; the peak counts only those still live.
 */
describe.each([
  ['the database', {}],
  ['Redis', { REDIS_URL: process.env.KEYWARD_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379' }],
])('executor peak sessions with live sessions in %s', (_name, env: Record<string, string>) => {
  const t = useTestApp(env);

  it('counts the live sessions of the executor that opened one, not the ended ones or other executors', async () => {
    const s = await seedService(t().ctx);
    const [key] = await generateKeys(t().app, s.serviceKey, { expirationType: 'lifetime', noHwidValidation: true });
    const open = async (hwid: string, executor: string) => {
      const res = await call(t().app, 'POST', `/api/v1/public/sessions/${s.id}`, { body: { key, hwid, executor } });
      expect(res.status).toBe(201);
      return res.body.data.sessionId as string;
    };
    const first = await open('1', 'Wave 2.1');
    await open('2', 'Wave 2.1');
    await open('3', 'Delta');
    // One Wave session ends; the next Wave open sees two live (itself and the second), below the peak of two.
    expect((await call(t().app, 'DELETE', `/api/v1/public/sessions/${s.id}/${first}`)).status).toBe(200);
    await open('4', 'Wave 2.1');
    await open('5', 'Delta');
    await t().ctx.analytics.flush(t().ctx.db);
    const res = await call(t().app, 'GET', '/api/v1/keys/api/analytics/executors', { key: s.serviceKey });
    const peak = Object.fromEntries(
      res.body.data.items.map((i: { executor: string; peakSessions: number }) => [i.executor, i.peakSessions]),
    );
    expect(peak).toEqual({ 'Wave 2.1': 2, Delta: 2 });
  });
  // Redis counts an executor's sessions from a set that heartbeats leave alone (live-sessions.redis.ts): a session
  // that heartbeated past the deadline it opened with still counts, one that timed out does not, on either store.
  it('counts a session kept alive by heartbeats past its first deadline, and not one that timed out', async () => {
    const s = await seedService(t().ctx);
    const [key] = await generateKeys(t().app, s.serviceKey, { expirationType: 'lifetime', noHwidValidation: true });
    expect(
      (await call(t().app, 'PUT', '/api/v1/keys/api/settings', { key: s.serviceKey, body: { sessionHeartbeatSeconds: 10 } })).status,
    ).toBe(200);
    const open = async (hwid: string) => {
      const res = await call(t().app, 'POST', `/api/v1/public/sessions/${s.id}`, { body: { key, hwid, executor: 'Solara' } });
      expect(res.status).toBe(201);
      return res.body.data.sessionId as string;
    };
    const kept = await open('kept');
    await open('left'); // never heartbeats: gone 20 s after it opened
    t().clock.advance(15_000);
    expect((await call(t().app, 'POST', `/api/v1/public/sessions/${s.id}/${kept}/heartbeat`)).status).toBe(200);
    // The database store writes heartbeats every few seconds (session-flush job), well inside a period.
    await t().ctx.liveSessions.flush(t().clock.now);
    t().clock.advance(10_000); // past both first deadlines; `kept` lives until 35 s
    await open('third');
    await open('fourth'); // kept, third and fourth: three at once
    await t().ctx.analytics.flush(t().ctx.db);
    const res = await call(t().app, 'GET', '/api/v1/keys/api/analytics/executors', { key: s.serviceKey });
    const solara = res.body.data.items.find((i: { executor: string }) => i.executor === 'Solara');
    expect(solara.peakSessions).toBe(3);
  });
});
