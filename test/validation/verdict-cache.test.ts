import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../src/app.ts';
import { openDatabase, writesOf, type DbHandle } from '../../src/db/database.ts';
import { InvalidatingCache } from '../../src/db/invalidating-cache.ts';
import type { InvalidationBus } from '../../src/db/invalidation.ts';
import { useTestApp } from '../helpers/app.ts';
import { testDialect } from '../helpers/database.ts';
import { call, generateKeys, seedService } from '../helpers/seed.ts';

// Every instance keeps what judging a key read for VERDICT_CACHE_MS (modules/validation/verdict-cache.ts).
// Here the copies live as long as the test clock is not moved, so only an invalidation can drop them.
const t = useTestApp();
let second: App;
let secondHandle: DbHandle | undefined;

beforeAll(async () => {
  const { config, database, clock } = t();
  // On PostgreSQL a second instance has its own pool and hears of changes only through NOTIFY, as another
  // process would; on SQLite instances share one process's database handle, as they must.
  secondHandle = testDialect() === 'postgres' ? openDatabase({ databaseUrl: database.env.DATABASE_URL!, dataDir: '' }) : undefined;
  second = await buildApp({
    config: { ...config, verdictCacheMs: 60_000 },
    database: secondHandle ?? database.handle,
    clock: clock.read,
    logger: false,
  });
  await second.ready();
});
afterAll(async () => {
  await second?.close();
  await secondHandle?.close();
});

async function verdict(app: App, service: string, key: string, hwid = 'pc-1') {
  const res = await call(app, 'GET', `/api/v1/keys/validate?service=${service}&key=${encodeURIComponent(key)}&hwid=${hwid}`);
  expect(res.status).toBe(200);
  return res.body.data.code as string;
}

