import { describe, expect, it } from 'vitest';
import { DAY_MS, LATEST_TIME_MS } from '../../src/lib/time.ts';
import { useTestApp } from '../helpers/app.ts';
import { call, generateKeys, seedService } from '../helpers/seed.ts';

const t = useTestApp();
const EXTEND = '/api/v1/keys/api/key/extend-expiration';

describe('extending a key', () => {
  it('counts every one of many extensions sent at once (none overwrites another)', async () => {
    const s = await seedService(t().ctx);
    const [key] = await generateKeys(t().app, s.serviceKey, { expirationType: 'byDays', days: 1 });
    const before = await t().ctx.db.selectFrom('generatedKeys').select('expiresAt').where('key', '=', key!).executeTakeFirstOrThrow();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => call(t().app, 'POST', EXTEND, { key: s.serviceKey, body: { key, days: 2 } })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    const after = await t().ctx.db.selectFrom('generatedKeys').select('expiresAt').where('key', '=', key!).executeTakeFirstOrThrow();
    expect(after.expiresAt).toBe(before.expiresAt! + 20 * 2 * DAY_MS);
    const audit = await t()
      .ctx.db.selectFrom('auditLog')
      .select('id')
      .where('serviceId', '=', s.id)
      .where('action', '=', 'key.extend')
      .execute();
    expect(audit).toHaveLength(20);
  });

  it('counts every one of many extensions of an active (redeemed) key sent at once', async () => {
    const s = await seedService(t().ctx);
    const [key] = await generateKeys(t().app, s.serviceKey, { expirationType: 'byDays', days: 1 });
    // The first validation redeems the generated key: from then on it is an active key.
    const redeemed = await call(t().app, 'GET', `/api/v1/keys/validate?service=${s.identifier}&key=${key}&hwid=pc-1`);
    expect(redeemed.status).toBe(200);
    const before = await t().ctx.db.selectFrom('activeKeys').select('expiresAt').where('key', '=', key!).executeTakeFirstOrThrow();
    expect(await t().ctx.db.selectFrom('generatedKeys').select('key').where('key', '=', key!).executeTakeFirst()).toBeUndefined();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => call(t().app, 'POST', EXTEND, { key: s.serviceKey, body: { key, days: 2 } })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    const after = await t().ctx.db.selectFrom('activeKeys').select('expiresAt').where('key', '=', key!).executeTakeFirstOrThrow();
    expect(after.expiresAt).toBe(before.expiresAt! + 20 * 2 * DAY_MS);
    const audit = await t()
      .ctx.db.selectFrom('auditLog')
      .select('details')
      .where('serviceId', '=', s.id)
      .where('action', '=', 'key.extend')
      .execute();
    expect(audit).toHaveLength(20);
    const details = audit.map((row) => (typeof row.details === 'string' ? JSON.parse(row.details) : row.details) as { type: string });
    expect(details.map((d) => d.type)).toEqual(Array(20).fill('active'));
  });

  it('leaves the key and the audit log as they were when the extension would pass the latest time', async () => {
    const s = await seedService(t().ctx);
    const [key] = await generateKeys(t().app, s.serviceKey, { expirationType: 'byDays', days: 1 });
    const nearTheEnd = LATEST_TIME_MS - DAY_MS;
    await t().ctx.db.updateTable('generatedKeys').set({ expiresAt: nearTheEnd }).where('key', '=', key!).execute();
    const refused = await call(t().app, 'POST', EXTEND, { key: s.serviceKey, body: { key, days: 2 } });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: 'VALIDATION_ERROR', field: 'days' });
    const after = await t().ctx.db.selectFrom('generatedKeys').select('expiresAt').where('key', '=', key!).executeTakeFirstOrThrow();
    expect(after.expiresAt).toBe(nearTheEnd);
    const audit = await t()
      .ctx.db.selectFrom('auditLog')
      .select('id')
      .where('serviceId', '=', s.id)
      .where('action', '=', 'key.extend')
      .execute();
    expect(audit).toHaveLength(0);
  });
});
