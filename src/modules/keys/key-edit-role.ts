import type { ServiceAction } from '../services/services.service.ts';

// The fields of a key edit that support staff may change (reset HWID, ban, pause, activate, note, Discord user); any
// other field is an edit of the key's terms (contract §17: keys.manage).
const SUPPORT_EDIT_FIELDS: ReadonlySet<string> = new Set(['note', 'hwid', 'status', 'chatId', 'banReason', 'banExpiresAt']);

/** The role-table action a key edit of these fields needs: keys.support for status, note, HWID and Discord user, keys.manage beyond. */
export const editAction = (fields: readonly string[]): ServiceAction =>
  fields.every((field) => SUPPORT_EDIT_FIELDS.has(field)) ? 'keys.support' : 'keys.manage';

/** The same, of a request body not validated yet (the role is checked before input): its fields other than `key`. */
export function editActionOfBody(body: unknown): ServiceAction | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  return editAction(Object.keys(body).filter((field) => field !== 'key'));
}
