import { afterAll, beforeAll, expect, it } from 'vitest';
import type { App } from '../../src/app.ts';
import { anotherInstance, startTestApp, type TestApp } from '../helpers/app.ts';
import { call, generateKeys, seedService } from '../helpers/seed.ts';
import { FakePlatform } from '../webhook/fake-platform.ts';

// With REDIS_URL the relay's per-key budget is counted in Redis, shared by every instance.
let platform: FakePlatform;
let t: TestApp;
let second: App;
beforeAll(async () => {
  platform = await new FakePlatform().start();
  t = await startTestApp({
    CHAT_WEBHOOK_ORIGINS: platform.origin,
    WEBHOOK_WORKER_INTERVAL_MS: '0',
    REDIS_URL: process.env.KEYWARD_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
  });
  second = await anotherInstance(t);
});
afterAll(async () => {
  await second?.close();
  await t.app.close();
  await t.database.drop();
  await platform.stop();
});

it('allows 10 relayed messages a minute per key over all instances, counted in Redis', async () => {
  const s = await seedService(t.ctx);
  await call(t.app, 'PUT', '/api/v1/keys/api/settings', {
    key: s.serviceKey,
    body: { webhookUrl: platform.webhookUrl(), webhookEnabled: true },
  });
  const [key] = await generateKeys(t.app, s.serviceKey);
  t.clock.now = Math.ceil(t.clock.now / 60_000) * 60_000;
  const relay = (app: App, content: string) => call(app, 'POST', `/api/v1/public/relay/${s.id}`, { body: { key, hwid: 'pc-1', content } });
  for (let i = 0; i < 10; i++) expect((await relay(i < 5 ? t.app : second, `m${i}`)).status).toBe(200);
  expect((await relay(t.app, 'over')).status).toBe(429);
  expect((await relay(second, 'over')).status).toBe(429);
  expect(platform.received).toHaveLength(10);
  expect(await t.ctx.db.selectFrom('relayWindows').select('count').where('serviceId', '=', s.id).execute()).toEqual([]);
});
