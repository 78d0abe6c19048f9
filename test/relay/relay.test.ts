import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.ts';
import { digest } from '../../src/lib/secrets.ts';
import { anotherInstance, startTestApp, type TestApp } from '../helpers/app.ts';
import { call, generateKeys, seedService, type SeededService } from '../helpers/seed.ts';
import { uploadScript } from '../scripts/script-helpers.ts';
import { FakePlatform } from '../webhook/fake-platform.ts';

let platform: FakePlatform;
let t: TestApp;
let second: App;

beforeAll(async () => {
  platform = await new FakePlatform().start();
  t = await startTestApp({ CHAT_WEBHOOK_ORIGINS: platform.origin, WEBHOOK_WORKER_INTERVAL_MS: '0' });
  second = await anotherInstance(t);
});
afterAll(async () => {
  await second?.close();
  await t.app.close();
  await t.database.drop();
  await platform.stop();
});

let s: SeededService;
let key: string;
beforeEach(async () => {
  platform.received.length = 0;
  s = await seedService(t.ctx);
  const res = await call(t.app, 'PUT', '/api/v1/keys/api/settings', {
    key: s.serviceKey,
    body: { webhookUrl: platform.webhookUrl('223456789012345678', 'secret-token_9'), webhookEnabled: true },
  });
  expect(res.status).toBe(200);
  key = (await generateKeys(t.app, s.serviceKey))[0]!;
  // Bound to pc-1 by a first check, as a buyer's script would be.
  expect((await call(t.app, 'GET', `/api/v1/keys/validate?service=${s.id}&key=${key}&hwid=pc-1`)).body.data.valid).toBe(true);
});

const relay = (body: unknown, app: App = t.app, service = s.identifier) => call(app, 'POST', `/api/v1/public/relay/${service}`, { body });

