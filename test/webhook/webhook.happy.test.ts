import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { call, seedService, type SeededService } from '../helpers/seed.ts';
import { runWebhookWorkerPass } from '../../src/modules/webhook/webhook.service.ts';
import { FakePlatform } from './fake-platform.ts';

let platform: FakePlatform;
let t: TestApp;
let deadOrigin: string;

beforeAll(async () => {
  platform = await new FakePlatform().start();
  // An allowed origin with nothing listening: connecting to it fails below HTTP.
  const dead = await new FakePlatform().start();
  deadOrigin = dead.origin;
  await dead.stop();
  t = await startTestApp({ CHAT_WEBHOOK_ORIGINS: `${platform.origin},${deadOrigin}`, WEBHOOK_WORKER_INTERVAL_MS: '0' });
});
afterAll(async () => {
  await t.app.close();
  await t.database.drop();
  await platform.stop();
});

let s: SeededService;
beforeEach(async () => {
  platform.received.length = 0;
  await t.ctx.db.deleteFrom('webhookOutbox').execute();
  s = await seedService(t.ctx);
  const res = await call(t.app, 'PUT', '/api/v1/keys/api/settings', {
    key: s.serviceKey,
    body: { webhookUrl: platform.webhookUrl(), webhookEnabled: true },
  });
  expect(res.status).toBe(200);
});

const post = (body: unknown) => call(t.app, 'POST', '/api/v1/keys/api/webhook', { key: s.serviceKey, body });
const outbox = () => t.ctx.db.selectFrom('webhookOutbox').selectAll().where('serviceId', '=', s.id).orderBy('id').execute();

