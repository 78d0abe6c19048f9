import { invalid } from '../errors.ts';

export const DAY_MS = 86_400_000;
export const HOUR_MS = 3_600_000;

/** Inputs accept an ISO 8601 string or epoch milliseconds; the schema has already checked the shape. */
export function toEpochMs(input: string | number): number {
  return typeof input === 'number' ? input : Date.parse(input);
}

// The last time formatted: a key validated in a loop answers the same expiresAt each time, and
// formatting a Date is a visible share of a cached verdict's cost.
let lastMs = NaN;
let lastText = '';

export function iso(ms: number | null | undefined): string | null {
  if (ms === null || ms === undefined) return null;
  if (ms !== lastMs) {
    lastText = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastText;
}

export function addCalendarYear(ms: number): number {
  const d = new Date(ms);
  d.setUTCFullYear(d.getUTCFullYear() + 1);
  return d.getTime();
}

export type Clock = () => number;
export const systemClock: Clock = () => Date.now();

/**
 * The last instant a response can show: times go out as ISO 8601 with a four-digit year (contract §1),
 * so a later time would be stored and then fail every read of its record.
 */
export const LATEST_TIME_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** A time input as epoch ms; the schema has checked its shape, not that the date exists or fits. */
export function parseTimeInput(field: string, input: string | number): number {
  const ms = toEpochMs(input);
  if (!Number.isFinite(ms)) throw invalid(field, `${field} is not a valid date`);
  if (ms > LATEST_TIME_MS) throw invalid(field, `${field} must be no later than ${iso(LATEST_TIME_MS)}`);
  return ms;
}

export function parseFutureTime(field: string, input: string | number, now: number, hint = ''): number {
  const ms = parseTimeInput(field, input);
  if (ms <= now) throw invalid(field, `${field} must be in the future${hint}`);
  return ms;
}

/** A time in a query string: epoch milliseconds as digits, or an ISO 8601 date-time. */
export function parseQueryTime(field: string, text: string): number {
  if (/^[0-9]{1,15}$/.test(text)) return parseTimeInput(field, Number(text));
  const ms = Date.parse(text);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(text) || !Number.isFinite(ms))
    throw invalid(field, `${field} must be an ISO 8601 date-time or epoch milliseconds`);
  return parseTimeInput(field, ms);
}
