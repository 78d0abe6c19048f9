import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, seedAccount, seedService, type SeededService } from '../helpers/seed.ts';

const t = useTestApp();
const INFO = '/api/v1/keys/api/service/info';

const denyManageKeys = (s: SeededService) =>
  call(t().app, 'PATCH', `/api/v1/services/${s.id}/permissions`, { key: s.account.accountKey, body: { allowManageKeys: false } });
const allowOnly = (s: SeededService, entries: string[]) =>
  call(t().app, 'PUT', `/api/v1/services/${s.id}/ip-allowlist`, { key: s.account.accountKey, body: { entries } });

describe('service routes: how a key is presented', () => {
  it('accepts a service key in X-API-Key', async () => {
    const s = await seedService(t().ctx);
    const res = await call(t().app, 'GET', INFO, { key: s.serviceKey });
    expect(res.status).toBe(200);
    expect(res.body.data.id).toBe(s.id);
  });

  it('accepts a service key as Authorization: Bearer', async () => {
    const s = await seedService(t().ctx);
    const res = await call(t().app, 'GET', INFO, { headers: { authorization: `Bearer ${s.serviceKey}` } });
    expect(res.status).toBe(200);
    expect(res.body.data.id).toBe(s.id);
  });

  it('refuses a key sent only in the query string', async () => {
    const s = await seedService(t().ctx);
    for (const param of ['apiKey', 'api_key', 'key']) {
      const res = await call(t().app, 'GET', `${INFO}?${param}=${s.serviceKey}`);
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ success: false, code: 'UNAUTHORIZED' });
    }
  });

  it('refuses a call with no key', async () => {
    const res = await call(t().app, 'GET', INFO);
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('UNAUTHORIZED');
  });

  it.each([
    ['an unknown service key', `kws_${'A'.repeat(40)}`],
    ['an unknown account key', `kw_${'A'.repeat(40)}`],
    ['a string of another shape', 'not-a-key'],
  ])('refuses %s', async (_label, key) => {
    const res = await call(t().app, 'GET', INFO, { key });
    expect(res.status).toBe(401);
  });

  it('refuses a Bearer header with the wrong scheme', async () => {
    const s = await seedService(t().ctx);
    const res = await call(t().app, 'GET', INFO, { headers: { authorization: `Basic ${s.serviceKey}` } });
    expect(res.status).toBe(401);
  });

  it("refuses the service keys of a disabled account's services", async () => {
    const s = await seedService(t().ctx);
    await t().ctx.db.updateTable('accounts').set({ disabled: 1 }).where('id', '=', s.account.id).execute();
    expect((await call(t().app, 'GET', INFO, { key: s.serviceKey })).status).toBe(401);
    expect((await call(t().app, 'GET', INFO, { key: s.account.accountKey, headers: { 'x-service-id': s.id } })).status).toBe(401);
  });
});

describe('service routes: the account key acting as owner', () => {
  it('needs X-Service-Id: 400 SERVICE_ID_REQUIRED without it', async () => {
    const s = await seedService(t().ctx);
    const res = await call(t().app, 'GET', INFO, { key: s.account.accountKey });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 'SERVICE_ID_REQUIRED' });
  });

  it('selects the service by id or identifier in X-Service-Id', async () => {
    const s = await seedService(t().ctx);
    for (const ref of [s.id, s.identifier]) {
      const res = await call(t().app, 'GET', INFO, { key: s.account.accountKey, headers: { 'x-service-id': ref } });
      expect(res.status).toBe(200);
      expect(res.body.data.id).toBe(s.id);
    }
  });

  it("answers 404 for another account's service and does not act on it", async () => {
    const victim = await seedService(t().ctx);
    const attacker = await seedAccount(t().ctx);
    for (const ref of [victim.id, victim.identifier]) {
      const read = await call(t().app, 'GET', INFO, { key: attacker.accountKey, headers: { 'x-service-id': ref } });
      expect(read.status).toBe(404);
      expect(read.body.code).toBe('NOT_FOUND');
      const write = await call(t().app, 'POST', '/api/v1/keys/api/blacklist', {
        key: attacker.accountKey,
        headers: { 'x-service-id': ref },
        body: { hwid: 'victim-pc' },
      });
      expect(write.status).toBe(404);
    }
    const rows = await t().ctx.db.selectFrom('blacklist').select('hwid').where('serviceId', '=', victim.id).execute();
    expect(rows).toHaveLength(0);
  });

  it('answers 404 for a service that does not exist', async () => {
    const a = await seedAccount(t().ctx);
    const res = await call(t().app, 'GET', INFO, { key: a.accountKey, headers: { 'x-service-id': 'nothing-here' } });
    expect(res.status).toBe(404);
  });

  it('is not limited by the permission flags', async () => {
    const s = await seedService(t().ctx);
    await call(t().app, 'PATCH', `/api/v1/services/${s.id}/permissions`, {
      key: s.account.accountKey,
      body: { allowManageKeys: false, allowVss: false, allowUrlShortener: false },
    });
    const res = await call(t().app, 'POST', '/api/v1/keys/api/blacklist', {
      key: s.account.accountKey,
      headers: { 'x-service-id': s.id },
      body: { hwid: 'owner-ban' },
    });
    expect(res.status).toBe(201);
  });

  it('is not limited by the IP allowlist', async () => {
    const s = await seedService(t().ctx);
    await allowOnly(s, ['1.2.3.4']);
    const res = await call(t().app, 'POST', '/api/v1/keys/api/keyless', {
      key: s.account.accountKey,
      headers: { 'x-service-id': s.identifier },
      body: { hwid: 'owner-kl' },
      remoteAddress: '9.9.9.9',
    });
    expect(res.status).toBe(201);
  });

  it('ignores X-Service-Id sent with a service key: the key selects its own service', async () => {
    const mine = await seedService(t().ctx);
    const other = await seedService(t().ctx);
    const res = await call(t().app, 'GET', INFO, { key: mine.serviceKey, headers: { 'x-service-id': other.id } });
    expect(res.status).toBe(200);
    expect(res.body.data.id).toBe(mine.id);
  });
});