/** Polls (no sleeps): the other instance learns of a change asynchronously. */
async function within(deadlineMs: number, check: () => Promise<boolean>) {
  const until = Date.now() + deadlineMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`not seen within ${deadlineMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function redeemed() {
  const s = await seedService(t().ctx);
  const [key] = await generateKeys(t().app, s.serviceKey);
  expect(await verdict(t().app, s.identifier, key!)).toBe('KEY_VALID');
  // The second instance now holds a copy of the active key.
  expect(await verdict(second, s.identifier, key!)).toBe('KEY_VALID');
  return { s, key: key! };
}

describe('cached verdict inputs', () => {
  it('shows a ban made on one instance in the verdicts of another within a second', async () => {
    const { s, key } = await redeemed();
    const ban = await call(t().app, 'PUT', '/api/v1/keys/api/key', { key: s.serviceKey, body: { key, status: 'banned' } });
    expect(ban.status).toBe(200);
    await within(1000, async () => (await verdict(second, s.identifier, key)) === 'KEY_BANNED');
    expect(await verdict(t().app, s.identifier, key)).toBe('KEY_BANNED');
  });

  it('shows a deleted key, a reset HWID and a blacklisted HWID on the other instance within a second', async () => {
    const { s, key } = await redeemed();
    const blacklisted = await call(t().app, 'POST', '/api/v1/keys/api/blacklist', { key: s.serviceKey, body: { hwid: 'pc-1' } });
    expect(blacklisted.status).toBe(201);
    await within(1000, async () => (await verdict(second, s.identifier, key)) === 'HWID_BLACKLISTED');

    const { s: s2, key: key2 } = await redeemed();
    const reset = await call(t().app, 'POST', '/api/v1/keys/reset-hwid', { key: s2.serviceKey, body: { key: key2 } });
    expect(reset.status).toBe(200);
    // Unbound again: another PC now binds it.
    await within(1000, async () => (await verdict(second, s2.identifier, key2, 'pc-2')) === 'KEY_VALID');

    const { s: s3, key: key3 } = await redeemed();
    const deleted = await call(t().app, 'DELETE', `/api/v1/keys/api/key?key=${encodeURIComponent(key3)}`, { key: s3.serviceKey });
    expect(deleted.status).toBe(200);
    await within(1000, async () => (await verdict(second, s3.identifier, key3)) === 'KEY_INCORRECT');
  });

  it('answers from its copy until the copy expires when a change bypasses the app', async () => {
    const { s, key } = await redeemed();
    expect(await verdict(t().app, s.identifier, key)).toBe('KEY_VALID'); // now this instance holds a copy too
    // Raw SQL is not seen by the write observer (only migrations write that way): the copy stays.
    await sql`update active_keys set status = 'paused' where key = ${key}`.execute(t().ctx.db);
    expect(await verdict(t().app, s.identifier, key)).toBe('KEY_VALID');
    t().clock.advance(t().config.verdictCacheMs + 1);
    expect(await verdict(t().app, s.identifier, key)).toBe('KEY_PAUSED');
  });

  it('is not dropped by what validation itself writes, and a verdict still binds a new HWID through the database', async () => {
    const { s, key } = await redeemed();
    const limited = await call(t().app, 'PUT', '/api/v1/keys/api/key', { key: s.serviceKey, body: { key, maxHwids: 2 } });
    expect(limited.status).toBe(200);
    t().clock.advance(5000); // lastUsedAt is written again (once a second at most): not a change of verdict
    expect(await verdict(t().app, s.identifier, key, 'pc-2')).toBe('KEY_VALID');
    expect(await verdict(second, s.identifier, key, 'pc-3')).toBe('KEY_HWID_LOCKED');
    const row = await t()
      .ctx.db.selectFrom('activeKeys')
      .select(['hwidCount', 'lastUsedAt'])
      .where('key', '=', key)
      .executeTakeFirstOrThrow();
    expect(row.hwidCount).toBe(2);
    expect(row.lastUsedAt).toBe(t().clock.now);
  });

  it('lets concurrent calls that find their copy expired share one read, and write nothing until the flush', async () => {
    const { s, key } = await redeemed();
    t().clock.advance(5000); // the copy has expired and lastUsedAt is due again
    const writes: string[] = [];
    const stop = writesOf(t().ctx.db)!.listen((write) => {
      if (write.table === 'active_keys') writes.push(write.kind);
    });
    try {
      const codes = await Promise.all(Array.from({ length: 20 }, () => verdict(t().app, s.identifier, key)));
      expect(codes).toEqual(Array(20).fill('KEY_VALID'));
    } finally {
      stop();
    }
    // Each call queued its own UPDATE of the same row once (twenty lock waits on PostgreSQL); then one per copy.
    // Now lastUsedAt goes through the batched flush (validation/key-touches.ts), which writes it once.
    expect(writes).toEqual([]);
    await t().ctx.touches.flush(t().ctx.db, t().ctx.dialect);
    const row = await t().ctx.db.selectFrom('activeKeys').select('lastUsedAt').where('key', '=', key).executeTakeFirstOrThrow();
    expect(row.lastUsedAt).toBe(t().clock.now);
  });
});

describe('InvalidatingCache', () => {
  const bus = { subscribe: () => {}, publish: async () => {} } as unknown as InvalidationBus;
  const deferred = () => {
    let resolve!: (value: string) => void;
    const promise = new Promise<string>((r) => (resolve = r));
    return { promise, resolve };
  };

  it('gives callers missing the same key at once one load', async () => {
    const cache = new InvalidatingCache<string>({ bus, clock: () => 0 }, 't', 1000, 10);
    const first = deferred();
    let loads = 0;
    const load = () => (loads++, first.promise);
    const waiting = [cache.get('k', load), cache.get('k', load), cache.get('k', load)];
    first.resolve('v1');
    expect(await Promise.all(waiting)).toEqual(['v1', 'v1', 'v1']);
    expect(loads).toBe(1);
    expect(cache.peek('k')).toBe('v1');
  });

  it('never hands a caller after an invalidation the read that began before it', async () => {
    const cache = new InvalidatingCache<string>({ bus, clock: () => 0 }, 't', 1000, 10);
    const before = deferred();
    const early = cache.get('k', () => before.promise);
    cache.invalidate('k');
    const late = cache.get('k', async () => 'after');
    before.resolve('before');
    expect(await early).toBe('before');
    expect(await late).toBe('after');
    // The read that raced the invalidation is not kept; the later one is, and a third caller is not sent back to the old one.
    expect(cache.peek('k')).toBe('after');
  });
});
