import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, generateKeys, seedAccount, seedService, type SeededService } from '../helpers/seed.ts';
import { expectError, redeem, serviceSeeder } from '../helpers/records.ts';

const t = useTestApp();
const newService = serviceSeeder(t);
const CHAT_ID = '123456789012345678';
type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
let imported = 0;

/** Every key route with a request that would succeed for the owner (given an active and a generated key). */
interface Route {
  method: Method;
  path: string;
  manage: boolean;
  request: (keys: { active: string; generated: string }) => { query?: Record<string, string>; body?: unknown };
}
const ROUTES: Route[] = [
  { method: 'POST', path: '/keys/api/generate', manage: true, request: () => ({ body: { expirationType: 'lifetime' } }) },
  { method: 'GET', path: '/keys/api/key', manage: false, request: (k) => ({ query: { key: k.active } }) },
  { method: 'PUT', path: '/keys/api/key', manage: true, request: (k) => ({ body: { key: k.active, note: 'n' } }) },
  { method: 'DELETE', path: '/keys/api/key', manage: true, request: (k) => ({ query: { key: k.active } }) },
  { method: 'POST', path: '/keys/api/key/extend-expiration', manage: true, request: (k) => ({ body: { key: k.active, days: 1 } }) },
  { method: 'GET', path: '/keys/api/generated-key', manage: false, request: (k) => ({ query: { key: k.generated } }) },
  { method: 'PUT', path: '/keys/api/generated-key', manage: true, request: (k) => ({ body: { key: k.generated, note: 'n' } }) },
  { method: 'DELETE', path: '/keys/api/generated-key', manage: true, request: (k) => ({ query: { key: k.generated } }) },
  { method: 'GET', path: '/keys/api/key/binding', manage: false, request: (k) => ({ query: { key: k.active, type: 'active' } }) },
  { method: 'GET', path: '/keys/api/key/by-chat', manage: false, request: () => ({ query: { chatId: CHAT_ID } }) },
  { method: 'POST', path: '/keys/reset-hwid', manage: false, request: (k) => ({ body: { key: k.active } }) },
  { method: 'POST', path: '/keys/api/compensate', manage: true, request: () => ({ body: { days: 1 } }) },
  // Contract §7: the seller-data routes. GETs are never gated; the others need allowManageKeys.
  { method: 'GET', path: '/keys/api/keys', manage: false, request: () => ({ query: { status: 'active', search: 'a' } }) },
  {
    method: 'POST',
    path: '/keys/api/keys/bulk',
    manage: true,
    request: (k) => ({ body: { action: 'setNote', keys: [k.active, k.generated], note: 'n' } }),
  },
  { method: 'GET', path: '/keys/api/keys/export', manage: false, request: () => ({ query: { format: 'json' } }) },
  {
    method: 'POST',
    path: '/keys/api/keys/import',
    manage: true,
    request: () => ({ body: { format: 'keyward-json', data: [{ key: `sec${process.pid}imp${++imported}`.padEnd(16, '0') }] } }),
  },
  { method: 'GET', path: '/keys/api/analytics', manage: false, request: () => ({ query: { interval: 'day' } }) },
  { method: 'GET', path: '/keys/api/audit', manage: false, request: () => ({ query: { limit: '5' } }) },
];
/** Routes that name one key of the service (another service's key is a 404 there). */
const KEY_TARGETED = new Set([
  '/keys/api/key',
  '/keys/api/generated-key',
  '/keys/api/key/extend-expiration',
  '/keys/api/key/binding',
  '/keys/reset-hwid',
]);

function send(
  route: Route,
  keys: { active: string; generated: string },
  options: { key?: string; headers?: Record<string, string>; remoteAddress?: string; extraQuery?: Record<string, string> } = {},
) {
  const { query, body } = route.request(keys);
  const params = new URLSearchParams({ ...query, ...options.extraQuery });
  const url = `/api/v1${route.path}${params.size ? `?${params}` : ''}`;
  return call(t().app, route.method, url, { key: options.key, body, headers: options.headers, remoteAddress: options.remoteAddress });
}

