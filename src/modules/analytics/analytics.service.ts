import type { AppContext } from '../../context.ts';
import { invalid } from '../../errors.ts';
import { DAY_MS, HOUR_MS, iso, parseQueryTime } from '../../lib/time.ts';
import { codeTotals, hourlyRows, scriptTotals } from './analytics.repository.ts';
import { executorCodeTotals, executorTotals } from './executor-stats.repository.ts';

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

/**
 * Runs by the executor each reported (contract §29), over whole UTC days: the day holding `from` to the day holding
 * `to` (default: the last 7 days). Most executions first; then most runs seen, then by name.
 */
export async function executorsOf(ctx: AppContext, serviceId: string, query: { from?: string; to?: string }) {
  const now = ctx.clock();
  const to = query.to === undefined ? now : parseQueryTime('to', query.to);
  const from = query.from === undefined ? to - DEFAULT_RANGE_MS : parseQueryTime('from', query.from);
  if (from > to) throw invalid('from', 'from must not be after to');
  const first = floorTo(from, DAY_MS);
  const end = floorTo(to, DAY_MS) + DAY_MS;
  const days = (end - first) / DAY_MS;
  if (days > MAX_BUCKETS) throw invalid('from', `The range holds ${days} days; at most ${MAX_BUCKETS} are allowed`);
  const [totals, codes] = await Promise.all([
    executorTotals(ctx.db, serviceId, first, end),
    executorCodeTotals(ctx.db, serviceId, first, end),
  ]);
  const refusedBy = new Map<string, Record<string, number>>();
  for (const { executor, code, count } of codes) {
    const refused = refusedBy.get(executor) ?? {};
    refused[code] = count;
    refusedBy.set(executor, refused);
  }
  const items = totals
    .map((t) => ({
      executor: t.executor,
      executions: t.executions,
      valid: t.valid,
      refused: refusedBy.get(t.executor) ?? {},
      peakSessions: t.peakSessions,
      lastSeen: iso(t.lastSeen)!,
      seen: t.valid + t.refused,
    }))
    .sort((a, b) => b.executions - a.executions || b.seen - a.seen || (a.executor < b.executor ? -1 : a.executor > b.executor ? 1 : 0))
    .map(({ seen: _seen, ...item }) => item);
  return { from: iso(first)!, to: iso(end)!, items };
}
