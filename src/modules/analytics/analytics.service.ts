import type { AppContext } from '../../context.ts';
import { invalid } from '../../errors.ts';
import { DAY_MS, HOUR_MS, iso, parseQueryTime } from '../../lib/time.ts';
import { codeTotals, hourlyRows, scriptTotals } from './analytics.repository.ts';

export type Interval = 'hour' | 'day';
export const MAX_BUCKETS = 1000;
const DEFAULT_RANGE_MS = 7 * DAY_MS;

export interface AnalyticsQuery {
  from?: string;
  to?: string;
  interval?: Interval;
}

const floorTo = (ms: number, size: number) => ms - (((ms % size) + size) % size);

/**
 * The service's counts per aligned UTC bucket (contract §7.5). The bucket holding `from` and the one
 * holding `to` are both included whole, and every bucket between them is present, zeros included.
 */
export async function analyticsOf(ctx: AppContext, serviceId: string, query: AnalyticsQuery) {
  const interval = query.interval ?? 'day';
  const size = interval === 'hour' ? HOUR_MS : DAY_MS;
  const now = ctx.clock();
  const to = query.to === undefined ? now : parseQueryTime('to', query.to);
  const from = query.from === undefined ? to - DEFAULT_RANGE_MS : parseQueryTime('from', query.from);
  if (from > to) throw invalid('from', 'from must not be after to');
  const first = floorTo(from, size);
  const end = floorTo(to, size) + size;
  const count = (end - first) / size;
  if (count > MAX_BUCKETS) throw invalid('from', `The range holds ${count} ${interval} buckets; at most ${MAX_BUCKETS} are allowed`);

  const [rows, codes, scripts] = await Promise.all([
    hourlyRows(ctx.db, serviceId, first, end),
    codeTotals(ctx.db, serviceId, first, end),
    scriptTotals(ctx.db, serviceId, first, end),
  ]);
  const series = Array.from({ length: count }, (_, i) => ({
    at: first + i * size,
    validations: 0,
    valid: 0,
    refused: 0,
    executions: 0,
    redemptions: 0,
    keySystemKeys: 0,
    peakSessions: 0,
  }));
  for (const row of rows) {
    const bucket = series[Math.floor((row.at - first) / size)]!;
    bucket.validations += Number(row.validations);
    bucket.valid += Number(row.valid);
    bucket.refused += Number(row.refused);
    bucket.executions += Number(row.executions);
    bucket.redemptions += Number(row.redemptions);
    bucket.keySystemKeys += Number(row.keySystemKeys);
    bucket.peakSessions = Math.max(bucket.peakSessions, Number(row.peakSessions));
  }
  return {
    from: iso(first)!,
    to: iso(end)!,
    interval,
    series: series.map((b) => ({ ...b, at: iso(b.at)! })),
    codes: Object.fromEntries(codes.map((c) => [c.code, c.count])),
    scripts,
  };
}
