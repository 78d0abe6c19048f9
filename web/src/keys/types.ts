// Pure helpers of the keys pages (unit-tested in test/dashboard/ui-logic.test.ts); the record types are in records.ts.

/** "in 3 days", "expired", "never": what a seller scans the column for. */
export function describeExpiry(expiresAt: string | null, now = Date.now()): string {
  if (expiresAt === null) return 'Lifetime';
  const at = Date.parse(expiresAt);
  if (Number.isNaN(at)) return expiresAt;
  if (at <= now) return 'Expired';
  const hours = (at - now) / 3_600_000;
  if (hours < 48) return `in ${Math.max(1, Math.round(hours))} h`;
  return `in ${Math.round(hours / 24)} days`;
}

/** The filename of a Content-Disposition header, or a fallback. */
export function filenameOf(disposition: string | null, fallback: string): string {
  const match = /filename="([^"]+)"/.exec(disposition ?? '');
  return match?.[1] ?? fallback;
}

export const formatTime = (value: string | null | undefined) => (value ? new Date(value).toLocaleString() : '—');
