// Bans with a reason and an end (contract §19): the one place that says whether a key's ban is in force and what a
// change of status writes about the ban.
// keys.service.ts's KeyStatus, spelled here so this file imports nothing of the module that uses it.
type KeyStatus = 'active' | 'paused' | 'banned';

export const BAN_REASON_MAX = 256;

interface BanFields {
  status: KeyStatus;
  banReason: string | null;
  banExpiresAt: number | null;
}

/**
 * The status a key has now: a ban past its end counts as no ban, in validation and records alike. Computed where the
 * key is read (with the reader's clock), so nothing has to run when the ban ends for every instance to agree.
 */
export function statusNow(row: Pick<BanFields, 'status' | 'banExpiresAt'>, now: number): KeyStatus {
  return row.status === 'banned' && row.banExpiresAt !== null && row.banExpiresAt <= now ? 'active' : row.status;
}

/** The ban as a record shows it: reason and end while a ban is in force, else null. */
export function banNow(row: BanFields, now: number): { banReason: string | null; banExpiresAt: number | null } {
  return statusNow(row, now) === 'banned'
    ? { banReason: row.banReason, banExpiresAt: row.banExpiresAt }
    : { banReason: null, banExpiresAt: null };
}

/**
 * What a change of status writes about the ban: a ban writes its reason and end (absent ones null); any other status
 * clears the ban, its reason, end and unban token.
 */
export function banPatch(status: KeyStatus, ban: { reason?: string | null; expiresAt?: number | null; unbanToken?: string | null } = {}) {
  if (status !== 'banned') return { banReason: null, banExpiresAt: null, unbanToken: null };
  return { banReason: ban.reason ?? null, banExpiresAt: ban.expiresAt ?? null, unbanToken: ban.unbanToken ?? null };
}

/** The KEY_BANNED message the buyer sees: with the reason when there is one. */
export const bannedMessage = (reason: string | null | undefined) => (reason ? `This key is banned: ${reason}` : 'The key is banned');
