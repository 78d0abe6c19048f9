import { describe, expect, it, vi } from 'vitest';
import type { App } from '../../src/app.ts';
import { HOUR_MS } from '../../src/lib/time.ts';
import { AnalyticsAggregator } from '../../src/modules/analytics/aggregator.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { anotherInstance, useTestApp } from '../helpers/app.ts';
import { call, generateKeys, seedService, type SeededService } from '../helpers/seed.ts';
import { fetchScript, uploadScript } from '../scripts/script-helpers.ts';

const t = useTestApp();
const ANALYTICS = '/api/v1/keys/api/analytics';

const validate = (s: SeededService, query: Record<string, string>, app = t().app) =>
  call(app, 'GET', `/api/v1/keys/validate?${new URLSearchParams({ service: s.identifier, ...query })}`);

async function analytics(s: SeededService, query: Record<string, string>) {
  const res = await call(t().app, 'GET', `${ANALYTICS}?${new URLSearchParams(query)}`, { key: s.serviceKey });
  expect(res.status).toBe(200);
  return res.body.data;
}

describe('GET /keys/api/analytics', () => {
  it('counts verdicts (validate, fetch, Lua check), codes, redemptions and executions per aligned hour, zeros included', async () => {
    const { ctx, clock } = t();
    const s = await seedService(ctx);
    const script = await uploadScript(t().app, s, { name: 'game', code: 'print("x")' });
    const [key] = await generateKeys(t().app, s.serviceKey);
    const start = clock.now; // 10:00 UTC
    clock.advance(15 * 60_000); // 10:15
    expect((await validate(s, { key: key!, hwid: 'h1' })).body.data.code).toBe('KEY_VALID'); // redeems
    await validate(s, { key: key!, hwid: 'h2' }); // KEY_HWID_LOCKED
    await validate(s, { key: 'nope', hwid: 'h1' }); // KEY_INCORRECT
    clock.advance(2 * HOUR_MS); // 12:15
    expect((await fetchScript(t().app, script.id, { key: key!, hwid: 'h1' })).status).toBe(200);
    expect((await call(t().app, 'GET', `/api/v1/lua/check/${script.id}?key=${key}&hwid=h3`)).body.data.code).toBe('KEY_HWID_LOCKED');
    expect((await call(t().app, 'POST', '/api/v1/keys/api/execution', { key: s.serviceKey })).status).toBe(200);
    await ctx.analytics.flush(ctx.db);

    const data = await analytics(s, { from: new Date(start).toISOString(), to: String(start + 3 * HOUR_MS - 1), interval: 'hour' });
    expect(data.interval).toBe('hour');
    expect(data.from).toBe('2026-11-22T10:00:00.000Z');
    expect(data.to).toBe('2026-11-22T13:00:00.000Z');
    expect(data.series).toEqual([
      {
        at: '2026-11-22T10:00:00.000Z',
        validations: 3,
        valid: 1,
        refused: 2,
        executions: 0,
        redemptions: 1,
        keySystemKeys: 0,
        peakSessions: 0,
      },
      {
        at: '2026-11-22T11:00:00.000Z',
        validations: 0,
        valid: 0,
        refused: 0,
        executions: 0,
        redemptions: 0,
        keySystemKeys: 0,
        peakSessions: 0,
      },
      {
        at: '2026-11-22T12:00:00.000Z',
        validations: 2,
        valid: 1,
        refused: 1,
        executions: 2,
        redemptions: 0,
        keySystemKeys: 0,
        peakSessions: 0,
      },
    ]);
    expect(data.codes).toEqual({ KEY_VALID: 2, KEY_HWID_LOCKED: 2, KEY_INCORRECT: 1 });
    expect(data.scripts).toEqual([{ scriptId: script.id, name: 'game', executions: 1 }]);

    // Days sum the hours; the default range is the last 7 days up to now, by day.
    const days = await analytics(s, {});
    expect(days.interval).toBe('day');
    expect(days.series).toHaveLength(8);
    expect(days.series.at(-1)).toMatchObject({ at: '2026-11-22T00:00:00.000Z', validations: 5, executions: 2, redemptions: 1 });
    expect(days.series[0]).toMatchObject({ validations: 0 });
  });

  it('shows only the calling service’s counts, key-system keys included', async () => {
    const { ctx } = t();
    const [a, b] = [await seedService(ctx), await seedService(ctx)];
    await validate(a, { key: 'nope', hwid: 'h' });
    ctx.analytics.countKeySystemKey(a.id); // what the key system calls when it issues a key
    await ctx.analytics.flush(ctx.db);
    expect((await analytics(b, {})).codes).toEqual({});
    expect((await analytics(b, {})).series.at(-1).keySystemKeys).toBe(0);
    const mine = await analytics(a, {});
    expect(mine.codes).toEqual({ KEY_INCORRECT: 1 });
    expect(mine.series.at(-1).keySystemKeys).toBe(1);
  });

  it('adds up the counts of two instances, and a closing instance flushes what it holds', async () => {
    const first = t();
    const s = await seedService(first.ctx);
    const second = await anotherInstance(first);
    for (let i = 0; i < 3; i++) await validate(s, { hwid: 'x' }, first.app);
    for (let i = 0; i < 4; i++) await validate(s, { hwid: 'x' }, second);
    await first.ctx.analytics.flush(first.ctx.db);
    await second.ctx.analytics.flush(second.ctx.db); // both instances write the same rows
    await validate(s, { hwid: 'x' }, second);
    await second.close(); // the final flush
    const data = await analytics(s, {});
    expect(data.codes).toEqual({ KEY_INCORRECT: 8 });
    expect(data.series.at(-1)).toMatchObject({ validations: 8, refused: 8, valid: 0 });
  });

  it('refuses bad ranges and values with 400 naming the field', async () => {
    const s = await seedService(t().ctx);
    const cases: Array<[Record<string, string>, string]> = [
      [{ from: '2026-11-22T10:00:00.000Z', to: '2026-11-21T10:00:00.000Z' }, 'from'],
      [{ from: '2026-01-01T00:00:00.000Z', to: '2026-11-22T00:00:00.000Z', interval: 'hour' }, 'from'],
      [{ from: '2020-01-01T00:00:00.000Z', to: '2026-11-22T00:00:00.000Z' }, 'from'],
      [{ interval: 'week' }, 'interval'],
      [{ from: 'yesterday' }, 'from'],
      [{ to: '1.5' }, 'to'],
      [{ extra: '1' }, 'extra'],
    ];
    for (const [query, field] of cases) {
      const res = await call(t().app, 'GET', `${ANALYTICS}?${new URLSearchParams(query)}`, { key: s.serviceKey });
      expect(res.status, JSON.stringify(query)).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
      if (field !== 'extra') expect(res.body.field, JSON.stringify(query)).toBe(field);
    }
    // Exactly 1,000 buckets is allowed.
    const ok = await analytics(s, { from: '0', to: String(999 * HOUR_MS), interval: 'hour' });
    expect(ok.series).toHaveLength(1000);
  });
});

