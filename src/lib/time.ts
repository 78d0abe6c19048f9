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

const TWO_DIGITS = Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0'));
const THREE_DIGITS = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));
// "YYYY-MM-DDT" of the days formatted lately: an export of a million keys formats four times a key, over a few
// thousand distinct days, and Date#toISOString was a tenth of its CPU (bench/export-import.ts).
const dayPrefixes = new Map<number, string>();

/** Date#toISOString's text, built from a cached day and the time of day; the same text for every time it covers. */
function formatIso(ms: number): string {
  if (!Number.isInteger(ms) || ms < 0 || ms > LATEST_TIME_MS) return new Date(ms).toISOString();
  const day = Math.floor(ms / DAY_MS);
  let prefix = dayPrefixes.get(day);
  if (prefix === undefined) {
    if (dayPrefixes.size >= 10_000) dayPrefixes.clear();
    prefix = new Date(day * DAY_MS).toISOString().slice(0, 11);
    dayPrefixes.set(day, prefix);
  }
  let rest = ms - day * DAY_MS;
  const hours = Math.floor(rest / HOUR_MS);
  rest -= hours * HOUR_MS;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  return `${prefix}${TWO_DIGITS[hours]}:${TWO_DIGITS[minutes]}:${TWO_DIGITS[seconds]}.${THREE_DIGITS[rest - seconds * 1000]}Z`;
}

export function iso(ms: number | null | undefined): string | null {
  if (ms === null || ms === undefined) return null;
  if (ms !== lastMs) {
    lastText = formatIso(ms);
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
