import { describe, expect, it } from 'vitest';
import { DAY_MS, iso, LATEST_TIME_MS } from '../../src/lib/time.ts';

// iso() builds the text from a cached day and the time of day (src/lib/time.ts): it must be Date#toISOString's, always.
describe('iso()', () => {
  const same = (ms: number) => expect(iso(ms), String(ms)).toBe(new Date(ms).toISOString());

  it('writes what Date#toISOString writes, at the edges of days, years and its range', () => {
    for (const ms of [
      0,
      1,
      999,
      1000,
      DAY_MS - 1,
      DAY_MS,
      Date.UTC(2024, 1, 29, 23, 59, 59, 999),
      Date.UTC(2024, 2, 1),
      Date.UTC(2026, 11, 31, 23, 59, 59, 999),
      Date.UTC(2027, 0, 1),
      LATEST_TIME_MS,
      // Outside the cached range: before 1970, after year 9999, and not a whole millisecond.
      -1,
      -DAY_MS - 1,
      Date.UTC(1, 0, 1),
      LATEST_TIME_MS + 1,
      1_700_000_000_000.5,
    ])
      same(ms);
  });

  it('writes what Date#toISOString writes for 100,000 times at random, many on the same days', () => {
    let seed = 12345;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 100_000; i++) same(Math.floor(next() * (i % 2 === 0 ? LATEST_TIME_MS : 40 * DAY_MS)));
  });

  it('answers null for a missing time', () => {
    expect(iso(null)).toBeNull();
    expect(iso(undefined)).toBeNull();
  });
});