/** A fresh service with one expiring active key (bound), one expiring generated key. */
async function seeded(s?: SeededService) {
  const service = s ?? (await newService());
  const [active, generated] = await generateKeys(t().app, service.serviceKey, {
    expirationType: 'byDays',
    days: 30,
    count: 2,
    chatId: CHAT_ID,
  });
  await redeem(t().app, service.identifier, active!, 'pc-owner');
  return { service, keys: { active: active!, generated: generated! } };
}

const label = (r: Route) => `${r.method} ${r.path}`;
const auditCount = async (serviceId: string) =>
  (
    await t()
      .ctx.db.selectFrom('auditLog')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('serviceId', '=', serviceId)
      .executeTakeFirstOrThrow()
  ).n;

describe('authentication on key routes (401 UNAUTHORIZED)', () => {
  for (const route of ROUTES) {
    it(`${label(route)} refuses a request without a key`, async () => {
      const { keys } = await seeded();
      expectError(await send(route, keys), 401, 'UNAUTHORIZED');
    });

    it(`${label(route)} refuses an unknown key, service-shaped or account-shaped`, async () => {
      const { keys } = await seeded();
      expectError(await send(route, keys, { key: `kws_${'A'.repeat(40)}` }), 401, 'UNAUTHORIZED');
      expectError(await send(route, keys, { key: `kw_${'A'.repeat(40)}`, headers: { 'x-service-id': 'whatever' } }), 401, 'UNAUTHORIZED');
      expectError(await send(route, keys, { key: 'not-a-key' }), 401, 'UNAUTHORIZED');
    });

    it(`${label(route)} refuses a key sent only in the query string`, async () => {
      const { service, keys } = await seeded();
      expectError(await send(route, keys, { extraQuery: { apiKey: service.serviceKey } }), 401, 'UNAUTHORIZED');
    });
  }

  it('accepts the key as Authorization: Bearer', async () => {
    const { service, keys } = await seeded();
    const res = await call(t().app, 'GET', `/api/v1/keys/api/key?key=${keys.active}`, {
      headers: { authorization: `Bearer ${service.serviceKey}` },
    });
    expect(res.status).toBe(200);
  });

  it('refuses an old service key after it is regenerated', async () => {
    const { service, keys } = await seeded();
    const regen = await call(t().app, 'POST', `/api/v1/services/${service.id}/api-key/regenerate`, { key: service.account.accountKey });
    expect(regen.status).toBe(200);
    expectError(await call(t().app, 'GET', `/api/v1/keys/api/key?key=${keys.active}`, { key: service.serviceKey }), 401, 'UNAUTHORIZED');
    const fresh = await call(t().app, 'GET', `/api/v1/keys/api/key?key=${keys.active}`, { key: regen.body.data.apiKey });
    expect(fresh.status).toBe(200);
  });

  it('checks the key before the input: a bad body without a key is a 401', async () => {
    const res = await call(t().app, 'POST', '/api/v1/keys/api/generate', { body: { expirationType: 'never', count: 'x' } });
    expectError(res, 401, 'UNAUTHORIZED');
  });
});

