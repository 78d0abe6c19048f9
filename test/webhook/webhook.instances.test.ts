import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../src/app.ts';
import { openDatabase, type DbHandle } from '../../src/db/database.ts';
import { startTestApp, TestClock, type TestApp } from '../helpers/app.ts';
import { call, seedService, type SeededService } from '../helpers/seed.ts';
import { LEASE_MS, runWebhookWorkerPass } from '../../src/modules/webhook/webhook.service.ts';
import { FakePlatform } from './fake-platform.ts';

// Restarts and several instances: each app here is the production app on the same database as `t`.
let platform: FakePlatform;
let t: TestApp;
const extra: Array<{ app: App; handle: DbHandle }> = [];

beforeAll(async () => {
  platform = await new FakePlatform().start();
  t = await startTestApp({ CHAT_WEBHOOK_ORIGINS: platform.origin, WEBHOOK_WORKER_INTERVAL_MS: '0' });
});
afterAll(async () => {
  for (const { app, handle } of extra) {
    await app.close();
    await handle.close();
  }
  await t.app.close();
  await t.database.drop();
  await platform.stop();
});

/** Another instance: its own connection pool (or SQLite connection) on the same database, its own clock. */
async function anotherInstance(clock: TestClock) {
  const handle = openDatabase({ databaseUrl: t.config.databaseUrl, dataDir: t.config.dataDir });
  const app = await buildApp({ config: t.config, database: handle, clock: clock.read, logger: false });
  await app.ready();
  extra.push({ app, handle });
  return app;
}

let s: SeededService;
beforeEach(async () => {
  platform.received.length = 0;
  await t.ctx.db.deleteFrom('webhookOutbox').execute();
  s = await seedService(t.ctx);
  await call(t.app, 'PUT', '/api/v1/keys/api/settings', {
    key: s.serviceKey,
    body: { webhookUrl: platform.webhookUrl(), webhookEnabled: true },
  });
});

describe('webhook outbox across restarts and instances', () => {
  it('delivers a queued message after the app that accepted it is closed and another starts on the same database', async () => {
    const clock = new TestClock();
    const first = await anotherInstance(clock);
    platform.answer({ status: 429, body: { retry_after: 4 } });
    expect((await call(first, 'POST', '/api/v1/keys/api/webhook', { key: s.serviceKey, body: { content: 'survives' } })).status).toBe(202);
    await first.close();

    const second = await anotherInstance(clock);
    expect((await runWebhookWorkerPass(second.ctx)).claimed).toBe(0);
    clock.advance(4_000);
    expect(await runWebhookWorkerPass(second.ctx)).toEqual({ claimed: 1, delivered: 1 });
    expect(platform.contents()).toEqual(['survives', 'survives']);
  });

  it('takes over a message whose claiming instance died, only once its lease has run out', async () => {
    // An instance claimed the message and vanished mid-send: the row is "sending" under its lease.
    const now = t.clock.now;
    await t.ctx.db
      .insertInto('webhookOutbox')
      .values({
        id: `${now.toString(16).padStart(12, '0')}-00000000-deadbeef`,
        serviceId: s.id,
        url: platform.webhookUrl(),
        payload: JSON.stringify({ content: 'orphan' }),
        status: 'sending',
        attempts: 0,
        nextAttemptAt: now,
        claimToken: 'dead-instance',
        leaseUntil: now + LEASE_MS,
        createdAt: now,
      })
      .execute();
    expect((await runWebhookWorkerPass(t.ctx)).claimed).toBe(0);
    t.clock.advance(LEASE_MS - 1);
    expect((await runWebhookWorkerPass(t.ctx)).claimed).toBe(0);
    t.clock.advance(2);
    expect(await runWebhookWorkerPass(t.ctx)).toEqual({ claimed: 1, delivered: 1 });
    expect(platform.contents()).toEqual(['orphan']);

    // The dead instance coming back cannot overwrite the outcome with its stale claim.
    const row = await t.ctx.db.selectFrom('webhookOutbox').selectAll().where('serviceId', '=', s.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'delivered', claimToken: null });
  });

  it('does not send a message whose claim another instance took over while this one was busy', async () => {
    platform.answer({ status: 503 });
    await call(t.app, 'POST', '/api/v1/keys/api/webhook', { key: s.serviceKey, body: { content: 'one' } });
    await call(t.app, 'POST', '/api/v1/keys/api/webhook', { key: s.serviceKey, body: { content: 'two' } });
    platform.received.length = 0;
    t.clock.advance(3_600_000);

    // This instance claims both and is held up by a slow answer to the first...
    let release!: () => void;
    platform.answer({ status: 204, gate: new Promise<void>((r) => (release = r)) });
    const pass = runWebhookWorkerPass(t.ctx);
    await platform.waitFor(1);
    // ...meanwhile another instance takes the second over (as it does once a lease has run out).
    const rows = await t.ctx.db.selectFrom('webhookOutbox').selectAll().where('serviceId', '=', s.id).orderBy('id').execute();
    expect(rows.map((r) => r.status)).toEqual(['sending', 'sending']);
    await t.ctx.db.updateTable('webhookOutbox').set({ claimToken: 'other-instance' }).where('id', '=', rows[1]!.id).execute();
    release();

    expect(await pass).toEqual({ claimed: 2, delivered: 1 });
    expect(platform.contents()).toEqual(['one']);
    const after = await t.ctx.db.selectFrom('webhookOutbox').selectAll().where('id', '=', rows[1]!.id).executeTakeFirstOrThrow();
    expect(after).toMatchObject({ status: 'sending', claimToken: 'other-instance' });
  });

  it('delivers each message exactly once when two instances run worker passes at the same time', async () => {
    const clock = new TestClock();
    clock.now = t.clock.now;
    const a = await anotherInstance(clock);
    const b = await anotherInstance(clock);
    // A 503 for the first message parks it; the rest queue behind it.
    platform.answer({ status: 503 });
    const total = 60;
    for (let i = 0; i < total; i += 1) {
      const res = await call(i % 2 ? a : b, 'POST', '/api/v1/keys/api/webhook', { key: s.serviceKey, body: { content: `m${i}` } });
      expect(res.status).toBe(202);
    }
    platform.received.length = 0;
    clock.advance(3_600_000);
    let delivered = 0;
    for (let round = 0; round < 10 && delivered < total; round += 1) {
      const [ra, rb] = await Promise.all([runWebhookWorkerPass(a.ctx), runWebhookWorkerPass(b.ctx)]);
      delivered += ra.delivered + rb.delivered;
    }
    expect(delivered).toBe(total);
    const contents = platform.contents();
    expect(contents).toHaveLength(total);
    expect(new Set(contents).size).toBe(total);
    const rows = await t.ctx.db.selectFrom('webhookOutbox').select('status').where('serviceId', '=', s.id).execute();
    expect(rows.every((r) => r.status === 'delivered')).toBe(true);
  });
});
