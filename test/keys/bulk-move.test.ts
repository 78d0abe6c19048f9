import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, generateKeys, seedService } from '../helpers/seed.ts';
import { expectValidationError, redeem } from '../helpers/records.ts';

// Issue 22 item 6: keys are unique per server, so a seller moves keys between their own services (bulk `move`
// with `toService`), all in one transaction, audited on both services.
const t = useTestApp();
const bulk = (serviceKey: string, body: unknown) => call(t().app, 'POST', '/api/v1/keys/api/keys/bulk', { key: serviceKey, body });

describe('POST /keys/api/keys/bulk action move', () => {
  it('moves active keys with their HWIDs and generated keys to another service of the same account', async () => {
    const from = await seedService(t().ctx);
    const to = await seedService(t().ctx, from.account);
    const [bound, unused] = await generateKeys(t().app, from.serviceKey, { expirationType: 'lifetime', count: 2 });
    await redeem(t().app, from.id, bound!, 'pc-1');
    const res = await bulk(from.serviceKey, { action: 'move', keys: [bound, unused, 'NoSuchKey01'], toService: to.identifier });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ action: 'move', updated: 2, notFound: ['NoSuchKey01'], skipped: [] });
    expect(
      (await t().ctx.db.selectFrom('activeKeys').select('serviceId').where('key', '=', bound!).executeTakeFirstOrThrow()).serviceId,
    ).toBe(to.id);
    expect(
      (await t().ctx.db.selectFrom('generatedKeys').select('serviceId').where('key', '=', unused!).executeTakeFirstOrThrow()).serviceId,
    ).toBe(to.id);
    expect(await t().ctx.db.selectFrom('keyHwids').select(['serviceId', 'hwid']).where('key', '=', bound!).execute()).toEqual([
      { serviceId: to.id, hwid: 'pc-1' },
    ]);
    // The key answers for its new service, bound as before, and no longer for the old one.
    const there = await call(t().app, 'GET', `/api/v1/keys/validate?service=${to.identifier}&key=${bound}&hwid=pc-1`);
    expect(there.body.data).toMatchObject({ valid: true, code: 'KEY_VALID' });
    const gone = await call(t().app, 'GET', `/api/v1/keys/validate?service=${from.identifier}&key=${bound}&hwid=pc-1`);
    expect(gone.body.data).toMatchObject({ valid: false, code: 'KEY_INCORRECT' });
    for (const s of [from, to]) {
      const log = await call(t().app, 'GET', '/api/v1/keys/api/audit?action=keys.bulk', { key: s.serviceKey });
      expect(log.body.data.items).toHaveLength(1);
      expect(log.body.data.items[0].details).toMatchObject({ action: 'move', updated: 2, toService: to.identifier });
    }
  });

  it('refuses another account’s service as a 404 and moves nothing; refuses a missing or same target', async () => {
    const from = await seedService(t().ctx);
    const stranger = await seedService(t().ctx);
    const [key] = await generateKeys(t().app, from.serviceKey, { expirationType: 'lifetime' });
    const res = await bulk(from.serviceKey, { action: 'move', keys: [key], toService: stranger.identifier });
    expect(res.status).toBe(404);
    expect(
      (await t().ctx.db.selectFrom('generatedKeys').select('serviceId').where('key', '=', key!).executeTakeFirstOrThrow()).serviceId,
    ).toBe(from.id);
    expectValidationError(await bulk(from.serviceKey, { action: 'move', keys: [key] }), 'toService');
    expectValidationError(await bulk(from.serviceKey, { action: 'move', keys: [key], toService: from.id }), 'toService');
    expectValidationError(await bulk(from.serviceKey, { action: 'ban', keys: [key], toService: from.id }), 'toService');
  });
});