describe('the flush job', () => {
  const storedCodes = async (s: SeededService) =>
    Object.fromEntries(
      (await t().ctx.db.selectFrom('analyticsCodes').select(['code', 'count']).where('serviceId', '=', s.id).execute()).map((r) => [
        r.code,
        Number(r.count),
      ]),
    );

  it('writes the counts by itself within one flush interval (at most 5 s), with no manual flush', async () => {
    const first = t();
    const s = await seedService(first.ctx);
    const intervalMs = first.config.analyticsFlushMs;
    expect(intervalMs).toBeLessThanOrEqual(5000);
    // The job runner's timer is the only thing moved by hand; the database and the requests run for real.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    let second: App | undefined;
    try {
      second = await anotherInstance(first);
      await second.ctx.jobs.settled(); // the pass every job runs at start
      for (let i = 0; i < 3; i++) await validate(s, { hwid: 'x' }, second);
      await second.ctx.jobs.settled();
      expect(await storedCodes(s)).toEqual({}); // the hot path writes nothing itself
      vi.advanceTimersByTime(intervalMs - 1);
      await second.ctx.jobs.settled();
      expect(await storedCodes(s)).toEqual({});
      vi.advanceTimersByTime(1); // one interval after the start: the job's tick
      await second.ctx.jobs.settled();
      expect(await storedCodes(s)).toEqual({ KEY_INCORRECT: 3 });
      expect((await analytics(s, {})).series.at(-1)).toMatchObject({ validations: 3, refused: 3 });
    } finally {
      await second?.close();
      vi.useRealTimers();
    }
  });
});

describe('a failed flush', () => {
  it('keeps its counts for the next flush', async () => {
    const { ctx, clock } = t();
    const s = await seedService(ctx);
    const aggregator = new AnalyticsAggregator(clock.read, true);
    aggregator.countVerdict(s.id, 'KEY_EXPIRED', false);
    const gone = await createTestDatabase();
    await gone.drop(); // a database that no longer answers
    await expect(aggregator.flush(gone.handle.db)).rejects.toThrow();
    aggregator.countVerdict(s.id, 'KEY_EXPIRED', false);
    await aggregator.flush(ctx.db);
    expect((await analytics(s, {})).codes).toEqual({ KEY_EXPIRED: 2 });
  });
});

describe('ANALYTICS=off', () => {
  it('counts nothing', async () => {
    const { ctx } = t();
    const s = await seedService(ctx);
    const off = await anotherInstance(t(), { ...t().config, analytics: false });
    await validate(s, { hwid: 'x' }, off);
    await off.close();
    expect((await analytics(s, {})).codes).toEqual({});
  });
});