describe('the account key on key routes', () => {
  for (const route of ROUTES) {
    it(`${label(route)} works with the account key and X-Service-Id (id or identifier)`, async () => {
      const { service, keys } = await seeded();
      const ref = route.method === 'GET' ? service.identifier : service.id;
      const res = await send(route, keys, { key: service.account.accountKey, headers: { 'x-service-id': ref } });
      expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
    });
  }

  it('needs X-Service-Id', async () => {
    const { service, keys } = await seeded();
    const res = await call(t().app, 'GET', `/api/v1/keys/api/key?key=${keys.active}`, { key: service.account.accountKey });
    expectError(res, 400, 'SERVICE_ID_REQUIRED');
  });

  for (const route of ROUTES) {
    it(`${label(route)} is a 404 for another account's service, and changes nothing there`, async () => {
      const { service, keys } = await seeded();
      const stranger = await seedAccount(t().ctx);
      const auditBefore = await auditCount(service.id);
      for (const ref of [service.id, service.identifier]) {
        const res = await send(route, keys, { key: stranger.accountKey, headers: { 'x-service-id': ref } });
        expectError(res, 404, 'NOT_FOUND');
        expect(res.body).not.toHaveProperty('data');
      }
      expect(await auditCount(service.id)).toBe(auditBefore);
      const stored = await call(t().app, 'GET', `/api/v1/keys/api/key?key=${keys.active}`, { key: service.serviceKey });
      expect(stored.body.data.keys[0]).toMatchObject({ note: null, hwid: 'pc-owner' });
    });
  }

  it('is not restricted by the flags or the allowlist of the service key', async () => {
    const { service, keys } = await seeded();
    const owner = service.account.accountKey;
    await call(t().app, 'PATCH', `/api/v1/services/${service.id}/permissions`, { key: owner, body: { allowManageKeys: false } });
    await call(t().app, 'PUT', `/api/v1/services/${service.id}/ip-allowlist`, { key: owner, body: { entries: ['10.9.8.7'] } });
    const res = await call(t().app, 'PUT', '/api/v1/keys/api/key', {
      key: owner,
      headers: { 'x-service-id': service.id },
      body: { key: keys.active, note: 'by owner' },
      remoteAddress: '127.0.0.1',
    });
    expect(res.status).toBe(200);
    expect(res.body.data.note).toBe('by owner');
  });
});

describe('allowManageKeys (403 PERMISSION_DENIED)', () => {
  async function withoutManage() {
    const ctx = await seeded();
    const patch = await call(t().app, 'PATCH', `/api/v1/services/${ctx.service.id}/permissions`, {
      key: ctx.service.account.accountKey,
      body: { allowManageKeys: false },
    });
    expect(patch.status).toBe(200);
    expect(patch.body.data.allowManageKeys).toBe(false);
    return ctx;
  }

  for (const route of ROUTES) {
    if (route.manage) {
      it(`${label(route)} is refused when the flag is off, with the contract's exact sentence`, async () => {
        const { service, keys } = await withoutManage();
        const res = await send(route, keys, { key: service.serviceKey });
        expectError(res, 403, 'PERMISSION_DENIED');
        expect(res.body.error).toBe('This API key is not permitted for this action (allowManageKeys)');
      });
    } else {
      it(`${label(route)} stays allowed when the flag is off`, async () => {
        const { service, keys } = await withoutManage();
        const res = await send(route, keys, { key: service.serviceKey });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
      });
    }
  }

  it('keeps POST /keys/api/execution allowed when the flag is off', async () => {
    const { service } = await withoutManage();
    const res = await call(t().app, 'POST', '/api/v1/keys/api/execution', { key: service.serviceKey, body: {} });
    expect(res.status).toBe(200);
  });

  it('refuses before looking at the input, and changes nothing', async () => {
    const { service, keys } = await withoutManage();
    const bad = await call(t().app, 'POST', '/api/v1/keys/api/generate', { key: service.serviceKey, body: { expirationType: 'never' } });
    expectError(bad, 403, 'PERMISSION_DENIED');
    await call(t().app, 'PUT', '/api/v1/keys/api/key', { key: service.serviceKey, body: { key: keys.active, note: 'sneaky' } });
    const stored = await call(t().app, 'GET', `/api/v1/keys/api/key?key=${keys.active}`, { key: service.serviceKey });
    expect(stored.body.data.keys[0].note).toBeNull();
  });

  it('allows the mutating routes again once the flag is back on', async () => {
    const { service } = await withoutManage();
    await call(t().app, 'PATCH', `/api/v1/services/${service.id}/permissions`, {
      key: service.account.accountKey,
      body: { allowManageKeys: true },
    });
    const res = await call(t().app, 'POST', '/api/v1/keys/api/generate', { key: service.serviceKey, body: { expirationType: 'lifetime' } });
    expect(res.status).toBe(201);
  });
});

