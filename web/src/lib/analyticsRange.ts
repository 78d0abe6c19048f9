/** The analytics window the page asks for, checked with the server's rules (src/modules/analytics). */
export type Interval = 'hour' | 'day';

export const MAX_BUCKETS = 1000;
const SIZE: Record<Interval, number> = { hour: 3_600_000, day: 86_400_000 };

const floorTo = (ms: number, size: number) => ms - (((ms % size) + size) % size);

/** Aligned UTC buckets the server answers for this window: the ones holding `from` and `to` count whole. */
export function bucketCount(from: number, to: number, interval: Interval): number {
  const size = SIZE[interval];
  return (floorTo(to, size) + size - floorTo(from, size)) / size;
}

/** Milliseconds of a datetime-local input's value ("YYYY-MM-DDTHH:mm", local time); NaN when empty or wrong. */
export const fromLocalInput = (value: string): number => (value ? new Date(value).getTime() : Number.NaN);

/** Why the window [start, end] (epoch ms) cannot be asked for, or null. */
export function rangeProblem(start: number, end: number, interval: Interval): string | null {
  if (Number.isNaN(start) || Number.isNaN(end)) return 'Choose both a start and an end';
  if (start > end) return 'The start must not be after the end';
  const count = bucketCount(start, end, interval);
  if (count > MAX_BUCKETS) {
    return `That range holds ${count.toLocaleString('en')} ${interval}s; at most ${MAX_BUCKETS.toLocaleString('en')} fit in one chart${
      interval === 'hour' ? ': choose "Day" or a shorter range' : ': choose a shorter range'
    }`;
  }
  return null;
}

/** A Date as a datetime-local input's value, in the browser's time zone. */
export function toLocalInput(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}
