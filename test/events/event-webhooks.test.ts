import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { call, generateKeys, seedService, type SeededService } from '../helpers/seed.ts';
import { runOutboxPass } from '../../src/modules/webhook/outbox.service.ts';
import { eventSender } from '../../src/modules/events/events.service.ts';
import { FakePlatform as FakeReceiver, type Received as ReceivedRequest } from '../webhook/fake-platform.ts';

// Contract §12.4 against a receiver on loopback (EVENT_WEBHOOK_ORIGINS lets http://127.0.0.1 through, for tests only).
let receiver: FakeReceiver;
let t: TestApp;
beforeAll(async () => {
  receiver = await new FakeReceiver().start();
  t = await startTestApp({ EVENT_WEBHOOK_ORIGINS: receiver.origin, WEBHOOK_WORKER_INTERVAL_MS: '0' });
});
afterAll(async () => {
  await t.app.close();
  await t.database.drop();
  await receiver.stop();
});

const URL = '/api/v1/keys/api/event-endpoints';
let s: SeededService;
beforeEach(async () => {
  receiver.reset();
  s = await seedService(t.ctx);
});

const addEndpoint = (events: string[] = ['*'], service = s, url = `${receiver.origin}/hook`) =>
  call(t.app, 'POST', URL, { key: service.serviceKey, body: { url, events } });

async function deliver() {
  for (;;) {
    await t.ctx.jobs.settled();
    const { claimed } = await runOutboxPass(t.ctx, eventSender);
    if (claimed === 0) break;
  }
  await t.ctx.jobs.settled();
}