describe('IP allowlist (403 IP_NOT_ALLOWED)', () => {
  async function allowlisted(entries: string[]) {
    const ctx = await seeded();
    const put = await call(t().app, 'PUT', `/api/v1/services/${ctx.service.id}/ip-allowlist`, {
      key: ctx.service.account.accountKey,
      body: { entries },
    });
    expect(put.status).toBe(200);
    return ctx;
  }

  for (const route of ROUTES) {
    it(`${label(route)} refuses a caller outside the allowlist`, async () => {
      const { service, keys } = await allowlisted(['203.0.113.7', '198.51.100.0/24']);
      expectError(await send(route, keys, { key: service.serviceKey, remoteAddress: '192.0.2.1' }), 403, 'IP_NOT_ALLOWED');
    });
  }

  it('lets in exact addresses, CIDR members and IPv4-mapped IPv6 forms of them', async () => {
    const { service, keys } = await allowlisted(['203.0.113.7', '198.51.100.0/24']);
    for (const address of ['203.0.113.7', '198.51.100.200', '::ffff:198.51.100.1']) {
      const res = await call(t().app, 'GET', `/api/v1/keys/api/key?key=${keys.active}`, {
        key: service.serviceKey,
        remoteAddress: address,
      });
      expect(res.status, address).toBe(200);
    }
    for (const address of ['203.0.113.8', '198.51.101.1', '::1', '2001:db8::1']) {
      const res = await call(t().app, 'GET', `/api/v1/keys/api/key?key=${keys.active}`, {
        key: service.serviceKey,
        remoteAddress: address,
      });
      expectError(res, 403, 'IP_NOT_ALLOWED');
    }
  });

  it('checks the allowlist before the permission flag', async () => {
    const { service, keys } = await allowlisted(['203.0.113.7']);
    await call(t().app, 'PATCH', `/api/v1/services/${service.id}/permissions`, {
      key: service.account.accountKey,
      body: { allowManageKeys: false },
    });
    const outside = await call(t().app, 'PUT', '/api/v1/keys/api/key', {
      key: service.serviceKey,
      body: { key: keys.active },
      remoteAddress: '192.0.2.1',
    });
    expectError(outside, 403, 'IP_NOT_ALLOWED');
    const inside = await call(t().app, 'PUT', '/api/v1/keys/api/key', {
      key: service.serviceKey,
      body: { key: keys.active },
      remoteAddress: '203.0.113.7',
    });
    expectError(inside, 403, 'PERMISSION_DENIED');
  });

  it('lets everyone in again once the allowlist is emptied', async () => {
    const { service, keys } = await allowlisted(['203.0.113.7']);
    await call(t().app, 'PUT', `/api/v1/services/${service.id}/ip-allowlist`, { key: service.account.accountKey, body: { entries: [] } });
    const res = await call(t().app, 'GET', `/api/v1/keys/api/key?key=${keys.active}`, {
      key: service.serviceKey,
      remoteAddress: '192.0.2.1',
    });
    expect(res.status).toBe(200);
  });
});

