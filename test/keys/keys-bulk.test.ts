import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, generateKeys, seedService, type SeededService } from '../helpers/seed.ts';
import { DAY_MS, expectError, expectValidationError, redeem, serviceSeeder } from '../helpers/records.ts';

// Contract §7.3: POST /keys/api/keys/bulk, one transaction, notFound/skipped.
const t = useTestApp();
const newService = serviceSeeder(t);

const bulk = (s: SeededService, body: unknown, key = s.serviceKey) => call(t().app, 'POST', '/api/v1/keys/api/keys/bulk', { key, body });
const db = () => t().ctx.db;
const activeRow = (key: string) => db().selectFrom('activeKeys').selectAll().where('key', '=', key).executeTakeFirst();
const generatedRow = (key: string) => db().selectFrom('generatedKeys').selectAll().where('key', '=', key).executeTakeFirst();

/** Two active keys (one bound to an HWID, one not yet bound… after a reset) and two generated keys. */
async function mix(s: SeededService) {
  const [a1, a2, g1, g2] = await generateKeys(t().app, s.serviceKey, { expirationType: 'byDays', days: 10, count: 4 });
  await redeem(t().app, s.identifier, a1!, 'hw-1');
  await redeem(t().app, s.identifier, a2!, 'hw-2');
  return { a1: a1!, a2: a2!, g1: g1!, g2: g2! };
}

