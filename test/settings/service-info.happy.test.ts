import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, generateKeys, seedService } from '../helpers/seed.ts';
import { HOUR_MS } from '../../src/lib/time.ts';

const t = useTestApp();

describe('GET /api/v1/keys/api/service/info', () => {
  it('describes the service of the key', async () => {
    const s = await seedService(t().ctx);
    const row = await t().ctx.db.selectFrom('services').selectAll().where('id', '=', s.id).executeTakeFirstOrThrow();
    const res = await call(t().app, 'GET', '/api/v1/keys/api/service/info', { key: s.serviceKey });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: s.id, identifier: s.identifier, name: row.name, createdAt: '2026-11-22T10:00:00.000Z' });
    expect(Object.keys(res.body.data).sort()).toEqual(['createdAt', 'id', 'identifier', 'name', 'settings']);
  });
});

describe('GET /api/v1/keys/api/service/status', () => {
  it('counts active and generated keys, keyless entries, bans in force and executions', async () => {
    const s = await seedService(t().ctx);
    const [redeemed] = await generateKeys(t().app, s.serviceKey, { expirationType: 'lifetime', count: 3 });
    await call(t().app, 'GET', `/api/v1/keys/validate?service=${s.id}&key=${redeemed}&hwid=pc-1`);
    await call(t().app, 'POST', '/api/v1/keys/api/keyless', { key: s.serviceKey, body: { hwid: 'kl-1' } });
    await call(t().app, 'POST', '/api/v1/keys/api/blacklist', { key: s.serviceKey, body: { hwid: 'b-perm' } });
    await call(t().app, 'POST', '/api/v1/keys/api/blacklist', {
      key: s.serviceKey,
      body: { hwid: 'b-temp', expiresAt: t().clock.now + HOUR_MS },
    });
    await call(t().app, 'POST', '/api/v1/keys/api/execution', { key: s.serviceKey, body: {} });
    await call(t().app, 'POST', '/api/v1/keys/api/execution', { key: s.serviceKey, body: {} });

    const res = await call(t().app, 'GET', '/api/v1/keys/api/service/status', { key: s.serviceKey });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      activeKeys: 1,
      generatedKeys: 2,
      keylessEntries: 1,
      blacklistedHwids: 2,
      totalExecutions: 2,
      liveSessions: 0,
    });

    t().clock.advance(HOUR_MS);
    const later = await call(t().app, 'GET', '/api/v1/keys/api/service/status', { key: s.serviceKey });
    expect(later.body.data.blacklistedHwids).toBe(1);
  });

  it('counts nothing of other services', async () => {
    const busy = await seedService(t().ctx);
    await generateKeys(t().app, busy.serviceKey, { expirationType: 'lifetime', count: 2 });
    await call(t().app, 'POST', '/api/v1/keys/api/blacklist', { key: busy.serviceKey, body: { hwid: 'x' } });
    const quiet = await seedService(t().ctx);
    const res = await call(t().app, 'GET', '/api/v1/keys/api/service/status', { key: quiet.serviceKey });
    expect(res.body.data).toEqual({
      activeKeys: 0,
      generatedKeys: 0,
      keylessEntries: 0,
      blacklistedHwids: 0,
      totalExecutions: 0,
      liveSessions: 0,
    });
  });
});
