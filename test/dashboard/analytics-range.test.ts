import { describe, expect, it } from 'vitest';
import { bucketCount, fromLocalInput, rangeProblem, toLocalInput } from '../../web/src/lib/analyticsRange.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const t0 = Date.UTC(2026, 0, 1);

describe('analytics range picker rules', () => {
  it('counts the aligned UTC buckets the server answers, both ends whole', () => {
    expect(bucketCount(t0, t0, 'hour')).toBe(1);
    expect(bucketCount(t0 + 30 * 60_000, t0 + 2 * HOUR + 1, 'hour')).toBe(3);
    expect(bucketCount(t0, t0 + 7 * DAY, 'day')).toBe(8);
  });

  it('refuses a missing, reversed or too long window with a sentence, and takes the rest', () => {
    expect(rangeProblem(Number.NaN, t0, 'day')).toBe('Choose both a start and an end');
    expect(rangeProblem(t0 + DAY, t0, 'day')).toBe('The start must not be after the end');
    expect(rangeProblem(t0, t0 + 90 * DAY, 'hour')).toBe(
      'That range holds 2,161 hours; at most 1,000 fit in one chart: choose "Day" or a shorter range',
    );
    expect(rangeProblem(t0, t0 + 999 * HOUR, 'hour')).toBeNull();
    expect(rangeProblem(t0, t0 + 1000 * HOUR, 'hour')).not.toBeNull();
    expect(rangeProblem(t0, t0 + 90 * DAY, 'day')).toBeNull();
  });

  it('round-trips a datetime-local value in the local time zone', () => {
    const date = new Date(2026, 4, 6, 7, 8);
    expect(toLocalInput(date)).toBe('2026-05-06T07:08');
    expect(fromLocalInput('2026-05-06T07:08')).toBe(date.getTime());
    expect(fromLocalInput('')).toBeNaN();
  });
});