describe('POST /api/v1/public/relay/:service', () => {
  it('posts a valid key’s message to the seller webhook with mentions disabled, and never shows the address', async () => {
    const res = await relay({ key, hwid: 'pc-1', content: '@everyone player joined <@123>', username: 'Game bot' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, data: { delivered: true } });
    expect(JSON.stringify(res.body)).not.toContain('secret-token_9');
    expect(JSON.stringify(res.body)).not.toContain('223456789012345678');
    expect(platform.received).toHaveLength(1);
    expect(platform.received[0]!.path).toBe('/api/webhooks/223456789012345678/secret-token_9');
    expect(platform.received[0]!.body).toEqual({
      content: '@everyone player joined <@123>',
      username: 'Game bot',
      allowed_mentions: { parse: [] },
    });
  });

  it('refuses a key whose verdict is not valid with 403 KEY_REFUSED and the code, posting nothing', async () => {
    const [paused] = await generateKeys(t.app, s.serviceKey);
    await call(t.app, 'GET', `/api/v1/keys/validate?service=${s.id}&key=${paused}&hwid=pc-9`);
    await call(t.app, 'PUT', '/api/v1/keys/api/key', { key: s.serviceKey, body: { key: paused, status: 'paused' } });
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ key, hwid: 'another-pc' }, 'KEY_HWID_LOCKED'],
      [{ key: 'wrong-key-123', hwid: 'pc-1' }, 'KEY_INCORRECT'],
      [{ key: paused, hwid: 'pc-9' }, 'KEY_PAUSED'],
      [{ key }, 'HWID_REQUIRED'],
    ];
    for (const [fields, reason] of cases) {
      const res = await relay({ ...fields, content: 'hi' });
      expect(res.status, reason).toBe(403);
      expect(res.body).toMatchObject({ success: false, code: 'KEY_REFUSED', reason });
    }
    expect(platform.received).toHaveLength(0);
    const outbox = await t.ctx.db.selectFrom('webhookOutbox').select('id').where('serviceId', '=', s.id).execute();
    expect(outbox).toEqual([]);
  });

  it('answers 409 WEBHOOK_DISABLED while the webhook is off, posting nothing', async () => {
    await call(t.app, 'PUT', '/api/v1/keys/api/settings', { key: s.serviceKey, body: { webhookEnabled: false } });
    const res = await relay({ key, hwid: 'pc-1', content: 'hi' });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('WEBHOOK_DISABLED');
    expect(JSON.stringify(res.body)).not.toContain('secret-token_9');
    expect(platform.received).toHaveLength(0);
  });

  it('allows 10 messages a minute per key across instances, then 429 with Retry-After; the next minute is open again', async () => {
    // Start of a minute, so the window cannot end in the middle of the test.
    t.clock.now = Math.ceil(t.clock.now / 60_000) * 60_000;
    for (let i = 0; i < 10; i++) {
      const res = await relay({ key, hwid: 'pc-1', content: `m${i}` }, i % 2 === 0 ? t.app : second);
      expect(res.status, `message ${i}`).toBe(200);
    }
    for (const app of [t.app, second]) {
      const over = await relay({ key, hwid: 'pc-1', content: 'too many' }, app);
      expect(over.status).toBe(429);
      expect(over.body.code).toBe('RATE_LIMITED');
      expect(Number(over.headers['retry-after'])).toBe(60);
    }
    expect(platform.contents()).toEqual(['m0', 'm1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7', 'm8', 'm9']);
    // Another key of the same service has its own budget.
    const [other] = await generateKeys(t.app, s.serviceKey);
    expect((await relay({ key: other, hwid: 'pc-2', content: 'other key' })).status).toBe(200);
    t.clock.advance(60_000);
    expect((await relay({ key, hwid: 'pc-1', content: 'next minute' })).status).toBe(200);
    // The key's ended window is deleted as it comes back; only the current one is kept.
    const windows = await t.ctx.db
      .selectFrom('relayWindows')
      .select(['windowStart', 'count'])
      .where('serviceId', '=', s.id)
      .where('keyDigest', '=', digest(key))
      .execute();
    expect(windows.map((w) => [Number(w.windowStart), Number(w.count)])).toEqual([[t.clock.now, 1]]);
  });

  it('refuses bad input with 400 naming the field, and an unknown service with 404', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ key, hwid: 'pc-1', content: '' }, 'content'],
      [{ key, hwid: 'pc-1', content: 'x'.repeat(2001) }, 'content'],
      [{ key, hwid: 'pc-1', content: 'ok', username: '' }, 'username'],
      [{ key, hwid: 'pc-1', content: 'ok', username: 'u'.repeat(81) }, 'username'],
      [{ key, hwid: 'pc-1', content: 5 }, 'content'],
      [{ hwid: 'pc-1', content: 'ok' }, 'key'],
    ];
    for (const [body, field] of cases) {
      const res = await relay(body);
      expect(res.status, JSON.stringify(body).slice(0, 60)).toBe(400);
      expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', field });
    }
    expect((await relay({ key, hwid: 'pc-1', content: 'ok' }, t.app, 'no-such-service')).status).toBe(404);
    expect(platform.received).toHaveLength(0);
  });

  it("does not relay a key of another service through this one's name", async () => {
    const other = await seedService(t.ctx);
    const [foreign] = await generateKeys(t.app, other.serviceKey);
    const res = await relay({ key: foreign, hwid: 'pc-1', content: 'hi' });
    expect(res.status).toBe(403);
    expect(res.body.reason).toBe('KEY_INCORRECT');
    expect(platform.received).toHaveLength(0);
  });

  it('is also reachable by script id (what api.send_webhook() calls)', async () => {
    const script = await uploadScript(t.app, s, { name: 'relay-game', code: 'print(1)' });
    const res = await call(t.app, 'POST', `/api/v1/lua/relay/${script.id}`, { body: { key, hwid: 'pc-1', content: 'from lua' } });
    expect(res.status).toBe(200);
    expect(platform.contents()).toEqual(['from lua']);
    const unknown = await call(t.app, 'POST', '/api/v1/lua/relay/00000000-0000-4000-8000-000000000000', {
      body: { key, hwid: 'pc-1', content: 'x' },
    });
    expect(unknown.status).toBe(404);
  });
});
