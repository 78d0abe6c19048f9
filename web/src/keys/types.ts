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

/** "30 days from first use": a key bound before its first use (contract §23) has no date until its first validation. */
export const fromFirstUse = (days: number) => `${days} ${days === 1 ? 'day' : 'days'} from first use`;

/** How long a key runs once its time starts, for a key whose time has not started yet; else undefined. */
export function waitingLength(record: { type: string; durationDays?: number | null }): string | undefined {
  if (record.durationDays == null) return undefined;
  return record.type === 'generated' ? fromRedemption(record.durationDays) : fromFirstUse(record.durationDays);
}

/**
 * The expiry a seller reads for a key: a key whose time starts at redemption (or, bound, at its first use) has no
 * expiresAt yet, and reads as its length, never as "Lifetime" (contract §22, §23).
 */
export function describeKeyExpiry(
  record: { expiresAt: string | null; type: string; durationDays?: number | null },
  now = Date.now(),
): string {
  return waitingLength(record) ?? describeExpiry(record.expiresAt, now);
}

/** The filename of a Content-Disposition header, or a fallback. */
export function filenameOf(disposition: string | null, fallback: string): string {
  const match = /filename="([^"]+)"/.exec(disposition ?? '');
  return match?.[1] ?? fallback;
}

export const formatTime = (value: string | null | undefined) => (value ? new Date(value).toLocaleString() : '—');
