import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openWebhookUrl } from '../../src/lib/webhook-url.ts';
import { sealPlainWebhookTokens } from '../../src/modules/maintenance/prune.job.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { testDialect } from '../helpers/database.ts';
import { call, seedService } from '../helpers/seed.ts';
import { FakePlatform } from '../webhook/fake-platform.ts';

/** Contract §10: the webhook URL's token is encrypted at rest, in services and in the outbox. */
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

/** Everything the database holds on disk (SQLite file and WAL) or would hand to a backup (pg_dump). */
function rawDatabase(): string {
  if (testDialect() === 'postgres') return execFileSync('pg_dump', ['--data-only', t.database.env.DATABASE_URL!], { encoding: 'utf8' });
  const dir = t.database.env.DATA_DIR!;
  return readdirSync(dir)
    .filter((name) => name.startsWith('keyward.db'))
    .map((name) => readFileSync(join(dir, name)).toString('latin1'))
    .join('\n');
}

describe('webhook tokens at rest', () => {
  it('keeps the token out of services, the outbox and backups, and still delivers and reveals it', async () => {
    const s = await seedService(t.ctx);
    const token = 'SeCrEt-WeBhOoK-ToKeN_4f1d9a';
    const url = `${platform.origin}/api/webhooks/123456789012345678/${token}`;
    const set = await call(t.app, 'PUT', '/api/v1/keys/api/settings', {
      key: s.serviceKey,
      body: { webhookUrl: url, webhookEnabled: true },
    });
    expect(set.status).toBe(200);
    const posted = await call(t.app, 'POST', '/api/v1/keys/api/webhook', { key: s.serviceKey, body: { content: 'hello' } });
    expect(posted.body).toEqual({ success: true, data: { delivered: true } });
    expect(platform.received.at(-1)!.path).toBe(`/api/webhooks/123456789012345678/${token}`);

    const service = await t.ctx.db.selectFrom('services').select('webhookUrl').where('id', '=', s.id).executeTakeFirstOrThrow();
    const outbox = await t.ctx.db.selectFrom('webhookOutbox').select('url').where('serviceId', '=', s.id).execute();
    expect(outbox).toHaveLength(1);
    for (const stored of [service.webhookUrl!, outbox[0]!.url]) {
      expect(stored).not.toContain(token);
      expect(stored).toContain('/api/webhooks/123456789012345678/~');
    }
    expect(rawDatabase()).not.toContain(token);

    const revealed = await call(t.app, 'GET', `/api/v1/services/${s.id}/webhook`, { key: s.account.accountKey });
    expect(revealed.body.data).toEqual({ webhookUrl: url, webhookEnabled: true });
    // The settings answer shows where it points, masked.
    expect(set.body.data.webhookUrl).toBe(`${platform.origin}/api/webhooks/123456789012345678/****`);
  });

  it('reads a token stored in clear before 0006 and seals it in the maintenance job', async () => {
    const s = await seedService(t.ctx);
    const token = 'LeGaCy-ToKeN_77';
    const url = `${platform.origin}/api/webhooks/223456789012345678/${token}`;
    await t.ctx.db.updateTable('services').set({ webhookUrl: url, webhookEnabled: 1 }).where('id', '=', s.id).execute();
    expect(openWebhookUrl(t.ctx.sealer, url)).toBe(url);
    expect(await sealPlainWebhookTokens(t.ctx)).toBeGreaterThanOrEqual(1);
    const stored = await t.ctx.db.selectFrom('services').select('webhookUrl').where('id', '=', s.id).executeTakeFirstOrThrow();
    expect(stored.webhookUrl).not.toContain(token);
    expect(openWebhookUrl(t.ctx.sealer, stored.webhookUrl)).toBe(url);
    const posted = await call(t.app, 'POST', '/api/v1/keys/api/webhook', { key: s.serviceKey, body: { content: 'hi' } });
    expect(posted.body).toEqual({ success: true, data: { delivered: true } });
    expect(platform.received.at(-1)!.path).toBe(`/api/webhooks/223456789012345678/${token}`);
  });
});