describe('POST /api/v1/keys/api/webhook', () => {
  it('delivers a message once and answers 200 delivered', async () => {
    const res = await post({ content: 'hello', username: 'Keyward' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { delivered: true } });
    expect(platform.received).toHaveLength(1);
    expect(platform.received[0]!.path).toBe('/api/webhooks/123456789012345678/tok_en-1');
    expect(platform.received[0]!.body).toEqual({ content: 'hello', username: 'Keyward' });
    expect(platform.received[0]!.headers['content-type']).toBe('application/json');

    const rows = await outbox();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: 'delivered', attempts: 1, deliveredAt: t.clock.now, claimToken: null });
    // A later worker pass finds nothing to send again.
    await runWebhookWorkerPass(t.ctx);
    expect(platform.received).toHaveLength(1);
  });

  it('honours a 429 retry_after in seconds: queued, not sent before the wait, then sent exactly once', async () => {
    platform.answer({
      status: 429,
      headers: { 'retry-after': '3' },
      body: { message: 'You are being rate limited.', retry_after: 2.5, global: false },
    });
    const res = await post({ content: 'paced' });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ success: true, data: { delivered: false, queued: true } });
    expect(platform.received).toHaveLength(1);

    t.clock.advance(2_999);
    expect((await runWebhookWorkerPass(t.ctx)).claimed).toBe(0);
    expect(platform.received).toHaveLength(1);

    t.clock.advance(1);
    expect(await runWebhookWorkerPass(t.ctx)).toEqual({ claimed: 1, delivered: 1 });
    expect(platform.received).toHaveLength(2);
    expect(platform.contents()).toEqual(['paced', 'paced']);

    t.clock.advance(3_600_000);
    await runWebhookWorkerPass(t.ctx);
    expect(platform.received).toHaveLength(2);
    expect((await outbox())[0]).toMatchObject({ status: 'delivered' });
  });

  it('reads an old-style retry_after of whole milliseconds as milliseconds', async () => {
    platform.answer({ status: 429, body: { retry_after: 1500 } });
    expect((await post({ content: 'ms' })).status).toBe(202);
    t.clock.advance(1_499);
    await runWebhookWorkerPass(t.ctx);
    expect(platform.received).toHaveLength(1);
    t.clock.advance(1);
    await runWebhookWorkerPass(t.ctx);
    expect(platform.received).toHaveLength(2);
  });

  it('queues a new message behind a rate-limited one instead of overtaking the wait', async () => {
    platform.answer({ status: 429, body: { retry_after: 10 } });
    expect((await post({ content: 'first' })).status).toBe(202);
    const second = await post({ content: 'second' });
    expect(second.status).toBe(202);
    expect(second.body.data).toEqual({ delivered: false, queued: true });
    expect(platform.received).toHaveLength(1);

    t.clock.advance(10_000);
    expect(await runWebhookWorkerPass(t.ctx)).toEqual({ claimed: 2, delivered: 2 });
    expect(platform.contents()).toEqual(['first', 'first', 'second']);
  });

  it('stops a pass at a 429 and keeps the rest of that webhook waiting', async () => {
    platform.answer({ status: 500 });
    expect((await post({ content: 'a' })).status).toBe(202);
    expect((await post({ content: 'b' })).status).toBe(202);
    t.clock.advance(3_600_000);
    platform.answer({ status: 429, body: { retry_after: 30 } });
    expect(await runWebhookWorkerPass(t.ctx)).toEqual({ claimed: 2, delivered: 0 });
    // 'a' got the 429; 'b' was handed back without being sent.
    expect(platform.contents()).toEqual(['a', 'a']);
    const rows = await outbox();
    expect(rows.map((r) => [r.status, r.nextAttemptAt >= t.clock.now + 30_000])).toEqual([
      ['pending', true],
      ['pending', true],
    ]);
    t.clock.advance(30_000);
    expect(await runWebhookWorkerPass(t.ctx)).toEqual({ claimed: 2, delivered: 2 });
    expect(platform.contents()).toEqual(['a', 'a', 'a', 'b']);
  });

  it('retries 5xx answers with growing backoff and delivers on the fourth attempt', async () => {
    platform.answer({ status: 500 }, { status: 502 }, { status: 503 });
    expect((await post({ content: 'eventually' })).status).toBe(202);
    let row = (await outbox())[0]!;
    expect(row).toMatchObject({ status: 'pending', attempts: 1, lastError: 'HTTP 500' });
    const firstWait = row.nextAttemptAt - t.clock.now;
    expect(firstWait).toBeGreaterThanOrEqual(1_000);
    expect(firstWait).toBeLessThanOrEqual(2_000);

    // Nothing goes out before the backoff is over.
    t.clock.advance(firstWait - 1);
    expect((await runWebhookWorkerPass(t.ctx)).claimed).toBe(0);
    t.clock.advance(1);
    await runWebhookWorkerPass(t.ctx);
    row = (await outbox())[0]!;
    expect(row).toMatchObject({ status: 'pending', attempts: 2, lastError: 'HTTP 502' });
    const secondWait = row.nextAttemptAt - t.clock.now;
    expect(secondWait).toBeGreaterThanOrEqual(2_000);
    expect(secondWait).toBeLessThanOrEqual(4_000);

    t.clock.advance(secondWait);
    await runWebhookWorkerPass(t.ctx);
    row = (await outbox())[0]!;
    expect(row).toMatchObject({ status: 'pending', attempts: 3 });
    t.clock.advance(row.nextAttemptAt - t.clock.now);
    expect(await runWebhookWorkerPass(t.ctx)).toEqual({ claimed: 1, delivered: 1 });
    expect(platform.received).toHaveLength(4);
    expect((await outbox())[0]).toMatchObject({ status: 'delivered', attempts: 4 });
  });

  it('retries a network failure (nothing listening) like a 5xx', async () => {
    await call(t.app, 'PUT', '/api/v1/keys/api/settings', {
      key: s.serviceKey,
      body: { webhookUrl: `${deadOrigin}/api/webhooks/123456789012345678/x` },
    });
    expect((await post({ content: 'net' })).status).toBe(202);
    let row = (await outbox())[0]!;
    expect(row).toMatchObject({ status: 'pending', attempts: 1 });
    expect(row.lastError).toMatch(/ECONNREFUSED/);
    t.clock.advance(3_600_000);
    expect(await runWebhookWorkerPass(t.ctx)).toEqual({ claimed: 1, delivered: 0 });
    row = (await outbox())[0]!;
    expect(row).toMatchObject({ status: 'pending', attempts: 2 });
  });

  it('sends a queued message to the address the service has when it goes out', async () => {
    platform.answer({ status: 429, body: { retry_after: 1 } });
    expect((await post({ content: 'moved' })).status).toBe(202);
    const res = await call(t.app, 'PUT', '/api/v1/keys/api/settings', {
      key: s.serviceKey,
      body: { webhookUrl: platform.webhookUrl('223456789012345678', 'new-token') },
    });
    expect(res.status).toBe(200);
    t.clock.advance(1_000);
    expect(await runWebhookWorkerPass(t.ctx)).toEqual({ claimed: 1, delivered: 1 });
    expect(platform.received.map((r) => r.path)).toEqual([
      '/api/webhooks/123456789012345678/tok_en-1',
      '/api/webhooks/223456789012345678/new-token',
    ]);
  });

  it('drops a queued message when the webhook is switched off before it goes out', async () => {
    platform.answer({ status: 429, body: { retry_after: 1 } });
    expect((await post({ content: 'stopped' })).status).toBe(202);
    await call(t.app, 'PUT', '/api/v1/keys/api/settings', { key: s.serviceKey, body: { webhookEnabled: false } });
    t.clock.advance(1_000);
    expect(await runWebhookWorkerPass(t.ctx)).toEqual({ claimed: 1, delivered: 0 });
    expect(platform.received).toHaveLength(1);
    expect((await outbox())[0]).toMatchObject({ status: 'failed', lastError: 'the webhook was switched off or removed' });
  });

  it('runs the background worker with the app: a queued message goes out without a manual pass', async () => {
    const other = await startTestApp({ CHAT_WEBHOOK_ORIGINS: platform.origin, WEBHOOK_WORKER_INTERVAL_MS: '20' });
    try {
      const svc = await seedService(other.ctx);
      await call(other.app, 'PUT', '/api/v1/keys/api/settings', {
        key: svc.serviceKey,
        body: { webhookUrl: platform.webhookUrl(), webhookEnabled: true },
      });
      platform.answer({ status: 429, body: { retry_after: 5 } });
      const before = platform.received.length;
      expect((await call(other.app, 'POST', '/api/v1/keys/api/webhook', { key: svc.serviceKey, body: { content: 'bg' } })).status).toBe(
        202,
      );
      other.clock.advance(5_000);
      await platform.waitFor(before + 2);
      expect(platform.contents().slice(before)).toEqual(['bg', 'bg']);
    } finally {
      await other.app.close();
      await other.database.drop();
    }
  });
});

describe('GET /api/v1/services/:id/webhook (owner reveal)', () => {
  it('shows the token to the owner while settings and service info keep it masked', async () => {
    const reveal = await call(t.app, 'GET', `/api/v1/services/${s.id}/webhook`, { key: s.account.accountKey });
    expect(reveal.status).toBe(200);
    expect(reveal.body.data).toEqual({ webhookUrl: platform.webhookUrl(), webhookEnabled: true });

    const byIdentifier = await call(t.app, 'GET', `/api/v1/services/${s.identifier}/webhook`, { key: s.account.accountKey });
    expect(byIdentifier.body.data.webhookUrl).toBe(platform.webhookUrl());

    const info = await call(t.app, 'GET', '/api/v1/keys/api/service/info', { key: s.serviceKey });
    expect(info.body.data.settings.webhookUrl).toBe(`${platform.origin}/api/webhooks/123456789012345678/****`);
    expect(JSON.stringify(info.body)).not.toContain('tok_en-1');
  });
});
