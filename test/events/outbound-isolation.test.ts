import http from 'node:http';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { anotherInstance, startTestApp, type TestApp } from '../helpers/app.ts';
import { call, generateKeys, seedService, type SeededService } from '../helpers/seed.ts';
import { FakePlatform } from '../webhook/fake-platform.ts';
import type { App } from '../../src/app.ts';

// Contract §22 "Deliveries and the buyer role": service A's receivers accept the connection and never answer; service
// B's event and Discord role call still leave within 5 s of the change that caused them, on one instance and on two.
const GUILD = '111111111111111111';
const ROLE = '222222222222222222';
const USER = '333333333333333333';

/** Accepts every connection and request and never answers (the sockets are destroyed at the end). */
class HangingReceiver {
  readonly sockets = new Set<Socket>();
  requests = 0;
  private readonly server = http.createServer(() => {
    this.requests += 1;
  });
  async start(): Promise<this> {
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this;
  }
  get origin() {
    const address = this.server.address() as { port: number };
    return `http://127.0.0.1:${address.port}`;
  }
  async stop() {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

let hanging: HangingReceiver;
let good: FakePlatform;
let discord: FakePlatform;
let t: TestApp;
let second: App;
beforeAll(async () => {
  hanging = await new HangingReceiver().start();
  good = await new FakePlatform().start();
  discord = await new FakePlatform().start();
  t = await startTestApp({
    EVENT_WEBHOOK_ORIGINS: `${hanging.origin},${good.origin}`,
    DISCORD_API_URL: discord.origin,
    // The production default (2 s): the changes that queue B's calls leave them to the worker's next tick.
    WEBHOOK_WORKER_INTERVAL_MS: '2000',
  });
  second = await anotherInstance(t);
});
afterAll(async () => {
  // The stuck attempts end at once when their sockets go, so closing the apps does not wait out the time limit.
  await hanging.stop();
  await second.close();
  await t.app.close();
  await t.database.drop();
  await good.stop();
  await discord.stop();
});

async function stuckService(app: App): Promise<SeededService> {
  const a = await seedService(t.ctx);
  const ids: string[] = [];
  for (let i = 0; i < 6; i += 1) {
    const res = await call(app, 'POST', '/api/v1/keys/api/event-endpoints', {
      key: a.serviceKey,
      body: { url: `${hanging.origin}/hook-${i}`, events: ['*'] },
    });
    expect(res.status).toBe(201);
    ids.push(res.body.data.id);
  }
  // Its test events, queued as fast as the API takes them, on both instances.
  for (let round = 0; round < 3; round += 1) {
    for (const id of ids) {
      for (const instance of [t.app, second]) {
        const res = await call(instance, 'POST', `/api/v1/keys/api/event-endpoints/${id}/test`, { key: a.serviceKey });
        expect(res.status).toBeLessThan(300);
      }
    }
  }
  return a;
}

async function serviceWithRoleAndEndpoint(): Promise<SeededService> {
  const b = await seedService(t.ctx);
  const settings = await call(t.app, 'PUT', '/api/v1/keys/api/settings', {
    key: b.serviceKey,
    body: { chatBotToken: 'MTAx.bot-token_for.tests-0123456789', chatRoleId: ROLE },
  });
  expect(settings.status).toBe(200);
  await t.ctx.db.updateTable('services').set({ chatGuildId: GUILD, chatGuildName: 'Shop' }).where('id', '=', b.id).execute();
  for (const ctx of [t.ctx, second.ctx]) ctx.services.forget({ id: b.id, identifier: b.identifier });
  const endpoint = await call(t.app, 'POST', '/api/v1/keys/api/event-endpoints', {
    key: b.serviceKey,
    body: { url: `${good.origin}/b-events`, events: ['key.redeemed'] },
  });
  expect(endpoint.status).toBe(201);
  return b;
}

it.each([
  ['the instance that queued the stuck calls', () => t.app],
  ['another instance over the same database', () => second],
])("one service's hanging receivers do not delay another's event and role call (%s)", async (_, instance) => {
  good.reset();
  discord.reset();
  const b = await serviceWithRoleAndEndpoint();
  await stuckService(t.app);
  // The stuck attempts are under way before B's change happens.
  await expect.poll(() => hanging.requests, { timeout: 5_000 }).toBeGreaterThan(0);

  const [key] = await generateKeys(t.app, b.serviceKey, { expirationType: 'lifetime', chatId: USER });
  const started = Date.now();
  const redeemed = await call(instance(), 'POST', '/api/v1/keys/validate', { body: { service: b.id, key, hwid: 'pc-1' } });
  expect(redeemed.body.data.code).toBe('KEY_VALID');

  await expect.poll(() => good.received.filter((r) => r.path === '/b-events').length, { timeout: 5_000, interval: 50 }).toBeGreaterThan(0);
  await expect
    .poll(() => discord.received.filter((r) => r.method === 'PUT' && r.path.includes(`/members/${USER}/roles/${ROLE}`)).length, {
      timeout: 5_000 - (Date.now() - started),
      interval: 50,
    })
    .toBeGreaterThan(0);
  expect(Date.now() - started).toBeLessThan(5_000);
  expect((good.received[0]!.body as { type: string }).type).toBe('key.redeemed');
});