/** Standard Webhooks verification written here from the specification, with node:crypto, not the code under test. */
function verify(secret: string, request: ReceivedRequest): boolean {
  const id = request.headers['webhook-id'] as string;
  const timestamp = request.headers['webhook-timestamp'] as string;
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${request.raw}`).digest('base64');
  return (request.headers['webhook-signature'] as string).split(' ').some((part) => part === `v1,${expected}`);
}

async function redeem(key: string, hwid = 'pc-1') {
  const v = await call(t.app, 'POST', '/api/v1/keys/validate', { body: { service: s.id, key, hwid } });
  expect(v.status).toBe(200);
}

describe('event endpoints', () => {
  it('answers the secret once and never again', async () => {
    const res = await addEndpoint(['key.redeemed', 'key.banned']);
    expect(res.status).toBe(201);
    const { id, url, events, secret } = res.body.data;
    expect(url).toBe(`${receiver.origin}/hook`);
    expect(events).toEqual(['key.redeemed', 'key.banned']);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    const list = await call(t.app, 'GET', URL, { key: s.serviceKey });
    expect(list.status).toBe(200);
    expect(list.body.data.items).toEqual([{ id, url, events, createdAt: expect.any(String) }]);
    expect(JSON.stringify(list.body)).not.toContain(secret.slice(6));
    const row = await t.ctx.db.selectFrom('eventEndpoints').select(['secretSealed']).where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.secretSealed).not.toContain(secret.slice(6));
  });

  it.each([
    ['a plain http address', { url: 'http://example.com/hook', events: ['*'] }, 'url', /https/],
    ['no address at all', { url: 'not an address', events: ['*'] }, 'url', /full address/],
    ['an empty event list', { url: 'https://example.com/hook', events: [] }, 'events', /at least one event/],
    ['an unknown event', { url: 'https://example.com/hook', events: ['key.stolen'] }, 'events', /key\.stolen/],
    ['"*" with names', { url: 'https://example.com/hook', events: ['*', 'key.banned'] }, 'events', /alone/],
    ['a missing url', { events: ['*'] }, 'url', /./],
  ])('refuses %s with a 400 naming the field', async (_what, body, field, message) => {
    const res = await call(t.app, 'POST', URL, { key: s.serviceKey, body });
    expect(res.status).toBe(400);
    expect(res.body.field).toBe(field);
    expect(res.body.error).toMatch(message);
    expect(await t.ctx.db.selectFrom('eventEndpoints').select('id').where('serviceId', '=', s.id).execute()).toEqual([]);
  });

  it("treats another account's endpoint as not found", async () => {
    const { id } = (await addEndpoint()).body.data;
    const other = await seedService(t.ctx);
    expect((await call(t.app, 'DELETE', `${URL}?id=${id}`, { key: other.serviceKey })).status).toBe(404);
    expect((await call(t.app, 'GET', `${URL}/${id}/deliveries`, { key: other.serviceKey })).status).toBe(404);
    expect((await call(t.app, 'POST', `${URL}/${id}/test`, { key: other.serviceKey })).status).toBe(404);
    expect((await call(t.app, 'GET', URL, { key: other.serviceKey })).body.data.items).toEqual([]);
    expect((await call(t.app, 'GET', URL, { key: s.serviceKey })).body.data.items).toHaveLength(1);
    expect((await call(t.app, 'DELETE', `${URL}?id=${id}`, { key: s.serviceKey })).status).toBe(200);
    expect((await call(t.app, 'GET', URL, { key: s.serviceKey })).body.data.items).toEqual([]);
  });

  it('needs allowManageKeys to add one', async () => {
    await call(t.app, 'PATCH', `/api/v1/services/${s.id}/permissions`, { key: s.account.accountKey, body: { allowManageKeys: false } });
    expect((await addEndpoint()).status).toBe(403);
  });
});

describe('event delivery', () => {
  it('signs key.redeemed so an independent check verifies it, with the key as it stands after', async () => {
    const { secret } = (await addEndpoint(['key.redeemed'])).body.data;
    const [key] = await generateKeys(t.app, s.serviceKey, { expirationType: 'lifetime', chatId: '444444444444444444' });
    await redeem(key!);
    await deliver();
    expect(receiver.received).toHaveLength(1);
    const request = receiver.received[0]!;
    expect(request.method).toBe('POST');
    expect(verify(secret, request)).toBe(true);
    expect(verify(`whsec_${Buffer.alloc(32, 1).toString('base64')}`, request)).toBe(false);
    expect(request.headers['webhook-timestamp']).toBe(String(Math.floor(t.clock.now / 1000)));
    expect(JSON.parse(request.raw)).toEqual({
      type: 'key.redeemed',
      timestamp: new Date(t.clock.now).toISOString(),
      data: { serviceId: s.id, key, hwid: 'pc-1', chatId: '444444444444444444', expiresAt: null },
    });
  });

  it('retries after a 500 with the same webhook-id, each attempt signed and logged', async () => {
    const { id, secret } = (await addEndpoint(['key.banned'])).body.data;
    const [key] = await generateKeys(t.app, s.serviceKey);
    await redeem(key!);
    receiver.answer({ status: 500 });
    expect((await call(t.app, 'PUT', '/api/v1/keys/api/key', { key: s.serviceKey, body: { key, status: 'banned' } })).status).toBe(200);
    await deliver();
    expect(receiver.received).toHaveLength(1);
    t.clock.advance(4_999);
    await deliver();
    expect(receiver.received).toHaveLength(1);
    t.clock.advance(1);
    await deliver();
    expect(receiver.received).toHaveLength(2);
    const [first, second] = receiver.received;
    expect(first!.headers['webhook-id']).toBe(second!.headers['webhook-id']);
    expect(first!.raw).toBe(second!.raw);
    expect(verify(secret, first!) && verify(secret, second!)).toBe(true);
    expect(JSON.parse(second!.raw).data).toMatchObject({ key, hwid: 'pc-1' });
    const log = await call(t.app, 'GET', `${URL}/${id}/deliveries`, { key: s.serviceKey });
    expect(log.body.data.items.map((d: { attempt: number; ok: boolean; statusCode: number }) => [d.attempt, d.ok, d.statusCode])).toEqual([
      [2, true, 204],
      [1, false, 500],
    ]);
  });

  it('keeps retrying for more than 24 hours before giving up', async () => {
    await addEndpoint(['key.deleted']);
    const [key] = await generateKeys(t.app, s.serviceKey);
    expect((await call(t.app, 'DELETE', `/api/v1/keys/api/generated-key?key=${key}`, { key: s.serviceKey })).status).toBeLessThan(300);
    const first = t.clock.now;
    for (let i = 0; i < 20; i++) receiver.answer({ status: 503 });
    let last = first;
    for (let i = 0; i < 12; i++) {
      await deliver();
      const row = await t.ctx.db
        .selectFrom('webhookOutbox')
        .select(['status', 'nextAttemptAt'])
        .where('serviceId', '=', s.id)
        .where('kind', '=', 'event')
        .executeTakeFirstOrThrow();
      if (row.status === 'failed') break;
      last = row.nextAttemptAt;
      t.clock.now = row.nextAttemptAt;
    }
    expect(receiver.received.length).toBe(8);
    expect(last - first).toBeGreaterThan(24 * 3_600_000);
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(1);
  });

  it('sends only the events an endpoint chose, and a test event on request', async () => {
    const { id, secret } = (await addEndpoint(['key.banned'])).body.data;
    const [key] = await generateKeys(t.app, s.serviceKey);
    await redeem(key!);
    await deliver();
    expect(receiver.received).toHaveLength(0);
    const sent = await call(t.app, 'POST', `${URL}/${id}/test`, { key: s.serviceKey });
    expect(sent.status).toBe(202);
    await deliver();
    expect(receiver.received).toHaveLength(1);
    expect(JSON.parse(receiver.received[0]!.raw).type).toBe('keyward.test');
    expect(receiver.received[0]!.headers['webhook-id']).toBe(sent.body.data.messageId);
    expect(verify(secret, receiver.received[0]!)).toBe(true);
  });

  it('queues nothing when the change rolls back', async () => {
    await addEndpoint(['key.banned']);
    const res = await call(t.app, 'PUT', '/api/v1/keys/api/key', { key: s.serviceKey, body: { key: 'A'.repeat(32), status: 'banned' } });
    expect(res.status).toBe(404);
    expect(await t.ctx.db.selectFrom('webhookOutbox').select('id').where('serviceId', '=', s.id).execute()).toEqual([]);
  });

  it('fires order.delivered once per order, also when the shop retries it', async () => {
    const { secret } = (await addEndpoint(['order.delivered'])).body.data;
    expect((await call(t.app, 'PUT', '/api/v1/keys/api/shop', { key: s.serviceKey, body: { genericSecret: 'shop-secret' } })).status).toBe(
      200,
    );
    const product = await call(t.app, 'POST', '/api/v1/keys/api/products', {
      key: s.serviceKey,
      body: { name: 'Month', expirationType: 'byDays', days: 30 },
    });
    expect(product.status).toBe(201);
    const body = JSON.stringify({ orderId: 'order-1', quantity: 2 });
    const signature = `sha256=${createHmac('sha256', 'shop-secret').update(body).digest('hex')}`;
    const order = () =>
      t.app.inject({
        method: 'POST',
        url: `/api/v1/public/shop/generic/${product.body.data.id}`,
        payload: body,
        headers: { 'content-type': 'application/json', 'x-keyward-signature': signature },
      });
    const first = await order();
    expect(first.statusCode).toBe(200);
    expect((await order()).body).toBe(first.body);
    await deliver();
    expect(receiver.received).toHaveLength(1);
    expect(verify(secret, receiver.received[0]!)).toBe(true);
    const event = JSON.parse(receiver.received[0]!.raw);
    expect(event.type).toBe('order.delivered');
    expect(event.data).toMatchObject({ serviceId: s.id, orderId: 'order-1', quantity: 2, keys: first.body.trim().split('\n') });
  });

  it('never sends to a private address, and says so in the delivery log', async () => {
    const { id } = (await addEndpoint(['*'], s, 'https://127.0.0.1:1/hook')).body.data;
    expect((await call(t.app, 'POST', `${URL}/${id}/test`, { key: s.serviceKey })).status).toBe(202);
    await deliver();
    const log = await call(t.app, 'GET', `${URL}/${id}/deliveries`, { key: s.serviceKey });
    expect(log.body.data.items).toHaveLength(1);
    expect(log.body.data.items[0]).toMatchObject({ ok: false, statusCode: null });
    expect(log.body.data.items[0].error).toMatch(/^refused: .*non-public address/);
    const row = await t.ctx.db.selectFrom('webhookOutbox').select(['status']).where('serviceId', '=', s.id).executeTakeFirstOrThrow();
    expect(row.status).toBe('failed');
  });
});
