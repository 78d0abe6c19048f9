import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.ts';
import { anotherInstance, startTestApp, type TestApp } from '../helpers/app.ts';
import { call, generateKeys, seedService, type SeededService } from '../helpers/seed.ts';
import { SCRIPTS, uploadScript } from '../scripts/script-helpers.ts';
import { openSession, sessionsOf } from './session-helpers.ts';

/**
 * Contract §18 on one live-state implementation (the database, or Redis when `env` sets REDIS_URL), over two app
 * instances on one database, as behind a load balancer.
 */
export function sessionSuite(env: () => Record<string, string>) {
  let t: TestApp;
  let second: App;
  beforeAll(async () => {
    t = await startTestApp(env());
    second = await anotherInstance(t);
  });
  afterAll(async () => {
    await second?.close();
    await t?.app.close();
    await t?.database.drop();
  });

  const setup = async (generate: Record<string, unknown> = { expirationType: 'lifetime' }) => {
    const s = await seedService(t.ctx);
    const [key] = await generateKeys(t.app, s.serviceKey, generate);
    return { s, key: key!, api: sessionsOf(s) };
  };
  const expectEnded = async (app: App, s: SeededService, sessionId: string, reason: string) => {
    const res = await sessionsOf(s).heartbeat(app, sessionId);
    expect(res.status).toBe(410);
    expect(res.body).toMatchObject({ success: false, code: 'SESSION_ENDED', reason });
  };

  describe('open, heartbeat, end', () => {
    it('opens a session with an opaque id of at least 128 random bits, heartbeats it and ends it', async () => {
      const { s, key, api } = await setup();
      const opened = await api.open(t.app, { key, hwid: 'pc-1' });
      expect(opened.status).toBe(201);
      expect(opened.body.data).toEqual({
        sessionId: expect.any(String),
        heartbeatSeconds: 30,
        expiresAt: new Date(t.clock.now + 60_000).toISOString(),
      });
      expect(Buffer.from(opened.body.data.sessionId, 'base64url').length * 8).toBeGreaterThanOrEqual(128);
      const sessionId = opened.body.data.sessionId as string;
      t.clock.advance(20_000);
      const beat = await api.heartbeat(second, sessionId);
      expect(beat.status).toBe(200);
      expect(beat.body.data).toEqual({ alive: true, heartbeatSeconds: 30, expiresAt: new Date(t.clock.now + 60_000).toISOString() });
      const listed = await api.list(t.app);
      expect(listed.body.data.items).toEqual([
        { sessionId, key, hwid: 'pc-1', scriptId: null, startedAt: expect.any(String), lastSeenAt: expect.any(String) },
      ]);
      expect((await call(t.app, 'GET', '/api/v1/keys/api/service/status', { key: s.serviceKey })).body.data.liveSessions).toBe(1);
      // The first instance now holds the session too: the end on the second must reach it.
      expect((await api.heartbeat(t.app, sessionId)).status).toBe(200);
      expect((await api.end(second, sessionId)).body.data).toEqual({ ended: true });
      await expectEnded(t.app, s, sessionId, 'TIMED_OUT');
      expect((await call(t.app, 'GET', '/api/v1/keys/api/service/status', { key: s.serviceKey })).body.data.liveSessions).toBe(0);
    });

    it('serves the GET forms for executors that only have game:HttpGet', async () => {
      const { s, key, api } = await setup({ expirationType: 'lifetime', maxSessions: 1 });
      const opened = await api.openByGet(t.app, { key, hwid: 'pc-1' });
      expect(opened.status).toBe(201);
      const sessionId = opened.body.data.sessionId as string;
      expect((await api.heartbeatByGet(second, sessionId)).status).toBe(200);
      expect((await api.openByGet(t.app, { key, hwid: 'pc-1' })).status).toBe(409);
      expect((await api.endByGet(second, sessionId)).body.data).toEqual({ ended: true });
      expect((await api.openByGet(t.app, { key, hwid: 'pc-1' })).status).toBe(201);
      void s;
    });

    it('refuses what validation refuses, with the validation code, and opens nothing', async () => {
      const { s, key, api } = await setup();
      const wrong = await api.open(t.app, { key: 'nope', hwid: 'pc-1' });
      expect(wrong.status).toBe(403);
      expect(wrong.body).toMatchObject({ code: 'KEY_REFUSED', reason: 'KEY_INCORRECT' });
      expect((await api.open(t.app, { key })).body).toMatchObject({ code: 'KEY_REFUSED', reason: 'HWID_REQUIRED' });
      await openSession(t.app, s, { key, hwid: 'pc-1' });
      expect((await api.open(t.app, { key, hwid: 'pc-2' })).body).toMatchObject({ code: 'KEY_REFUSED', reason: 'KEY_HWID_LOCKED' });
      expect((await api.list(t.app)).body.data.total).toBe(1);
    });

    it('keeps a session alive that heartbeats only on the other instance, whichever instance opened it', async () => {
      const { s, key, api } = await setup();
      const sessionId = await openSession(t.app, s, { key, hwid: 'pc-1' });
      // 30 s periods: three heartbeats 25 s apart on the second instance, each flushed, carry it past the 60 s the
      // opening instance saw last.
      for (let i = 0; i < 3; i++) {
        t.clock.advance(25_000);
        expect((await api.heartbeat(second, sessionId)).status).toBe(200);
        await second.ctx.liveSessions.flush(t.clock.now);
      }
      expect((await api.heartbeat(t.app, sessionId)).status).toBe(200);
      t.clock.advance(61_000);
      await expectEnded(t.app, s, sessionId, 'TIMED_OUT');
    });

    it('answers an unknown session id 410 TIMED_OUT', async () => {
      const { s } = await setup();
      await expectEnded(t.app, s, 'no-such-session', 'TIMED_OUT');
    });

    it('opens a session for a keyless HWID without a key', async () => {
      const { s, api } = await setup();
      expect((await call(t.app, 'POST', '/api/v1/keys/api/keyless', { key: s.serviceKey, body: { hwid: 'kl-1' } })).status).toBe(201);
      expect((await api.open(t.app, { hwid: 'kl-1' })).status).toBe(201);
    });

    it("opens a session without a key for a free-for-all script's run, and still refuses one without a key elsewhere", async () => {
      const { s, api } = await setup();
      const free = await uploadScript(t.app, s, { name: 'free', code: 'print(1)', ffa: true, heartbeat: true });
      const opened = await api.open(t.app, { hwid: 'ffa-pc', scriptId: free.id });
      expect(opened.status, JSON.stringify(opened.body)).toBe(201);
      expect((await api.heartbeat(second, opened.body.data.sessionId)).status).toBe(200);
      const paid = await uploadScript(t.app, s, { name: 'paid', code: 'print(1)', heartbeat: true });
      expect((await api.open(t.app, { hwid: 'ffa-pc', scriptId: paid.id })).body).toMatchObject({ code: 'KEY_REFUSED' });
    });

    it('never answers 5xx, whatever the input', async () => {
      const { s, key } = await setup();
      const base = `/api/v1/public/sessions/${s.id}`;
      const tries: Array<[string, string, unknown?]> = [
        ['POST', base, [1, 2]],
        ['POST', base, 'not json'],
        ['POST', base, { key: 'x'.repeat(5000), hwid: 'pc' }],
        ['POST', base, { key, hwid: 'a\u0000b' }],
        ['POST', base, { key, hwid: 7 }],
        ['POST', base, { key, hwid: 'pc', scriptId: 'nope' }],
        ['POST', '/api/v1/public/sessions/unknown-service', { key, hwid: 'pc' }],
        ['POST', `${base}/${'x'.repeat(500)}/heartbeat`],
        ['POST', `${base}/%00/heartbeat`],
        ['GET', `${base}/%E2%82/heartbeat`],
        ['DELETE', `${base}/nope`],
        ['GET', `${base}/open?key=${key}&hwid=%01`],
        ['GET', `${base}/open?hwid[]=a`],
      ];
      for (const [method, url, body] of tries) {
        const res = await call(t.app, method as 'POST', url, body === undefined ? {} : { body });
        expect(res.status, `${method} ${url}`).toBeLessThan(500);
      }
    });
  });

  describe('limits', () => {
    it('lets exactly N of M opens racing on two instances through for a key with maxSessions N', async () => {
      const { key, api } = await setup({ expirationType: 'lifetime', maxSessions: 3, noHwidValidation: true });
      // Redeemed first, so the race is about the limit alone.
      expect((await api.open(t.app, { key, hwid: 'warm' })).status).toBe(201);
      const opens = await Promise.all(Array.from({ length: 12 }, (_, i) => api.open(i % 2 ? second : t.app, { key, hwid: `pc-${i}` })));
      const statuses = opens.map((r) => r.status).sort();
      expect(statuses.filter((x) => x === 201)).toHaveLength(2);
      expect(statuses.filter((x) => x === 409)).toHaveLength(10);
      expect(opens.find((r) => r.status === 409)!.body).toMatchObject({
        code: 'SESSION_LIMIT',
        maxSessions: 3,
        error: expect.stringMatching(
          /^This key is already running on 3 devices, its limit\. Close the script there, or wait \d+ seconds after it stopped\.$/,
        ),
      });
    });

    it('frees the place of a session that missed two heartbeats', async () => {
      const { s, key, api } = await setup({ expirationType: 'lifetime', maxSessions: 1 });
      const first = await openSession(t.app, s, { key, hwid: 'pc-1' });
      t.clock.advance(59_000);
      expect((await api.heartbeat(second, first)).status).toBe(200);
      await t.ctx.liveSessions.flush(t.clock.now);
      await second.ctx.liveSessions.flush(t.clock.now);
      t.clock.advance(59_000);
      expect((await api.open(second, { key, hwid: 'pc-1' })).status).toBe(409);
      t.clock.advance(1_001);
      expect((await api.open(second, { key, hwid: 'pc-1' })).status).toBe(201);
      await expectEnded(t.app, s, first, 'TIMED_OUT');
    });

    it('takes maxSessions on generate and both edits, and shows it on both records', async () => {
      const { s, key } = await setup({ expirationType: 'lifetime', maxSessions: 2 });
      const generated = await call(t.app, 'GET', `/api/v1/keys/api/generated-key?key=${key}`, { key: s.serviceKey });
      expect(generated.body.data.keys[0].maxSessions).toBe(2);
      const edited = await call(t.app, 'PUT', '/api/v1/keys/api/generated-key', { key: s.serviceKey, body: { key, maxSessions: 4 } });
      expect(edited.status).toBe(200);
      await openSession(t.app, s, { key, hwid: 'pc-1' });
      const active = await call(t.app, 'GET', `/api/v1/keys/api/key?key=${key}`, { key: s.serviceKey });
      expect(active.body.data.keys[0].maxSessions).toBe(4);
      const put = await call(t.app, 'PUT', '/api/v1/keys/api/key', { key: s.serviceKey, body: { key, maxSessions: 0 } });
      expect(put.body.data.maxSessions ?? put.body.data.key?.maxSessions).toBe(0);
      const bad = await call(t.app, 'PUT', '/api/v1/keys/api/key', { key: s.serviceKey, body: { key, maxSessions: 101 } });
      expect(bad.status).toBe(400);
    });

    it("counts a launch once: the loader's session open counts only a refusal, the fetch after it the valid one", async () => {
      const { s, key, api } = await setup({ expirationType: 'lifetime', noHwidValidation: true, maxSessions: 2 });
      expect((await api.open(t.app, { key, hwid: 'pc-count', ifNeeded: true })).status).toBe(201);
      expect((await api.open(t.app, { key: 'not-a-key', hwid: 'pc-count', ifNeeded: true })).status).toBe(403);
      expect((await api.open(t.app, { key, hwid: 'pc-direct' })).status).toBe(201);
      await t.ctx.analytics.flush(t.ctx.db);
      const res = await call(t.app, 'GET', '/api/v1/keys/api/analytics?interval=hour', { key: s.serviceKey });
      // The direct open (no ifNeeded) is a key check of its own; the loader's refused open ends its launch there.
      expect(res.body.data.series.at(-1)).toMatchObject({ validations: 2, valid: 1, refused: 1 });
    });

    it('keeps the most sessions live at once in the hour as peakSessions, over both instances', async () => {
      const { s, key, api } = await setup({ expirationType: 'lifetime', noHwidValidation: true });
      const ids = [];
      for (let i = 0; i < 3; i++) ids.push(await openSession(i === 1 ? second : t.app, s, { key, hwid: `pc-${i}` }));
      await api.end(t.app, ids[0]!);
      await api.end(t.app, ids[1]!);
      await openSession(second, s, { key, hwid: 'pc-late' });
      await t.ctx.analytics.flush(t.ctx.db);
      await second.ctx.analytics.flush(second.ctx.db);
      const res = await call(t.app, 'GET', '/api/v1/keys/api/analytics?interval=hour', { key: s.serviceKey });
      expect(res.body.data.series.at(-1).peakSessions).toBe(3);
    });

    it('takes sessionHeartbeatSeconds from 10 to 300 in the settings, and new sessions use it', async () => {
      const { s, key, api } = await setup();
      const url = '/api/v1/keys/api/settings';
      expect((await call(t.app, 'PUT', url, { key: s.serviceKey, body: { sessionHeartbeatSeconds: 9 } })).status).toBe(400);
      expect((await call(t.app, 'PUT', url, { key: s.serviceKey, body: { sessionHeartbeatSeconds: 301 } })).status).toBe(400);
      const ok = await call(t.app, 'PUT', url, { key: s.serviceKey, body: { sessionHeartbeatSeconds: 10 } });
      expect(ok.body.data.sessionHeartbeatSeconds).toBe(10);
      expect((await api.open(t.app, { key, hwid: 'pc-1' })).body.data.heartbeatSeconds).toBe(10);
    });
  });

  describe('ending live: the next heartbeat on the other instance answers 410 with the reason', () => {
    const running = async (generate?: Record<string, unknown>) => {
      const ctx = await setup(generate);
      const sessionId = await openSession(t.app, ctx.s, { key: ctx.key, hwid: 'pc-1' });
      // Heartbeated on the other instance first, so it holds the session when the end is made on this one.
      expect((await ctx.api.heartbeat(second, sessionId)).status).toBe(200);
      return { ...ctx, sessionId };
    };

    it('KEY_BANNED', async () => {
      const { s, key, sessionId } = await running();
      await call(t.app, 'PUT', '/api/v1/keys/api/key', { key: s.serviceKey, body: { key, status: 'banned' } });
      await expectEnded(second, s, sessionId, 'KEY_BANNED');
    });

    it('KEY_BANNED by the bulk action', async () => {
      const { s, key, sessionId } = await running();
      const res = await call(t.app, 'POST', '/api/v1/keys/api/keys/bulk', { key: s.serviceKey, body: { action: 'ban', keys: [key] } });
      expect(res.status).toBe(200);
      await expectEnded(second, s, sessionId, 'KEY_BANNED');
    });

    it('KEY_PAUSED', async () => {
      const { s, key, sessionId } = await running();
      await call(t.app, 'PUT', '/api/v1/keys/api/key', { key: s.serviceKey, body: { key, status: 'paused' } });
      await expectEnded(second, s, sessionId, 'KEY_PAUSED');
    });

    it('KEY_DELETED', async () => {
      const { s, key, sessionId } = await running();
      expect((await call(t.app, 'DELETE', `/api/v1/keys/api/key?key=${key}`, { key: s.serviceKey })).status).toBe(200);
      await expectEnded(second, s, sessionId, 'KEY_DELETED');
    });

    it('KEY_EXPIRED, and not when the key was extended first', async () => {
      const expiresAt = new Date(t.clock.now + 40_000).toISOString();
      const a = await running({ expirationType: 'byDate', expiresAt });
      const b = await running({ expirationType: 'byDate', expiresAt });
      expect(
        (await call(t.app, 'POST', '/api/v1/keys/api/key/extend-expiration', { key: b.s.serviceKey, body: { key: b.key, days: 1 } }))
          .status,
      ).toBe(200);
      t.clock.advance(30_000);
      expect((await a.api.heartbeat(second, a.sessionId)).status).toBe(200);
      t.clock.advance(15_000);
      await expectEnded(second, a.s, a.sessionId, 'KEY_EXPIRED');
      await expectEnded(t.app, a.s, a.sessionId, 'KEY_EXPIRED');
      expect((await b.api.heartbeat(second, b.sessionId)).status).toBe(200);
      expect((await b.api.heartbeat(t.app, b.sessionId)).status).toBe(200);
    });

    it('HWID_RESET', async () => {
      const { s, key, sessionId } = await running();
      expect((await call(t.app, 'POST', '/api/v1/keys/reset-hwid', { key: s.serviceKey, body: { key } })).status).toBe(200);
      await expectEnded(second, s, sessionId, 'HWID_RESET');
    });

    it('HWID_BLACKLISTED', async () => {
      const { s, sessionId } = await running();
      expect((await call(t.app, 'POST', '/api/v1/keys/api/blacklist', { key: s.serviceKey, body: { hwid: 'pc-1' } })).status).toBe(201);
      await expectEnded(second, s, sessionId, 'HWID_BLACKLISTED');
    });

    it('SCRIPT_DISABLED', async () => {
      const { s, key, api } = await setup();
      const script = await uploadScript(t.app, s, { name: 'main', code: 'print(1)', heartbeat: true });
      expect(script).toMatchObject({ heartbeat: true });
      const sessionId = await openSession(t.app, s, { key, hwid: 'pc-1', scriptId: script.id });
      expect((await api.list(t.app, { scriptId: script.id })).body.data.total).toBe(1);
      expect((await call(t.app, 'PUT', `${SCRIPTS}/${script.id}`, { key: s.serviceKey, body: { enabled: false } })).status).toBe(200);
      await expectEnded(second, s, sessionId, 'SCRIPT_DISABLED');
      expect((await api.open(t.app, { key, hwid: 'pc-1', scriptId: script.id })).body).toMatchObject({
        code: 'KEY_REFUSED',
        reason: 'SCRIPT_DISABLED',
      });
    });

    it('KILLED, by key or by session id', async () => {
      const { s, key, sessionId, api } = await running();
      const other = await openSession(t.app, s, { key, hwid: 'pc-1' });
      expect((await api.kill(t.app, { sessionId })).body.data).toEqual({ ended: 1 });
      await expectEnded(second, s, sessionId, 'KILLED');
      expect((await api.heartbeat(second, other)).status).toBe(200);
      expect((await api.kill(t.app, { key })).body.data).toEqual({ ended: 1 });
      await expectEnded(second, s, other, 'KILLED');
      expect((await api.kill(t.app, {})).status).toBe(400);
    });

    it("does not end another service's sessions", async () => {
      const a = await running();
      const b = await setup();
      expect((await b.api.kill(t.app, { sessionId: a.sessionId })).body.data).toEqual({ ended: 0 });
      expect((await a.api.heartbeat(second, a.sessionId)).status).toBe(200);
      await expectEnded(second, b.s, a.sessionId, 'TIMED_OUT');
    });
  });
}
