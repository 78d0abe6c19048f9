import { Kysely, PostgresDialect, sql, type Insertable } from 'kysely';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrate, openDatabase, type Db } from '../../src/db/database.ts';
import { testDialect } from '../helpers/database.ts';
import type { ActiveKeysTable, Database } from '../../src/db/schema.ts';
import { writesOf } from '../../src/db/database.ts';
import { KeyTouches } from '../../src/modules/validation/key-touches.ts';
import { anotherInstance, useTestApp } from '../helpers/app.ts';
import { call, generateKeys, seedService, type SeededService } from '../helpers/seed.ts';
import { HOUR_MS } from '../helpers/records.ts';
import type { App } from '../../src/app.ts';

// A cold validation costs one read and no write: lastUsedAt goes through a batched flush (validation/key-touches.ts),
// within ANALYTICS_FLUSH_MS (2 s here; contract §7.5 allows 5 s), and the flush runs once more when the app closes.
const t = useTestApp();
// An instance whose flush job would not run during a test: only its close (or an explicit flush) writes.
const quietConfig = () => ({ ...t().config, analyticsFlushMs: 3_600_000 });

async function validate(app: App, s: SeededService, key: string, hwid = 'pc-1') {
  const res = await call(app, 'GET', `/api/v1/keys/validate?service=${s.identifier}&key=${key}&hwid=${hwid}`);
  expect(res.status).toBe(200);
  return res.body.data.code as string;
}

const lastUsedAt = async (key: string) =>
  (await t().ctx.db.selectFrom('activeKeys').select('lastUsedAt').where('key', '=', key).executeTakeFirstOrThrow()).lastUsedAt;

/** A key redeemed and bound to pc-1 at the current test time. */
async function boundKey(s: SeededService) {
  const [key] = await generateKeys(t().app, s.serviceKey);
  expect(await validate(t().app, s, key!)).toBe('KEY_VALID');
  return key!;
}

/** Active keys of the service, unbound and never used, written straight to the table. */
async function insertKeys(s: SeededService, keys: string[], now: number, lastUsedAt: number | null = null) {
  const row = (key: string): Insertable<ActiveKeysTable> => ({
    key,
    serviceId: s.id,
    hwid: null,
    note: null,
    isPremium: 0,
    noHwidValidation: 0,
    status: 'active',
    expiresAt: null,
    chatId: null,
    executions: 0,
    createdAt: now,
    activatedAt: now,
    lastUsedAt,
    hwidResetAt: null,
    hwidResetCount: 0,
    maxHwids: 1,
    hwidCount: 0,
  });
  for (let i = 0; i < keys.length; i += 500)
    await t()
      .ctx.db.insertInto('activeKeys')
      .values(keys.slice(i, i + 500).map(row))
      .execute();
}

