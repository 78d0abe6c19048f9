import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { call, seedService, type SeededService } from '../helpers/seed.ts';
import { MAX_ATTEMPTS, runWebhookWorkerPass } from '../../src/modules/webhook/webhook.service.ts';
import { FakePlatform } from './fake-platform.ts';

let platform: FakePlatform;
let t: TestApp;

beforeAll(async () => {
  platform = await new FakePlatform().start();
  t = await startTestApp({ CHAT_WEBHOOK_ORIGINS: platform.origin, WEBHOOK_WORKER_INTERVAL_MS: '0' });
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
});

const enable = (body: Record<string, unknown> = { webhookUrl: platform.webhookUrl(), webhookEnabled: true }) =>
  call(t.app, 'PUT', '/api/v1/keys/api/settings', { key: s.serviceKey, body });
const post = (body: unknown, key = s.serviceKey) => call(t.app, 'POST', '/api/v1/keys/api/webhook', { key, body });
const outbox = () => t.ctx.db.selectFrom('webhookOutbox').selectAll().where('serviceId', '=', s.id).orderBy('id').execute();

describe('POST /api/v1/keys/api/webhook refusals', () => {
  it('answers 502 WEBHOOK_DELIVERY_FAILED when the platform refuses with a 4xx, and never retries it', async () => {
    await enable();
    platform.answer({ status: 404, body: { message: 'Unknown Webhook', code: 10015 } });
    const res = await post({ content: 'lost' });
    expect(res.status).toBe(502);
    expect(res.body).toMatchObject({ success: false, code: 'WEBHOOK_DELIVERY_FAILED' });
    expect((await outbox())[0]).toMatchObject({ status: 'failed', attempts: 1, lastError: 'HTTP 404' });
    t.clock.advance(86_400_000);
    expect((await runWebhookWorkerPass(t.ctx)).claimed).toBe(0);
    expect(platform.received).toHaveLength(1);
  });

  it('answers 409 WEBHOOK_DISABLED when no webhook is set', async () => {
    const res = await post({ content: 'x' });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ success: false, code: 'WEBHOOK_DISABLED' });
    expect(await outbox()).toHaveLength(0);
  });

  it('answers 409 WEBHOOK_DISABLED when a webhook is set but switched off', async () => {
    await enable({ webhookUrl: platform.webhookUrl(), webhookEnabled: false });
    const res = await post({ content: 'x' });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('WEBHOOK_DISABLED');
    expect(platform.received).toHaveLength(0);
  });

  it('answers 409 WEBHOOK_DISABLED when switched on without a URL', async () => {
    await enable({ webhookEnabled: true });
    expect((await post({ content: 'x' })).body.code).toBe('WEBHOOK_DISABLED');
  });

  it.each([
    ['a missing content', {}, 'content'],
    ['an empty content', { content: '' }, 'content'],
    ['a content over 2000 characters', { content: 'x'.repeat(2001) }, 'content'],
    ['a content that is not a string', { content: 5 }, 'content'],
    ['an empty username', { content: 'x', username: '' }, 'username'],
    ['a username over 80 characters', { content: 'x', username: 'u'.repeat(81) }, 'username'],
    ['a username that is not a string', { content: 'x', username: ['a'] }, 'username'],
    ['an unknown field', { content: 'x', embeds: [] }, 'embeds'],
  ])('refuses %s with 400 naming the field', async (_label, body, field) => {
    await enable();
    const res = await post(body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR', field });
    expect(platform.received).toHaveLength(0);
    expect(await outbox()).toHaveLength(0);
  });

  it('refuses a body that is not an object', async () => {
    await enable();
    expect((await post([{ content: 'x' }])).status).toBe(400);
    expect((await post('{"content":')).status).toBe(400);
  });

  it('accepts exactly 2000 characters of content and an 80-character username', async () => {
    await enable();
    const res = await post({ content: 'y'.repeat(2000), username: 'u'.repeat(80) });
    expect(res.status).toBe(200);
    expect(platform.received).toHaveLength(1);
  });

  it('gives up after the attempt limit on a platform that keeps failing, and marks the message failed', async () => {
    await enable();
    platform.answer(...Array.from({ length: MAX_ATTEMPTS }, () => ({ status: 500 })));
    expect((await post({ content: 'doomed' })).status).toBe(202);
    for (let i = 1; i < MAX_ATTEMPTS; i += 1) {
      t.clock.advance(3_600_000);
      await runWebhookWorkerPass(t.ctx);
    }
    expect(platform.received).toHaveLength(MAX_ATTEMPTS);
    expect((await outbox())[0]).toMatchObject({ status: 'failed', attempts: MAX_ATTEMPTS, lastError: 'HTTP 500' });
    t.clock.advance(3_600_000);
    expect((await runWebhookWorkerPass(t.ctx)).claimed).toBe(0);
    expect(platform.received).toHaveLength(MAX_ATTEMPTS);
  });

  it('treats a 429 without any retry hint as a transient failure with backoff', async () => {
    await enable();
    platform.answer({ status: 429, body: 'slow down' });
    expect((await post({ content: 'x' })).status).toBe(202);
    const row = (await outbox())[0]!;
    expect(row).toMatchObject({ status: 'pending', attempts: 1 });
    expect(row.nextAttemptAt).toBeGreaterThan(t.clock.now);
  });
});

describe('POST /api/v1/keys/api/webhook security', () => {
  it('refuses a call without a key', async () => {
    const res = await call(t.app, 'POST', '/api/v1/keys/api/webhook', { body: { content: 'x' } });
    expect(res.status).toBe(401);
  });

  it('refuses a service key without allowManageKeys with the contract sentence', async () => {
    await enable();
    await t.ctx.db.updateTable('services').set({ allowManageKeys: 0 }).where('id', '=', s.id).execute();
    const res = await post({ content: 'x' });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'PERMISSION_DENIED', error: 'This API key is not permitted for this action (allowManageKeys)' });
    expect(platform.received).toHaveLength(0);
  });

  it('lets the owner post with the account key and X-Service-Id', async () => {
    await enable();
    const res = await call(t.app, 'POST', '/api/v1/keys/api/webhook', {
      key: s.account.accountKey,
      headers: { 'x-service-id': s.identifier },
      body: { content: 'owner' },
    });
    expect(res.status).toBe(200);
  });

  it("answers 404 for another account's service on the owner reveal", async () => {
    await enable();
    const stranger = await seedService(t.ctx);
    const res = await call(t.app, 'GET', `/api/v1/services/${s.id}/webhook`, { key: stranger.account.accountKey });
    expect(res.status).toBe(404);
    expect(JSON.stringify(res.body)).not.toContain('tok_en-1');
  });

  it('refuses the owner reveal to a service key', async () => {
    const res = await call(t.app, 'GET', `/api/v1/services/${s.id}/webhook`, { key: s.serviceKey });
    expect(res.status).toBe(401);
  });
});
