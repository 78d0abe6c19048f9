import type { Db } from '../../db/database.ts';
import { AppError, notFound } from '../../errors.ts';
import { DAY_MS } from '../../lib/time.ts';
import { counted } from '../../lib/plain-words.ts';
import { findMember, findMemberForUpdate, refundKey, spendKeys } from './members.repository.ts';

// A reseller's quota (contract §17) and key policy (§25): what a generate may make and what a reseller's key may carry,
// checked here and only here, so the dashboard, Keyward's API, /luarmor and Discord's /whitelist (which all generate
// through keys-generate.service) and the reseller's own key edits get the same answer in the same words.

export const MAX_KEYS_LEFT = 1_000_000;

/** The terms of a key that the reseller key policy limits (contract §25); absent: the request does not set it. */
export interface KeyTerms {
  maxHwids?: number;
  noHwidValidation?: boolean;
  isPremium?: boolean;
  /** 0: no limit of devices running at once. */
  maxSessions?: number;
}

export interface QuotaRequest {
  count: number;
  expirationType: 'byDays' | 'byDate' | 'lifetime' | 'afterRedeem';
  days?: number;
  /** A byDate key's expiry, already parsed. */
  expiresAt: number | null;
  terms: KeyTerms;
}

type Member = NonNullable<Awaited<ReturnType<typeof findMember>>>;

const ASK = 'Ask the service owner for more.';
const exceeded = (field: string, what: string) =>
  new AppError('QUOTA_EXCEEDED', `Your reseller quota does not allow this: ${what}. ${ASK}`, { field });
const beyondTerms = (field: string, what: string) =>
  new AppError('QUOTA_EXCEEDED', `Your reseller terms ${what}; ask the service owner for more.`, { field });

/** The policy's refusal of the first term it does not allow, naming the field in the seller's words. */
function checkTerms(member: Member, terms: KeyTerms) {
  if (terms.maxHwids !== undefined && terms.maxHwids > member.maxHwids)
    throw beyondTerms('maxHwids', `allow at most ${counted(member.maxHwids, 'device')} (HWID) per key, not ${terms.maxHwids}`);
  if (terms.noHwidValidation === true && member.allowNoHwidValidation !== 1)
    throw beyondTerms('noHwidValidation', 'do not allow keys without the HWID check');
  if (terms.isPremium === true && member.allowPremium !== 1) throw beyondTerms('isPremium', 'do not allow premium keys');
  const limit = member.maxSessions;
  if (limit !== null && terms.maxSessions !== undefined && (terms.maxSessions === 0 || terms.maxSessions > limit)) {
    const asked = terms.maxSessions === 0 ? 'no limit' : terms.maxSessions;
    throw beyondTerms('maxSessions', `allow at most ${counted(limit, 'device')} running at once per key, not ${asked}`);
  }
}

/** The reseller's row as it stands, held against a concurrent edit of it (PostgreSQL); a stranger's answer if gone. */
async function resellerRow(trx: Db, serviceId: string, accountId: string) {
  const member = await findMemberForUpdate(trx, serviceId, accountId);
  // Removed (or made another role) between the auth check and here: answered as a stranger.
  if (!member || member.role !== 'reseller') throw notFound('Service');
  return member;
}

/**
 * Checks the duration and the key's terms against the reseller's quota and policy as they stand in the database, then
 * spends `count` keys with the conditional UPDATE of spendKeys. Throws QUOTA_EXCEEDED naming what is short, before
 * anything is created; the caller's transaction then creates nothing. Answers the terms the policy sets where the
 * request set none (a limit of devices at once, when the owner set one), for the caller to write on the keys.
 */
export async function spendResellerQuota(trx: Db, serviceId: string, accountId: string, request: QuotaRequest, now: number) {
  const member = await resellerRow(trx, serviceId, accountId);
  if (request.expirationType === 'lifetime' && member.allowLifetime !== 1)
    throw exceeded('expirationType', 'lifetime keys are not allowed');
  if (member.maxDays !== null) {
    const days = request.expirationType === 'byDate' ? Math.ceil(((request.expiresAt ?? now) - now) / DAY_MS) : (request.days ?? 0);
    if (days > member.maxDays)
      throw exceeded(
        request.expirationType === 'byDate' ? 'expiresAt' : 'days',
        `keys may last at most ${member.maxDays} days, not ${days}`,
      );
  }
  checkTerms(member, request.terms);
  if (await spendKeys(trx, serviceId, accountId, request.count)) {
    return request.terms.maxSessions === undefined && member.maxSessions !== null ? { maxSessions: member.maxSessions } : {};
  }
  const left = (await findMember(trx, serviceId, accountId))?.keysLeft ?? 0;
  throw exceeded('count', `${counted(request.count, 'key')} asked, ${left} left`);
}

/**
 * A reseller's edit of its own key (contract §25): the four terms of the policy, within it. The caller has checked the
 * key is the reseller's; the edit's other fields are the role table's to allow.
 */
export async function checkResellerKeyEdit(trx: Db, serviceId: string, accountId: string, terms: KeyTerms) {
  if (Object.values(terms).every((value) => value === undefined)) return;
  checkTerms(await resellerRow(trx, serviceId, accountId), terms);
}

/** Deleting a reseller's own unredeemed key gives one back. */
export const refundResellerKey = (trx: Db, serviceId: string, accountId: string) => refundKey(trx, serviceId, accountId, MAX_KEYS_LEFT);
