/** Records of contract §3 / §7.1 as the listing (§7.2) answers them, each with its `type`. */
export interface KeyRecord {
  type: 'active' | 'generated';
  key: string;
  hwid?: string | null;
  hwids?: string[];
  note: string | null;
  isPremium: boolean;
  noHwidValidation: boolean;
  maxHwids: number;
  status: 'active' | 'paused' | 'banned';
  expiresAt: string | null;
  chatId: string | null;
  expirationType?: string;
  executions?: number;
  createdAt: string;
  activatedAt?: string | null;
  lastUsedAt?: string | null;
  hwidResetAt?: string | null;
  hwidResetCount?: number;
}

export interface Page<T> {
  items: T[];
  page: number;
  limit: number;
  total: number;
  totalPages: number;
}

export type BulkAction = 'delete' | 'ban' | 'pause' | 'activate' | 'resetHwid' | 'extend' | 'setNote';

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
