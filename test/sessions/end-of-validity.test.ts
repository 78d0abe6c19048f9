// Contract §18, §27: everything that makes a key's verdict refused ends its live sessions, whichever door did it, and
// the next heartbeat on every instance answers 410 SESSION_ENDED with the reason. Each door below is one way a key's
// validity can end; a new door belongs in this list.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.ts';
import { anotherInstance, startTestApp, type TestApp } from '../helpers/app.ts';
import { call, generateKeys, seedService, type SeededService } from '../helpers/seed.ts';
import { redeem } from '../helpers/records.ts';
import { LuarmorClient } from '../luarmor/luarmor-client.ts';
import { openSession, sessionsOf } from './session-helpers.ts';

const DAY_MS = 86_400_000;

interface Door {
  name: string;
  reason: string;
  /** The key's expiry when made (else 30 days): a function of the test's clock. */
  expiresAt?: (t: TestApp) => number;
  /** Ends the key's validity through the door, on the instance given. */
  end: (ctx: { app: App; s: SeededService; key: string; t: TestApp }) => Promise<void>;
}

const ok = (res: { status: number; body: unknown }) => expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
const keyApi = (app: App, s: SeededService, method: 'PUT' | 'DELETE' | 'POST', url: string, body?: unknown) =>
  call(app, method, `/api/v1${url}`, { key: s.serviceKey, body });
const luarmor = (app: App, s: SeededService) => new LuarmorClient(() => app, s.serviceKey);
/** A new expiry 20 s ahead: the session (30 s heartbeat, 60 s deadline) is still live when it passes. */
const soon = (t: TestApp) => t.clock.now + 20_000;
const pass = (t: TestApp) => t.clock.advance(25_000);

const DOORS: Door[] = [
  {
    name: 'PUT /keys/api/key status banned',
    reason: 'KEY_BANNED',
    end: async ({ app, s, key }) => ok(await keyApi(app, s, 'PUT', '/keys/api/key', { key, status: 'banned' })),
  },
  {
    name: 'PUT /keys/api/key status paused',
    reason: 'KEY_PAUSED',
    end: async ({ app, s, key }) => ok(await keyApi(app, s, 'PUT', '/keys/api/key', { key, status: 'paused' })),
  },
  {
    name: 'DELETE /keys/api/key',
    reason: 'KEY_DELETED',
    end: async ({ app, s, key }) => ok(await keyApi(app, s, 'DELETE', `/keys/api/key?key=${key}`)),
  },
  {
    name: 'bulk ban',
    reason: 'KEY_BANNED',
    end: async ({ app, s, key }) => ok(await keyApi(app, s, 'POST', '/keys/api/keys/bulk', { action: 'ban', keys: [key] })),
  },
  {
    name: 'bulk pause',
    reason: 'KEY_PAUSED',
    end: async ({ app, s, key }) => ok(await keyApi(app, s, 'POST', '/keys/api/keys/bulk', { action: 'pause', keys: [key] })),
  },
  {
    name: 'bulk delete',
    reason: 'KEY_DELETED',
    end: async ({ app, s, key }) => ok(await keyApi(app, s, 'POST', '/keys/api/keys/bulk', { action: 'delete', keys: [key] })),
  },
  {
    name: 'bulk move to another service',
    reason: 'KEY_DELETED',
    end: async ({ app, s, key, t }) => {
      const other = await seedService(t.ctx, s.account);
      ok(await keyApi(app, s, 'POST', '/keys/api/keys/bulk', { action: 'move', keys: [key], toService: other.id }));
    },
  },
  {
    name: 'HWID reset',
    reason: 'HWID_RESET',
    end: async ({ app, s, key }) => ok(await keyApi(app, s, 'POST', '/keys/reset-hwid', { key })),
  },
  {
    name: 'HWID blacklisted',
    reason: 'HWID_BLACKLISTED',
    end: async ({ app, s }) => ok(await keyApi(app, s, 'POST', '/keys/api/blacklist', { hwid: 'pc-1' })),
  },
  {
    name: '/luarmor users/blacklist',
    reason: 'KEY_BANNED',
    end: async ({ app, s, key }) => ok(await luarmor(app, s).blacklist(s.id, key, { ban_reason: 'x' })),
  },
  { name: '/luarmor DELETE users', reason: 'KEY_DELETED', end: async ({ app, s, key }) => ok(await luarmor(app, s).deleteUser(s.id, key)) },
  {
    name: 'PUT /keys/api/key expiresAt moved earlier',
    reason: 'KEY_EXPIRED',
    end: async ({ app, s, key, t }) => {
      ok(await keyApi(app, s, 'PUT', '/keys/api/key', { key, expiresAt: soon(t) }));
      pass(t);
    },
  },
  {
    name: '/luarmor PATCH auth_expire moved earlier',
    reason: 'KEY_EXPIRED',
    end: async ({ app, s, key, t }) => {
      ok(await luarmor(app, s).updateUser(s.id, { user_key: key, auth_expire: Math.ceil(soon(t) / 1000) }));
      pass(t);
    },
  },
  {
    name: 'the expiry passing (no door)',
    reason: 'KEY_EXPIRED',
    // A key made to run out 20 s from now: the session knew that expiry from the start.
    expiresAt: soon,
    end: async ({ t }) => pass(t),
  },
  {
    name: 'the service deleted',
    reason: 'KEY_DELETED',
    end: async ({ app, s }) => ok(await call(app, 'DELETE', `/api/v1/services/${s.id}`, { key: s.account.accountKey })),
  },
];

function endOfValiditySuite(label: string, env: () => Record<string, string>) {
  describe(`every end of a key's validity ends its sessions (${label}, two instances)`, () => {
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

    for (const door of DOORS) {
      it(`${door.name}: the next heartbeat on every instance is 410 ${door.reason}`, async () => {
        const s = await seedService(t.ctx);
        const [key] = await generateKeys(t.app, s.serviceKey, {
          expirationType: 'byDate',
          expiresAt: door.expiresAt?.(t) ?? t.clock.now + 30 * DAY_MS,
        });
        await redeem(t.app, s.id, key!, 'pc-1');
        const sessionId = await openSession(t.app, s, { key, hwid: 'pc-1' });
        // Both instances answer the session (and may keep its row) before the door is used on the second one.
        for (const app of [t.app, second]) expect((await sessionsOf(s).heartbeat(app, sessionId)).status).toBe(200);
        await door.end({ app: second, s, key: key!, t });
        for (const app of [t.app, second]) {
          const beat = await sessionsOf(s).heartbeat(app, sessionId);
          expect(beat.status, JSON.stringify(beat.body)).toBe(410);
          expect(beat.body).toMatchObject({ code: 'SESSION_ENDED', reason: door.reason });
        }
      });
    }
  });
}

endOfValiditySuite('sessions in the database', () => ({}));
endOfValiditySuite('sessions in Redis', () => ({ REDIS_URL: process.env.KEYWARD_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379' }));