describe('service routes: check order 401 → 403 IP_NOT_ALLOWED → 403 PERMISSION_DENIED → 400', () => {
  it('answers 401 for an unknown key even from outside every allowlist and with a bad body', async () => {
    const res = await call(t().app, 'POST', '/api/v1/keys/api/blacklist', {
      key: `kws_${'B'.repeat(40)}`,
      body: { nonsense: true },
      remoteAddress: '9.9.9.9',
    });
    expect(res.status).toBe(401);
  });

  it('answers IP_NOT_ALLOWED before PERMISSION_DENIED', async () => {
    const s = await seedService(t().ctx);
    await allowOnly(s, ['1.2.3.4']);
    await denyManageKeys(s);
    const res = await call(t().app, 'POST', '/api/v1/keys/api/blacklist', {
      key: s.serviceKey,
      body: { hwid: 'x' },
      remoteAddress: '9.9.9.9',
    });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('IP_NOT_ALLOWED');
  });

  it('answers PERMISSION_DENIED, with the exact sentence, before looking at a bad body', async () => {
    const s = await seedService(t().ctx);
    await denyManageKeys(s);
    for (const body of [{ nonsense: true }, { hwid: 5 }, '{broken']) {
      const res = await call(t().app, 'POST', '/api/v1/keys/api/blacklist', { key: s.serviceKey, body });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({
        success: false,
        code: 'PERMISSION_DENIED',
        error: 'This API key is not permitted for this action (allowManageKeys)',
      });
    }
  });

  it('answers 400 for a bad body once the flag allows the action', async () => {
    const s = await seedService(t().ctx);
    const res = await call(t().app, 'POST', '/api/v1/keys/api/blacklist', { key: s.serviceKey, body: { nonsense: true } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
  });
});

describe('service routes: what allowManageKeys gates', () => {
  const gated = [
    ['POST', '/api/v1/keys/api/keyless', { hwid: 'g1' }],
    ['DELETE', '/api/v1/keys/api/keyless?hwid=g1', undefined],
    ['POST', '/api/v1/keys/api/blacklist', { hwid: 'g2' }],
    ['DELETE', '/api/v1/keys/api/blacklist?hwid=g2', undefined],
    ['PUT', '/api/v1/keys/api/settings', { webhookEnabled: false }],
  ] as const;

  it.each(gated)('%s %s is refused to a service key without allowManageKeys and changes nothing', async (method, url, body) => {
    const s = await seedService(t().ctx);
    await call(t().app, 'POST', '/api/v1/keys/api/keyless', { key: s.serviceKey, body: { hwid: 'g1' } });
    await call(t().app, 'POST', '/api/v1/keys/api/blacklist', { key: s.serviceKey, body: { hwid: 'g2' } });
    await denyManageKeys(s);
    const res = await call(t().app, method, url, { key: s.serviceKey, body });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('This API key is not permitted for this action (allowManageKeys)');
    expect(await t().ctx.db.selectFrom('keyless').select('hwid').where('serviceId', '=', s.id).execute()).toEqual([{ hwid: 'g1' }]);
    expect(await t().ctx.db.selectFrom('blacklist').select('hwid').where('serviceId', '=', s.id).execute()).toEqual([{ hwid: 'g2' }]);
  });

  const open = [
    ['GET', '/api/v1/keys/api/keyless?hwid=g1', undefined, 200],
    ['GET', '/api/v1/keys/api/blacklist', undefined, 200],
    ['GET', '/api/v1/keys/api/blacklist/check?hwid=g2', undefined, 200],
    ['GET', '/api/v1/keys/api/service/info', undefined, 200],
    ['GET', '/api/v1/keys/api/service/status', undefined, 200],
    ['GET', '/api/v1/keys/api/execution', undefined, 200],
    ['POST', '/api/v1/keys/api/execution', {}, 200],
  ] as const;

  it.each(open)('%s %s stays open to a service key without allowManageKeys', async (method, url, body, status) => {
    const s = await seedService(t().ctx);
    await call(t().app, 'POST', '/api/v1/keys/api/keyless', { key: s.serviceKey, body: { hwid: 'g1' } });
    await call(t().app, 'POST', '/api/v1/keys/api/blacklist', { key: s.serviceKey, body: { hwid: 'g2' } });
    await denyManageKeys(s);
    const res = await call(t().app, method, url, { key: s.serviceKey, body });
    expect(res.status).toBe(status);
  });
});