describe("another account's keys", () => {
  it('are invisible to every key route of this service: 404, never data', async () => {
    const mine = await seeded();
    const theirs = await seeded(await seedService(t().ctx));
    for (const route of ROUTES.filter((r) => KEY_TARGETED.has(r.path) || r.path === '/keys/api/key/by-chat')) {
      const res = await send(route, theirs.keys, { key: mine.service.serviceKey });
      if (route.path === '/keys/api/key/by-chat') {
        // Both services bound keys to the same chat user: each sees only its own.
        expect(res.status).toBe(200);
        const seen = res.body.data.keys.map((k: { key: string }) => k.key).sort();
        expect(seen).toEqual([mine.keys.active, mine.keys.generated].sort());
        continue;
      }
      expectError(res, 404, 'NOT_FOUND');
      expect(res.body, label(route)).not.toHaveProperty('data');
    }
    // Nothing of theirs changed.
    const stored = await call(t().app, 'GET', `/api/v1/keys/api/key?key=${theirs.keys.active}`, { key: theirs.service.serviceKey });
    expect(stored.body.data.keys[0]).toMatchObject({ note: null, hwid: 'pc-owner', hwidResetCount: 0 });
    const generated = await call(t().app, 'GET', `/api/v1/keys/api/generated-key?key=${theirs.keys.generated}`, {
      key: theirs.service.serviceKey,
    });
    expect(generated.status).toBe(200);
  });

  it('are never listed, exported or touched by the §7 routes of this service', async () => {
    const mine = await seeded();
    const theirs = await seeded(await seedService(t().ctx));
    const api = (method: Method, path: string, body?: unknown) =>
      call(t().app, method, `/api/v1${path}`, { key: mine.service.serviceKey, body });
    const listed = await api('GET', '/keys/api/keys?limit=100');
    expect(listed.body.data.items.map((k: { key: string }) => k.key).sort()).toEqual([mine.keys.active, mine.keys.generated].sort());
    const exportedKeys = (await api('GET', '/keys/api/keys/export?format=json')).body as Array<{ key: string }>;
    expect(exportedKeys.map((k) => k.key).sort()).toEqual([mine.keys.active, mine.keys.generated].sort());
    for (const action of ['delete', 'ban', 'resetHwid']) {
      const bulk = await api('POST', '/keys/api/keys/bulk', { action, keys: [theirs.keys.active, theirs.keys.generated] });
      expect(bulk.body.data).toEqual({ action, updated: 0, notFound: [theirs.keys.active, theirs.keys.generated], skipped: [] });
    }
    const duplicate = await api('POST', '/keys/api/keys/import', { format: 'keyward-json', data: [{ key: theirs.keys.active }] });
    expectError(duplicate, 409, 'CONFLICT');
    const stored = await call(t().app, 'GET', `/api/v1/keys/api/key?key=${theirs.keys.active}`, { key: theirs.service.serviceKey });
    expect(stored.body.data.keys[0]).toMatchObject({ status: 'active', hwid: 'pc-owner', note: null });
    const audit = await api('GET', '/keys/api/audit?limit=100');
    expect(JSON.stringify(audit.body.data.items)).not.toContain(theirs.keys.active);
  });

  it('compensate moves only the calling service’s keys', async () => {
    const mine = await seeded();
    const theirs = await seeded(await seedService(t().ctx));
    const before = await call(t().app, 'GET', `/api/v1/keys/api/key?key=${theirs.keys.active}`, { key: theirs.service.serviceKey });
    const res = await call(t().app, 'POST', '/api/v1/keys/api/compensate', { key: mine.service.serviceKey, body: { days: 3 } });
    expect(res.body.data).toEqual({ activeKeysUpdated: 1, generatedKeysUpdated: 1 });
    const after = await call(t().app, 'GET', `/api/v1/keys/api/key?key=${theirs.keys.active}`, { key: theirs.service.serviceKey });
    expect(after.body.data.keys[0].expiresAt).toBe(before.body.data.keys[0].expiresAt);
  });

  it("validate answers KEY_INCORRECT for another service's key string", async () => {
    const mine = await seeded();
    const theirs = await seeded(await seedService(t().ctx));
    for (const key of [theirs.keys.active, theirs.keys.generated]) {
      const res = await call(t().app, 'GET', `/api/v1/keys/validate?service=${mine.service.identifier}&key=${key}&hwid=pc-owner`);
      expect(res.body.data).toMatchObject({ valid: false, code: 'KEY_INCORRECT' });
    }
    const stillGenerated = await call(t().app, 'GET', `/api/v1/keys/api/generated-key?key=${theirs.keys.generated}`, {
      key: theirs.service.serviceKey,
    });
    expect(stillGenerated.status).toBe(200);
  });
});
