import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, generateKeys, seedAccount, seedService } from '../helpers/seed.ts';
import { digest } from '../../src/lib/secrets.ts';

const t = useTestApp();
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SERVICE_KEY = /^kws_[A-Za-z0-9]{40}$/;

describe('POST /api/v1/services', () => {
  it('creates a service with an explicit identifier and answers 201', async () => {
    const a = await seedAccount(t().ctx);
    const res = await call(t().app, 'POST', '/api/v1/services', { key: a.accountKey, body: { name: 'My Game', identifier: 'my-game-1' } });
    expect(res.status).toBe(201);
    expect(res.body.success).toBe(true);
    expect(res.body.data).toEqual({
      id: expect.stringMatching(UUID),
      identifier: 'my-game-1',
      name: 'My Game',
      createdAt: '2026-11-22T10:00:00.000Z',
    });
    const row = await t().ctx.db.selectFrom('services').selectAll().where('id', '=', res.body.data.id).executeTakeFirstOrThrow();
    expect(row.accountId).toBe(a.id);
  });

  it('makes an identifier from the name when none is given', async () => {
    const a = await seedAccount(t().ctx);
    const res = await call(t().app, 'POST', '/api/v1/services', { key: a.accountKey, body: { name: 'Blox Fruits Hub!' } });
    expect(res.status).toBe(201);
    expect(res.body.data.identifier).toMatch(/^[a-z0-9-]{3,48}$/);
    expect(res.body.data.identifier).not.toMatch(UUID);
    expect(res.body.data.identifier.startsWith('blox-fruits-hub')).toBe(true);
  });

  it('makes a valid identifier even from a name with no usable characters', async () => {
    const a = await seedAccount(t().ctx);
    const res = await call(t().app, 'POST', '/api/v1/services', { key: a.accountKey, body: { name: '!!!' } });
    expect(res.status).toBe(201);
    expect(res.body.data.identifier).toMatch(/^[a-z0-9-]{3,48}$/);
  });

  it('accepts identifiers of 3 and of 48 characters', async () => {
    const a = await seedAccount(t().ctx);
    const short = `a${String(Date.now() % 100).padStart(2, '0')}`;
    const res3 = await call(t().app, 'POST', '/api/v1/services', { key: a.accountKey, body: { name: 'x', identifier: short } });
    expect(res3.status).toBe(201);
    const long = `l${Date.now()}`.padEnd(48, 'z');
    const res48 = await call(t().app, 'POST', '/api/v1/services', { key: a.accountKey, body: { name: 'x', identifier: long } });
    expect(res48.status).toBe(201);
    expect(res48.body.data.identifier).toBe(long);
  });

  it('creates the service key with the service: kws_ and 40 alphanumerics, stored as digest and sealed value', async () => {
    const a = await seedAccount(t().ctx);
    const created = await call(t().app, 'POST', '/api/v1/services', { key: a.accountKey, body: { name: 'k' } });
    const id = created.body.data.id as string;
    const reveal = await call(t().app, 'GET', `/api/v1/services/${id}/api-key`, { key: a.accountKey });
    expect(reveal.status).toBe(200);
    const key = reveal.body.data.apiKey as string;
    expect(key).toMatch(SERVICE_KEY);
    const row = await t().ctx.db.selectFrom('services').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.apiKeyDigest).toBe(digest(key));
    expect(t().ctx.sealer.open(row.apiKeySealed)).toBe(key);
    expect(JSON.stringify(row)).not.toContain(key.slice(4));
    const again = await call(t().app, 'GET', `/api/v1/services/${row.identifier}/api-key`, { key: a.accountKey });
    expect(again.body.data.apiKey).toBe(key);
    const info = await call(t().app, 'GET', '/api/v1/keys/api/service/info', { key });
    expect(info.status).toBe(200);
    expect(info.body.data.id).toBe(id);
  });
});

describe('GET /api/v1/services', () => {
  it("lists only the caller's services", async () => {
    const a = await seedAccount(t().ctx);
    const b = await seedAccount(t().ctx);
    const s1 = await seedService(t().ctx, a);
    const s2 = await seedService(t().ctx, a);
    await seedService(t().ctx, b);
    const res = await call(t().app, 'GET', '/api/v1/services', { key: a.accountKey });
    expect(res.status).toBe(200);
    const ids = (res.body.data.services as Array<{ id: string }>).map((s) => s.id).sort();
    expect(ids).toEqual([s1.id, s2.id].sort());
    // Contract §17: each with the caller's role on it.
    expect(Object.keys(res.body.data.services[0]).sort()).toEqual(['actions', 'createdAt', 'id', 'identifier', 'name', 'role']);
    expect(res.body.data.services[0].role).toBe('owner');
  });

  it('answers an empty list for an account without services', async () => {
    const a = await seedAccount(t().ctx);
    const res = await call(t().app, 'GET', '/api/v1/services', { key: a.accountKey });
    expect(res.body).toEqual({ success: true, data: { services: [] } });
  });
});