/** Polls (real time) until `check` holds; fails after `ms`. */
async function within(ms: number, check: () => Promise<boolean>) {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`not within ${ms} ms`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('lastUsedAt of validated keys', () => {
  it('is written by the flush job within the lag allowed, not by the validation itself', async () => {
    const s = await seedService(t().ctx);
    const key = await boundKey(s);
    const redeemedAt = t().clock.now;
    t().clock.advance(60_000);
    const writes: string[] = [];
    const stop = writesOf(t().ctx.db)!.listen((write) => writes.push(`${write.kind} ${write.table}`));
    try {
      expect(await validate(t().app, s, key)).toBe('KEY_VALID');
    } finally {
      stop();
    }
    expect(writes).toEqual([]);
    expect(t().ctx.touches.size).toBeGreaterThan(0);
    // The app's own flush job (every 2 s here) writes it; 5 s is the contract's bound.
    await within(5000, async () => (await lastUsedAt(key)) !== redeemedAt);
    expect(await lastUsedAt(key)).toBe(t().clock.now);
  });

  it('is written when the instance closes, from a cold validation and from a cached verdict alike', async () => {
    const s = await seedService(t().ctx);
    const coldKey = await boundKey(s);
    const hotKey = await boundKey(s);
    const redeemedAt = t().clock.now;
    const quiet = await anotherInstance(t(), quietConfig());
    let closed = false;
    try {
      t().clock.advance(60_000);
      expect(await validate(quiet, s, coldKey)).toBe('KEY_VALID');
      expect(await validate(quiet, s, hotKey)).toBe('KEY_VALID');
      t().clock.advance(100); // within the verdict cache's TTL: answered from this instance's copy
      expect(await validate(quiet, s, hotKey)).toBe('KEY_VALID');
      expect(quiet.ctx.touches.size).toBe(2);
      expect(await lastUsedAt(coldKey)).toBe(redeemedAt);
      expect(await lastUsedAt(hotKey)).toBe(redeemedAt);
      await quiet.close();
      closed = true;
      expect(await lastUsedAt(coldKey)).toBe(t().clock.now - 100);
      expect(await lastUsedAt(hotKey)).toBe(t().clock.now);
    } finally {
      if (!closed) await quiet.close();
    }
  });

  it('is not written for a refused verdict', async () => {
    const s = await seedService(t().ctx);
    const key = await boundKey(s);
    const redeemedAt = t().clock.now;
    const quiet = await anotherInstance(t(), quietConfig());
    try {
      t().clock.advance(60_000);
      expect(await validate(quiet, s, key, 'someone-else')).toBe('KEY_HWID_LOCKED');
      expect(quiet.ctx.touches.size).toBe(0);
    } finally {
      await quiet.close();
    }
    expect(await lastUsedAt(key)).toBe(redeemedAt);
  });

  it('only moves forward when instances flush out of order', async () => {
    const s = await seedService(t().ctx);
    const key = await boundKey(s);
    const one = await anotherInstance(t(), quietConfig());
    const two = await anotherInstance(t(), quietConfig());
    try {
      t().clock.advance(60_000);
      const earlier = t().clock.now;
      expect(await validate(one, s, key)).toBe('KEY_VALID');
      t().clock.advance(60_000);
      const later = t().clock.now;
      expect(await validate(two, s, key)).toBe('KEY_VALID');
      await two.ctx.touches.flush(two.ctx.db, two.ctx.dialect);
      expect(await lastUsedAt(key)).toBe(later);
      await one.ctx.touches.flush(one.ctx.db, one.ctx.dialect);
      expect(await lastUsedAt(key)).toBe(later);
      expect(earlier).toBeLessThan(later);
    } finally {
      await one.close();
      await two.close();
    }
  });

  it('writes thousands of keys in a few statements, letting requests run between them, and skips keys deleted meanwhile', async () => {
    const s = await seedService(t().ctx);
    const now = t().clock.now;
    const keys = Array.from({ length: 1500 }, (_, i) => `touch${s.id.slice(0, 8)}${String(i).padStart(6, '0')}`);
    await insertKeys(s, keys, now);
    const touches = new KeyTouches();
    keys.forEach((key, i) => touches.touch(s.id, key, now + i));
    touches.touch(s.id, 'deleted-meanwhile-key', now);
    touches.touch(s.id, keys[0]!, now - 1); // an older time for the same key changes nothing
    // Other requests run between its statements (on SQLite each runs synchronously, on the event loop).
    let turns = 0;
    let flushed = false;
    const countTurn = () => {
      if (flushed) return;
      turns++;
      setImmediate(countTurn);
    };
    setImmediate(countTurn);
    await touches.flush(t().ctx.db, t().ctx.dialect);
    flushed = true;
    expect(turns).toBeGreaterThan(1);
    expect(touches.size).toBe(0);
    const stored = await t().ctx.db.selectFrom('activeKeys').select(['key', 'lastUsedAt']).where('serviceId', '=', s.id).execute();
    const byKey = new Map(stored.map((r) => [r.key, r.lastUsedAt]));
    expect(keys.every((key, i) => byKey.get(key) === now + i)).toBe(true);
  });

  it('never deadlocks when two instances flush the same keys at once, touched in opposite orders', async () => {
    const s = await seedService(t().ctx);
    const now = t().clock.now;
    const keys = Array.from({ length: 2000 }, (_, i) => `lock${s.id.slice(0, 8)}${String(i).padStart(6, '0')}`);
    await insertKeys(s, keys, now);
    const first = new KeyTouches();
    const second = new KeyTouches();
    keys.forEach((key, i) => first.touch(s.id, key, now + i));
    [...keys].reverse().forEach((key, i) => second.touch(s.id, key, now + i));
    // Each statement locks its rows in key order, so the two flushes wait for each other instead of deadlocking.
    await Promise.all([first.flush(t().ctx.db, t().ctx.dialect), second.flush(t().ctx.db, t().ctx.dialect)]);
    expect(first.size + second.size).toBe(0);
    const stored = await t().ctx.db.selectFrom('activeKeys').select(['key', 'lastUsedAt']).where('serviceId', '=', s.id).execute();
    const byKey = new Map(stored.map((r) => [r.key, r.lastUsedAt]));
    expect(keys.every((key, i) => byKey.get(key) === now + Math.max(i, keys.length - 1 - i))).toBe(true);
  });

  it("moves a key's place in the last-used sort at most once an hour", async () => {
    const s = await seedService(t().ctx);
    const hour = Math.floor(t().clock.now / HOUR_MS) * HOUR_MS;
    const keys = Array.from({ length: 3 }, (_, i) => `hour${s.id.slice(0, 8)}${String(i).padStart(6, '0')}`);
    await insertKeys(s, keys, hour, hour + 1000);
    // How many rows of active_keys a flush updated, and how many of those in place (HOT), which PostgreSQL can do
    // only when no indexed column changes. The backend's counts not yet sent to the statistics are read before
    // and after, in one transaction (they are sent only between transactions).
    const counts = async (trx: Db) => {
      const { rows } = await sql<{ updated: string; inPlace: string }>`select
          pg_stat_get_xact_tuples_updated('active_keys'::regclass) as updated,
          pg_stat_get_xact_tuples_hot_updated('active_keys'::regclass) as "inPlace"`.execute(trx);
      return { updated: Number(rows[0]!.updated), inPlace: Number(rows[0]!.inPlace) };
    };
    const flushCounting = (touched: [string, number][]) =>
      t()
        .ctx.db.transaction()
        .execute(async (trx) => {
          const touches = new KeyTouches();
          for (const [key, at] of touched) touches.touch(s.id, key, at);
          const before = t().ctx.dialect === 'postgres' ? await counts(trx) : null;
          await touches.flush(trx, t().ctx.dialect);
          if (!before) return null;
          const after = await counts(trx);
          return { updated: after.updated - before.updated, inPlace: after.inPlace - before.inPlace };
        });
    // Later in the same hour: only lastUsedAt changes, not the hour the sort's index holds. (Two rows: an in-place
    // update also needs room on the row's page, and the table's fill factor of 80 leaves room for a few.)
    const sameHour = await flushCounting(keys.slice(0, 2).map((key, i) => [key, hour + HOUR_MS - 1000 + i]));
    // Into the next hour: the hour changes with it.
    const nextHour = await flushCounting([[keys[2]!, hour + HOUR_MS + 5]]);
    if (t().ctx.dialect === 'postgres') {
      expect(sameHour).toEqual({ updated: 2, inPlace: 2 });
      expect(nextHour).toEqual({ updated: 1, inPlace: 0 });
    }
    const stored = await t()
      .ctx.db.selectFrom('activeKeys')
      .select(['key', 'lastUsedAt', 'lastUsedHour'])
      .where('key', 'in', keys)
      .orderBy('key')
      .execute();
    expect(stored.map((r) => [r.lastUsedAt, Number(r.lastUsedHour)])).toEqual([
      [hour + HOUR_MS - 1000, hour / HOUR_MS],
      [hour + HOUR_MS - 999, hour / HOUR_MS],
      [hour + HOUR_MS + 5, hour / HOUR_MS + 1],
    ]);
  });

  // SQLite rewrites the entry of every index on a column computed from an updated one, changed or not: with the hour a
  // generated column, each flushed key still rewrote its entry of the sort's index (migration 0035). What a flush
  // writes is counted in WAL frames, one per page, on a database of its own (no job or checkpoint writes beside it).
  it('on SQLite, writes no page of the last-used index while the hour stays', async () => {
    if (testDialect() !== 'sqlite') return; // PostgreSQL's side is the in-place count of the test above.
    const dir = mkdtempSync(join(tmpdir(), 'keyward-last-used-'));
    const handle = openDatabase({ databaseUrl: null, dataDir: dir });
    try {
      await migrate(handle.db);
      await sql`PRAGMA foreign_keys = OFF`.execute(handle.db);
      const hour = Math.floor(t().clock.now / HOUR_MS) * HOUR_MS;
      const keys = ['walk-a', 'walk-b', 'walk-c'];
      await sql`INSERT INTO active_keys (key, service_id, is_premium, no_hwid_validation, status, created_at, activated_at, last_used_at)
        SELECT value, 'svc', 0, 0, 'active', ${hour}, ${hour}, ${hour + 1000} FROM json_each(${JSON.stringify(keys)})`.execute(handle.db);
      const framesOf = async (touched: [string, number][]) => {
        await sql`PRAGMA wal_checkpoint(TRUNCATE)`.execute(handle.db);
        const touches = new KeyTouches();
        for (const [key, at] of touched) touches.touch('svc', key, at);
        await touches.flush(handle.db, 'sqlite');
        const { rows } = await sql<{ log: number }>`PRAGMA wal_checkpoint(PASSIVE)`.execute(handle.db);
        return rows[0]!.log;
      };
      // Later in the same hour: the table's one page. Into the next hour: the index's page too.
      expect(await framesOf(keys.map((key, i) => [key, hour + HOUR_MS - 1000 + i]))).toBe(1);
      expect(await framesOf([['walk-a', hour + HOUR_MS + 5]])).toBe(2);
      const stored = await sql<{ key: string; hour: number }>`SELECT key, last_used_hour AS hour FROM active_keys ORDER BY key`.execute(
        handle.db,
      );
      expect(stored.rows).toEqual([
        { key: 'walk-a', hour: hour / HOUR_MS + 1 },
        { key: 'walk-b', hour: hour / HOUR_MS },
        { key: 'walk-c', hour: hour / HOUR_MS },
      ]);
      // A key inserted with a last use (a redemption, an import) has its hour; one set back to none loses it.
      await sql`INSERT INTO active_keys (key, service_id, is_premium, no_hwid_validation, status, created_at, activated_at, last_used_at)
        VALUES ('walk-d', 'svc', 0, 0, 'active', ${hour}, ${hour}, ${hour + 2 * HOUR_MS})`.execute(handle.db);
      await sql`UPDATE active_keys SET last_used_at = NULL WHERE key = 'walk-b'`.execute(handle.db);
      const after = await sql<{ key: string; hour: number | null }>`SELECT key, last_used_hour AS hour FROM active_keys
        WHERE key IN ('walk-b', 'walk-d') ORDER BY key`.execute(handle.db);
      expect(after.rows).toEqual([
        { key: 'walk-b', hour: null },
        { key: 'walk-d', hour: hour / HOUR_MS + 2 },
      ]);
    } finally {
      await handle.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps what a failed flush could not write, for the next flush', async () => {
    const s = await seedService(t().ctx);
    const key = await boundKey(s);
    t().clock.advance(60_000);
    const touches = new KeyTouches();
    touches.touch(s.id, key, t().clock.now);
    // A database nobody listens on: the flush fails as on a lost connection.
    const pool = new pg.Pool({ connectionString: 'postgres://keyward@127.0.0.1:1/none', connectionTimeoutMillis: 2000 });
    pool.on('error', () => {});
    const broken = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }) as unknown as Db;
    try {
      await expect(touches.flush(broken, 'postgres')).rejects.toThrow();
    } finally {
      await broken.destroy();
    }
    expect(touches.size).toBe(1);
    await touches.flush(t().ctx.db, t().ctx.dialect);
    expect(touches.size).toBe(0);
    expect(await lastUsedAt(key)).toBe(t().clock.now);
  });
});
