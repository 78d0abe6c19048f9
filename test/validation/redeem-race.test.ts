import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../src/app.ts';
import { openDatabase, type DbHandle } from '../../src/db/database.ts';
import { useTestApp } from '../helpers/app.ts';
import { testDialect } from '../helpers/database.ts';
import { call, generateKeys, seedService, type SeededService } from '../helpers/seed.ts';

// Redemption is one statement on PostgreSQL (validation.repository.ts redeemGeneratedKey): races between instances,
// each with its own connections as separate processes would have, are settled by the database.
const t = useTestApp();
let second: App;
let secondHandle: DbHandle | undefined;

beforeAll(async () => {
  const { config, database, clock } = t();
  secondHandle = testDialect() === 'postgres' ? openDatabase({ databaseUrl: database.env.DATABASE_URL!, dataDir: '' }) : undefined;
  second = await buildApp({ config, database: secondHandle ?? database.handle, clock: clock.read, logger: false });
  await second.ready();
});
afterAll(async () => {
  await second?.close();
  await secondHandle?.close();
});

async function validate(app: App, s: SeededService, key: string, hwid: string) {
  const res = await call(app, 'GET', `/api/v1/keys/validate?service=${s.identifier}&key=${key}&hwid=${encodeURIComponent(hwid)}`);
  expect(res.status).toBe(200);
  return res.body.data as { valid: boolean; code: string };
}

const stored = async (key: string) => {
  const db = t().ctx.db;
  return {
    generated: await db.selectFrom('generatedKeys').select('key').where('key', '=', key).executeTakeFirst(),
    active: await db.selectFrom('activeKeys').select(['hwid', 'hwidCount']).where('key', '=', key).executeTakeFirst(),
    hwids: (await db.selectFrom('keyHwids').select('hwid').where('key', '=', key).execute()).map((r) => r.hwid),
  };
};

describe('redeeming a generated key', () => {
  it('lets exactly one of many HWIDs racing on two instances win, binding it once', async () => {
    const s = await seedService(t().ctx);
    for (let round = 0; round < 4; round++) {
      const [key] = await generateKeys(t().app, s.serviceKey);
      const hwids = Array.from({ length: 8 }, (_, i) => `racer-${round}-${i}`);
      const verdicts = await Promise.all(hwids.map((hwid, i) => validate(i % 2 ? second : t().app, s, key!, hwid)));
      const winners = hwids.filter((_, i) => verdicts[i]!.valid);
      expect(winners).toHaveLength(1);
      expect(verdicts.filter((v) => v.code === 'KEY_HWID_LOCKED')).toHaveLength(7);
      expect(await stored(key!)).toEqual({ generated: undefined, active: { hwid: winners[0], hwidCount: 1 }, hwids: [winners[0]] });
    }
  });

  it('answers valid to every request of the same HWID racing with itself, binding it once', async () => {
    const s = await seedService(t().ctx);
    const [key] = await generateKeys(t().app, s.serviceKey);
    const verdicts = await Promise.all(Array.from({ length: 6 }, (_, i) => validate(i % 2 ? second : t().app, s, key!, 'same-pc')));
    expect(verdicts.map((v) => v.code)).toEqual(Array(6).fill('KEY_VALID'));
    expect(await stored(key!)).toEqual({ generated: undefined, active: { hwid: 'same-pc', hwidCount: 1 }, hwids: ['same-pc'] });
  });

  it('redeems nothing for an HWID under a ban, and the key stays redeemable by another', async () => {
    const s = await seedService(t().ctx);
    const [key] = await generateKeys(t().app, s.serviceKey);
    const banned = await call(t().app, 'POST', '/api/v1/keys/api/blacklist', { key: s.serviceKey, body: { hwid: 'banned-pc' } });
    expect(banned.status).toBeLessThan(300);
    expect((await validate(t().app, s, key!, 'banned-pc')).code).toBe('HWID_BLACKLISTED');
    expect(await stored(key!)).toEqual({ generated: { key }, active: undefined, hwids: [] });
    expect((await validate(second, s, key!, 'good-pc')).code).toBe('KEY_VALID');
    expect(await stored(key!)).toEqual({ generated: undefined, active: { hwid: 'good-pc', hwidCount: 1 }, hwids: ['good-pc'] });
  });

  it('keeps analytics exact: one redemption per key however many raced', async () => {
    const s = await seedService(t().ctx);
    const keys = await generateKeys(t().app, s.serviceKey, { expirationType: 'lifetime', count: 3 });
    expect(keys).toHaveLength(3);
    for (const key of keys) await Promise.all(['a', 'b', 'c', 'd'].map((hwid, i) => validate(i % 2 ? second : t().app, s, key, hwid)));
    await t().ctx.analytics.flush(t().ctx.db);
    await second.ctx.analytics.flush(second.ctx.db);
    const rows = await t().ctx.db.selectFrom('analyticsBuckets').select('redemptions').where('serviceId', '=', s.id).execute();
    expect(rows.reduce((sum, row) => sum + Number(row.redemptions), 0)).toBe(3);
  });
});
