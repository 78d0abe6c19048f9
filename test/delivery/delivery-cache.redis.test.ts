import { afterAll, beforeAll, expect, it } from 'vitest';
import type { App } from '../../src/app.ts';
import { anotherInstance, useTestApp } from '../helpers/app.ts';
import { call, generateKeys, seedService } from '../helpers/seed.ts';
import { SCRIPTS, uploadScript } from '../scripts/script-helpers.ts';

// With REDIS_URL, invalidations travel over Redis pub/sub instead of the database.
const t = useTestApp({ REDIS_URL: process.env.KEYWARD_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379' });
let second: App;
beforeAll(async () => {
  second = await anotherInstance(t());
});
afterAll(async () => {
  await second?.close();
});

it('serves updated code on another instance, told through Redis', async () => {
  const s = await seedService(t().ctx);
  const script = await uploadScript(t().app, s, { name: 'game', code: 'print("REDIS-ONE")' });
  const [key] = await generateKeys(t().app, s.serviceKey);
  const fetchOn = async (app: App) =>
    (await app.inject({ method: 'GET', url: `/api/v1/vss/fetch/${script.id}?key=${key}&hwid=pc-1` })).body;
  expect(await fetchOn(second)).toBe('print("REDIS-ONE")');
  expect((await call(t().app, 'PUT', `${SCRIPTS}/${script.id}`, { key: s.serviceKey, body: { code: 'print("REDIS-TWO")' } })).status).toBe(
    200,
  );
  const until = Date.now() + 1000;
  while ((await fetchOn(second)) !== 'print("REDIS-TWO")') {
    if (Date.now() > until) throw new Error('the second instance still serves the old code after a second');
    await new Promise((resolve) => setImmediate(resolve));
  }
});
