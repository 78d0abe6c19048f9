import type { AppContext } from '../../context.ts';
import { endSessions, keyExpiryChanged, type EndReason } from '../sessions/session-ending.service.ts';
import type { KeyStatus, TimeInput } from './key-types.ts';

/**
 * What an edit of an active key does to its running sessions (contract §18, §27): a ban, a pause or a new binding ends
 * them; a new expiry is what they judge their heartbeats against from now on. Every door that edits a key (the API,
 * /luarmor, the Luarmor blacklist, Discord) calls this after its change committed.
 */
export async function afterActiveKeyEdit(
  ctx: AppContext,
  serviceId: string,
  row: { key: string; expiresAt: number | null },
  edit: { status?: KeyStatus; hwid?: string | null; expiresAt?: TimeInput | null },
): Promise<void> {
  const reason = sessionEndOf(edit);
  if (reason) await endSessions(ctx, serviceId, { key: row.key }, reason);
  else if (edit.expiresAt !== undefined) await keyExpiryChanged(ctx, serviceId, row.key, row.expiresAt);
}

function sessionEndOf(edit: { status?: KeyStatus; hwid?: string | null }): EndReason | null {
  if (edit.status === 'banned') return 'KEY_BANNED';
  if (edit.status === 'paused') return 'KEY_PAUSED';
  if (edit.hwid !== undefined) return 'HWID_RESET';
  return null;
}
