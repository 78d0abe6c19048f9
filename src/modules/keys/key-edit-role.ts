import type { Db } from '../../db/database.ts';
import type { Actor } from '../audit/actor.ts';
import { checkResellerKeyEdit, type KeyTerms, type ServiceAction } from '../services/services.service.ts';
import { keyScopeOf } from './key-scope.ts';

// The fields of a key edit that support staff may change (reset HWID, ban, pause, activate, note, Discord user); the
// four terms of the reseller key policy (contract §25) are keys.policy; any other field is an edit of the key's
// terms (contract §17: keys.manage).
const SUPPORT_EDIT_FIELDS: ReadonlySet<string> = new Set(['note', 'hwid', 'status', 'chatId', 'banReason', 'banExpiresAt']);
const POLICY_EDIT_FIELDS: ReadonlySet<string> = new Set(['maxHwids', 'noHwidValidation', 'isPremium', 'maxSessions']);

/**
 * The role-table action a key edit of these fields needs: keys.support for status, note, HWID and Discord user;
 * keys.policy once one of the policy's four terms is among them (every role that has it also has keys.support);
 * keys.manage beyond.
 */
export function editAction(fields: readonly string[]): ServiceAction {
  if (fields.every((field) => SUPPORT_EDIT_FIELDS.has(field))) return 'keys.support';
  if (fields.every((field) => SUPPORT_EDIT_FIELDS.has(field) || POLICY_EDIT_FIELDS.has(field))) return 'keys.policy';
  return 'keys.manage';
}

/** The same, of a request body not validated yet (the role is checked before input): its fields other than `key`. */
export function editActionOfBody(body: unknown): ServiceAction | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  return editAction(Object.keys(body).filter((field) => field !== 'key'));
}

/** A reseller's edit of its own key stays within its key policy (contract §25): 403 QUOTA_EXCEEDED naming the field. */
export async function checkEditWithinPolicy(trx: Db, serviceId: string, edit: KeyTerms, actor: Actor) {
  const reseller = keyScopeOf(actor);
  if (reseller === null) return;
  const { maxHwids, noHwidValidation, isPremium, maxSessions } = edit;
  await checkResellerKeyEdit(trx, serviceId, reseller, { maxHwids, noHwidValidation, isPremium, maxSessions });
}
