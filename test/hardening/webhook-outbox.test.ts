import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { webhookDeliveryJob } from '../../src/modules/webhook/webhook.job.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { call, seedService } from '../helpers/seed.ts';
import { MAX_ATTEMPTS, runWebhookWorkerPass, type GivenUp } from '../../src/modules/webhook/webhook.service.ts';
import { FakePlatform } from '../webhook/fake-platform.ts';

/** Issue 8: failed webhook deliveries were invisible; the outbox is listed, paged, with status and last error, never the token. */
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

describe('GET /keys/api/webhook/outbox', () => {
  it('lists messages newest first with status and last error, filters by status, and never shows the token', async () => {
    const s = await seedService(t.ctx);
    const token = 'OuTbOx-ToKeN_31';
    await call(t.app, 'PUT', '/api/v1/keys/api/settings', {
      key: s.serviceKey,
      body: { webhookUrl: `${platform.origin}/api/webhooks/123456789012345678/${token}`, webhookEnabled: true },
    });
    expect((await call(t.app, 'POST', '/api/v1/keys/api/webhook', { key: s.serviceKey, body: { content: 'one' } })).status).toBe(200);
    platform.answer({ status: 404, body: { message: 'Unknown Webhook' } });
    expect((await call(t.app, 'POST', '/api/v1/keys/api/webhook', { key: s.serviceKey, body: { content: 'two' } })).status).toBe(502);

    const all = await call(t.app, 'GET', '/api/v1/keys/api/webhook/outbox', { key: s.serviceKey });
    expect(all.status).toBe(200);
    expect(all.body.data).toMatchObject({ page: 1, limit: 20, total: 2, totalPages: 1 });
    expect(all.body.data.items.map((m: { status: string }) => m.status)).toEqual(['failed', 'delivered']);
    expect(all.body.data.items[0]).toMatchObject({ attempts: 1, nextAttemptAt: null });
    expect(all.body.data.items[0].lastError).toEqual(expect.any(String));
    expect(all.body.data.items[1]).toMatchObject({ lastError: null, deliveredAt: expect.any(String) });
    expect(JSON.stringify(all.body)).not.toContain(token);

    const failed = await call(t.app, 'GET', '/api/v1/keys/api/webhook/outbox?status=failed&limit=1', { key: s.serviceKey });
    expect(failed.body.data).toMatchObject({ total: 1, limit: 1 });
    const other = await seedService(t.ctx);
    expect((await call(t.app, 'GET', '/api/v1/keys/api/webhook/outbox', { key: other.serviceKey })).body.data.total).toBe(0);
  });

  it.each([
    ['status=gone', 'status'],
    ['limit=0100', 'limit'],
    ['url=x', 'url'],
  ])('refuses %s naming the field', async (query, field) => {
    const s = await seedService(t.ctx);
    const res = await call(t.app, 'GET', `/api/v1/keys/api/webhook/outbox?${query}`, { key: s.serviceKey });
    expect(res.status).toBe(400);
    expect(res.body.field).toBe(field);
  });

  it('reports each message the worker gives up, for the warning log, and nothing else', async () => {
    const s = await seedService(t.ctx);
    await call(t.app, 'PUT', '/api/v1/keys/api/settings', {
      key: s.serviceKey,
      body: { webhookUrl: platform.webhookUrl(), webhookEnabled: true },
    });
    platform.answer({ status: 500 });
    expect((await call(t.app, 'POST', '/api/v1/keys/api/webhook', { key: s.serviceKey, body: { content: 'doomed' } })).status).toBe(202);
    await t.ctx.db
      .updateTable('webhookOutbox')
      .set({ attempts: MAX_ATTEMPTS - 1 })
      .where('serviceId', '=', s.id)
      .execute();
    t.clock.advance(3_600_000);
    platform.answer({ status: 503 });
    const given: GivenUp[] = [];
    expect(await runWebhookWorkerPass(t.ctx, (message) => given.push(message))).toEqual({ claimed: 1, delivered: 0 });
    expect(given).toEqual([{ id: expect.any(String), serviceId: s.id, lastError: 'HTTP 503' }]);
    const row = await t.ctx.db.selectFrom('webhookOutbox').selectAll().where('id', '=', given[0]!.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'failed', attempts: MAX_ATTEMPTS });
    // A pass with nothing due reports nothing.
    expect(await runWebhookWorkerPass(t.ctx, (message) => given.push(message))).toEqual({ claimed: 0, delivered: 0 });
    expect(given).toHaveLength(1);
  });

  it('logs a warning naming the message, its service and the last error when the delivery job gives one up', async () => {
    // An instance over the same database and clock whose log is captured: the job logs through its context.
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const logged = await buildApp({
      config: t.config,
      database: t.database.handle,
      clock: t.clock.read,
      logger: { level: 'info', stream },
    });
    try {
      const s = await seedService(t.ctx);
      const token = 'GiVeN-uP_ToKeN_42';
      await call(t.app, 'PUT', '/api/v1/keys/api/settings', {
        key: s.serviceKey,
        body: { webhookUrl: `${platform.origin}/api/webhooks/123456789012345678/${token}`, webhookEnabled: true },
      });
      platform.answer({ status: 500 });
      expect((await call(t.app, 'POST', '/api/v1/keys/api/webhook', { key: s.serviceKey, body: { content: 'doomed' } })).status).toBe(202);
      await t.ctx.db
        .updateTable('webhookOutbox')
        .set({ attempts: MAX_ATTEMPTS - 1 })
        .where('serviceId', '=', s.id)
        .execute();
      t.clock.advance(3_600_000);
      platform.answer({ status: 503 });

      await webhookDeliveryJob.run(logged.ctx, new AbortController().signal);
      const row = await t.ctx.db
        .selectFrom('webhookOutbox')
        .select(['id', 'status'])
        .where('serviceId', '=', s.id)
        .executeTakeFirstOrThrow();
      expect(row.status).toBe('failed');
      const warnings = lines
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((entry) => entry.msg === 'webhook message given up');
      expect(warnings).toEqual([expect.objectContaining({ level: 40, messageId: row.id, serviceId: s.id, lastError: 'HTTP 503' })]);
      expect(lines.join('')).not.toContain(token);
    } finally {
      await logged.close();
    }
  });
});