describe('POST /keys/api/keys/bulk', () => {
  it('bans, pauses and activates keys of both kinds, listing unknown ones as notFound', async () => {
    const s = await newService();
    const { a1, g1 } = await mix(s);
    const res = await bulk(s, { action: 'ban', keys: [a1, g1, 'NoSuchKey123'] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toEqual({ action: 'ban', updated: 2, notFound: ['NoSuchKey123'], skipped: [] });
    expect((await activeRow(a1))!.status).toBe('banned');
    expect((await generatedRow(g1))!.status).toBe('banned');
    await bulk(s, { action: 'pause', keys: [a1] });
    expect((await activeRow(a1))!.status).toBe('paused');
    await bulk(s, { action: 'activate', keys: [a1, g1] });
    expect((await activeRow(a1))!.status).toBe('active');
    expect((await generatedRow(g1))!.status).toBe('active');
  });

  it('deletes keys of both kinds with their HWIDs', async () => {
    const s = await newService();
    const { a1, g1, g2 } = await mix(s);
    const res = await bulk(s, { action: 'delete', keys: [a1, g1] });
    expect(res.body.data).toEqual({ action: 'delete', updated: 2, notFound: [], skipped: [] });
    expect(await activeRow(a1)).toBeUndefined();
    expect(await generatedRow(g1)).toBeUndefined();
    expect(await generatedRow(g2)).toBeDefined();
    expect(await db().selectFrom('keyHwids').select('hwid').where('key', '=', a1).execute()).toEqual([]);
  });

  it('resets HWIDs without the end-user cooldown, skipping keys with nothing bound', async () => {
    const s = await newService();
    const { a1, a2, g1 } = await mix(s);
    // The end-user reset starts a cooldown; the seller is not held to it.
    expect((await call(t().app, 'POST', '/api/v1/keys/reset-hwid', { key: s.serviceKey, body: { key: a2 } })).status).toBe(200);
    await redeem(t().app, s.identifier, a2, 'hw-3');
    const res = await bulk(s, { action: 'resetHwid', keys: [a1, a2, g1] });
    expect(res.body.data).toEqual({ action: 'resetHwid', updated: 2, notFound: [], skipped: [g1] });
    for (const key of [a1, a2]) expect(await activeRow(key)).toMatchObject({ hwid: null, hwidCount: 0 });
    expect(await db().selectFrom('keyHwids').select('hwid').where('key', 'in', [a1, a2]).execute()).toEqual([]);
    await redeem(t().app, s.identifier, a1, 'another-pc');
    const again = await bulk(s, { action: 'resetHwid', keys: [a2] });
    expect(again.body.data).toMatchObject({ updated: 0, skipped: [a2] });
  });

  it('extends as extend-expiration does and leaves lifetime keys alone in skipped', async () => {
    const s = await newService();
    const { a1, g1 } = await mix(s);
    const [lifetime] = await generateKeys(t().app, s.serviceKey, { expirationType: 'lifetime' });
    const before = (await activeRow(a1))!.expiresAt!;
    const res = await bulk(s, { action: 'extend', keys: [a1, g1, lifetime], days: 5 });
    expect(res.body.data).toEqual({ action: 'extend', updated: 2, notFound: [], skipped: [lifetime] });
    expect((await activeRow(a1))!.expiresAt).toBe(before + 5 * DAY_MS);
    expect((await generatedRow(g1))!.expiresAt).toBe(before + 5 * DAY_MS);
    expect((await generatedRow(lifetime!))!.expiresAt).toBeNull();
    // An expired key restarts from now.
    t().clock.advance(20 * DAY_MS);
    await bulk(s, { action: 'extend', keys: [a1], days: 1 });
    expect((await activeRow(a1))!.expiresAt).toBe(t().clock.now + DAY_MS);
  });

  it('sets a note, and an empty note clears it', async () => {
    const s = await newService();
    const { a1, g1 } = await mix(s);
    expect((await bulk(s, { action: 'setNote', keys: [a1, g1], note: 'reseller batch' })).body.data.updated).toBe(2);
    expect((await activeRow(a1))!.note).toBe('reseller batch');
    expect((await generatedRow(g1))!.note).toBe('reseller batch');
    await bulk(s, { action: 'setNote', keys: [a1], note: '' });
    expect((await activeRow(a1))!.note).toBeNull();
  });

  it('refuses an extension past the last representable time and changes nothing', async () => {
    const s = await newService();
    const [early] = await generateKeys(t().app, s.serviceKey, { expirationType: 'byDays', days: 1 });
    const [late] = await generateKeys(t().app, s.serviceKey, { expirationType: 'byDate', expiresAt: '9999-12-30T00:00:00.000Z' });
    await redeem(t().app, s.identifier, early!, 'hw');
    const before = (await activeRow(early!))!.expiresAt;
    expectValidationError(await bulk(s, { action: 'extend', keys: [early, late], days: 10 }), 'days');
    expect((await activeRow(early!))!.expiresAt).toBe(before);
  });

  it('is all or nothing: a database failure part-way rolls back what it already changed, audit entry included', async () => {
    const s = await newService();
    const { a1, g1 } = await mix(s);
    // Active keys are written before generated ones; this trigger makes the generated half fail.
    if (t().ctx.dialect === 'sqlite') {
      await sql`CREATE TRIGGER refuse_boom BEFORE UPDATE ON generated_keys WHEN NEW.note = 'boom' BEGIN SELECT RAISE(ABORT, 'boom'); END`.execute(
        db(),
      );
    } else {
      await sql`CREATE FUNCTION refuse_boom() RETURNS trigger AS $$ BEGIN IF NEW.note = 'boom' THEN RAISE EXCEPTION 'boom'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`.execute(
        db(),
      );
      await sql`CREATE TRIGGER refuse_boom BEFORE UPDATE ON generated_keys FOR EACH ROW EXECUTE FUNCTION refuse_boom()`.execute(db());
    }
    const res = await bulk(s, { action: 'setNote', keys: [a1, g1], note: 'boom' });
    expectError(res, 500, 'INTERNAL_ERROR');
    expect((await activeRow(a1))!.note).toBeNull();
    expect((await generatedRow(g1))!.note).toBeNull();
    const audit = await db()
      .selectFrom('auditLog')
      .select('action')
      .where('serviceId', '=', s.id)
      .where('action', '=', 'keys.bulk')
      .execute();
    expect(audit).toEqual([]);
  });

  it('writes one keys.bulk audit entry with the counts', async () => {
    const s = await newService();
    const { a1, g1 } = await mix(s);
    await bulk(s, { action: 'pause', keys: [a1, g1, 'MissingKey00'] });
    const entries = await db().selectFrom('auditLog').selectAll().where('serviceId', '=', s.id).where('action', '=', 'keys.bulk').execute();
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ actorKind: 'service-key', accountId: s.account.id, target: null });
    expect(JSON.parse(entries[0]!.details)).toEqual({ action: 'pause', updated: 2, notFound: 1, skipped: 0 });
  });

  it("counts another service's keys as notFound and never touches them", async () => {
    const s = await newService();
    const other = await seedService(t().ctx);
    const [theirs] = await generateKeys(t().app, other.serviceKey);
    const res = await bulk(s, { action: 'delete', keys: [theirs] });
    expect(res.body.data).toEqual({ action: 'delete', updated: 0, notFound: [theirs], skipped: [] });
    expect(await generatedRow(theirs!)).toBeDefined();
  });

  it('needs allowManageKeys on a service key', async () => {
    const s = await newService();
    await db().updateTable('services').set({ allowManageKeys: 0 }).where('id', '=', s.id).execute();
    const res = await bulk(s, { action: 'ban', keys: ['SomeKey0001'] });
    expectError(res, 403, 'PERMISSION_DENIED');
    expect(res.body.error).toBe('This API key is not permitted for this action (allowManageKeys)');
  });

  it.each([
    ['action', { action: 'explode', keys: ['SomeKey0001'] }],
    ['action', { keys: ['SomeKey0001'] }],
    ['keys', { action: 'ban', keys: [] }],
    ['keys', { action: 'ban', keys: ['SomeKey0001', 'SomeKey0001'] }],
    ['keys', { action: 'ban', keys: Array.from({ length: 1001 }, (_, i) => `SomeKey${String(i).padStart(5, '0')}`) }],
    ['keys', { action: 'ban', keys: 'SomeKey0001' }],
    ['keys.0', { action: 'ban', keys: ['bad key!'] }],
    ['days', { action: 'extend', keys: ['SomeKey0001'] }],
    ['days', { action: 'extend', keys: ['SomeKey0001'], days: 0 }],
    ['days', { action: 'extend', keys: ['SomeKey0001'], days: '5' }],
    // Contract §19: a ban takes days (its end); a pause does not.
    ['days', { action: 'pause', keys: ['SomeKey0001'], days: 5 }],
    ['note', { action: 'setNote', keys: ['SomeKey0001'] }],
    ['note', { action: 'setNote', keys: ['SomeKey0001'], note: 'x'.repeat(257) }],
    ['colour', { action: 'ban', keys: ['SomeKey0001'], colour: 'red' }],
  ])('refuses a bad %s', async (field, body) => {
    const s = await newService();
    expectValidationError(await bulk(s, body), field);
  });
});
