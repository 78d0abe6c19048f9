export const DAY_MS = 86_400_000;
export const HOUR_MS = 3_600_000;

/** Inputs accept an ISO 8601 string or epoch milliseconds; the schema has already checked the shape. */
export function toEpochMs(input: string | number): number {
  return typeof input === 'number' ? input : Date.parse(input);
}

export const iso = (ms: number | null | undefined): string | null =>
  ms === null || ms === undefined ? null : new Date(ms).toISOString();

export function addCalendarYear(ms: number): number {
  const d = new Date(ms);
  d.setUTCFullYear(d.getUTCFullYear() + 1);
  return d.getTime();
}

export type Clock = () => number;
export const systemClock: Clock = () => Date.now();
