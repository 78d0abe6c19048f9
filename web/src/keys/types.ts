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

/** "30 days from redemption": an afterRedeem key (contract §12.1) has no date until a buyer redeems it. */
export const fromRedemption = (days: number) => `${days} ${days === 1 ? 'day' : 'days'} from redemption`;

/**
 * The expiry a seller reads for a key: a key whose time starts at redemption has no expiresAt yet, and reads as its
 * length, never as "Lifetime" (contract §22).
 */
export function describeKeyExpiry(
  record: { expiresAt: string | null; type: string; durationDays?: number | null },
  now = Date.now(),
): string {
  if (record.type === 'generated' && record.durationDays != null) return fromRedemption(record.durationDays);
  return describeExpiry(record.expiresAt, now);
}

/** The filename of a Content-Disposition header, or a fallback. */
export function filenameOf(disposition: string | null, fallback: string): string {
  const match = /filename="([^"]+)"/.exec(disposition ?? '');
  return match?.[1] ?? fallback;
}

export const formatTime = (value: string | null | undefined) => (value ? new Date(value).toLocaleString() : '—');