describe('GET, PATCH, DELETE /api/v1/services/:id', () => {
  it('reads a service by id and by identifier', async () => {
    const s = await seedService(t().ctx);
    for (const ref of [s.id, s.identifier]) {
      const res = await call(t().app, 'GET', `/api/v1/services/${ref}`, { key: s.account.accountKey });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ id: s.id, identifier: s.identifier });
    }
  });

  it('renames a service by id or identifier and keeps the identifier', async () => {
    const s = await seedService(t().ctx);
    const res = await call(t().app, 'PATCH', `/api/v1/services/${s.identifier}`, { key: s.account.accountKey, body: { name: 'Renamed' } });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: s.id, identifier: s.identifier, name: 'Renamed' });
    const row = await t().ctx.db.selectFrom('services').select('name').where('id', '=', s.id).executeTakeFirstOrThrow();
    expect(row.name).toBe('Renamed');
    const byId = await call(t().app, 'PATCH', `/api/v1/services/${s.id}`, { key: s.account.accountKey, body: { name: 'Again' } });
    expect(byId.body.data.name).toBe('Again');
  });

  it('deletes a service by identifier, with its keys, keyless entries and bans', async () => {
    const s = await seedService(t().ctx);
    await generateKeys(t().app, s.serviceKey, { expirationType: 'lifetime', count: 3 });
    const [active] = await generateKeys(t().app, s.serviceKey);
    await call(t().app, 'GET', `/api/v1/keys/validate?service=${s.id}&key=${active}&hwid=pc`);
    await call(t().app, 'POST', '/api/v1/keys/api/keyless', { key: s.serviceKey, body: { hwid: 'kl' } });
    await call(t().app, 'POST', '/api/v1/keys/api/blacklist', { key: s.serviceKey, body: { hwid: 'bad' } });

    const res = await call(t().app, 'DELETE', `/api/v1/services/${s.identifier}`, { key: s.account.accountKey });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: s.id, identifier: s.identifier });

    const db = t().ctx.db;
    expect(await db.selectFrom('services').select('id').where('id', '=', s.id).execute()).toHaveLength(0);
    expect(await db.selectFrom('generatedKeys').select('key').where('serviceId', '=', s.id).execute()).toHaveLength(0);
    expect(await db.selectFrom('activeKeys').select('key').where('serviceId', '=', s.id).execute()).toHaveLength(0);
    expect(await db.selectFrom('keyless').select('hwid').where('serviceId', '=', s.id).execute()).toHaveLength(0);
    expect(await db.selectFrom('blacklist').select('hwid').where('serviceId', '=', s.id).execute()).toHaveLength(0);

    expect((await call(t().app, 'GET', `/api/v1/services/${s.id}`, { key: s.account.accountKey })).status).toBe(404);
    expect((await call(t().app, 'GET', '/api/v1/keys/api/service/info', { key: s.serviceKey })).status).toBe(401);
  });

  it('stops answering client validation for a deleted service at once', async () => {
    const s = await seedService(t().ctx);
    const before = await call(t().app, 'GET', `/api/v1/keys/validate?service=${s.identifier}&key=x&hwid=pc`);
    expect(before.status).toBe(200);
    await call(t().app, 'DELETE', `/api/v1/services/${s.id}`, { key: s.account.accountKey });
    for (const ref of [s.identifier, s.id]) {
      const after = await call(t().app, 'GET', `/api/v1/keys/validate?service=${ref}&key=x&hwid=pc`);
      expect(after.status).toBe(404);
    }
  });

  it('frees the identifier of a deleted service for reuse', async () => {
    const s = await seedService(t().ctx);
    await call(t().app, 'DELETE', `/api/v1/services/${s.id}`, { key: s.account.accountKey });
    const res = await call(t().app, 'POST', '/api/v1/services', {
      key: s.account.accountKey,
      body: { name: 'n', identifier: s.identifier },
    });
    expect(res.status).toBe(201);
  });
});

describe('POST /api/v1/services/:id/api-key/regenerate', () => {
  it('replaces the service key: the old one is refused at once, the new one works', async () => {
    const s = await seedService(t().ctx);
    const res = await call(t().app, 'POST', `/api/v1/services/${s.identifier}/api-key/regenerate`, { key: s.account.accountKey });
    expect(res.status).toBe(200);
    const fresh = res.body.data.apiKey as string;
    expect(fresh).toMatch(SERVICE_KEY);
    expect(fresh).not.toBe(s.serviceKey);
    const old = await call(t().app, 'GET', '/api/v1/keys/api/service/info', { key: s.serviceKey });
    expect(old.status).toBe(401);
    expect(old.body.code).toBe('UNAUTHORIZED');
    const now = await call(t().app, 'GET', '/api/v1/keys/api/service/info', { key: fresh });
    expect(now.status).toBe(200);
    const reveal = await call(t().app, 'GET', `/api/v1/services/${s.id}/api-key`, { key: s.account.accountKey });
    expect(reveal.body.data.apiKey).toBe(fresh);
  });
});
