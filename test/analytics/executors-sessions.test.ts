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
});
