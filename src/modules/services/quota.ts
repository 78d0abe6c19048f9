import type { Db } from '../../db/database.ts';
import { AppError, notFound } from '../../errors.ts';
import { DAY_MS } from '../../lib/time.ts';
import { findMember, refundKey, spendKeys } from './members.repository.ts';

// A reseller's quota (contract §17): what a generate may make, spent in the transaction that makes the keys.

export const MAX_KEYS_LEFT = 1_000_000;

export interface QuotaRequest {
  count: number;
  expirationType: 'byDays' | 'byDate' | 'lifetime' | 'afterRedeem';
  days?: number;
  /** A byDate key's expiry, already parsed. */
  expiresAt: number | null;
}

const exceeded = (what: string) => new AppError('QUOTA_EXCEEDED', `Your reseller quota does not allow this: ${what}.`);

/**
 * Checks the duration against the reseller's quota as it stands in the database, then spends `count` keys with the
 * conditional UPDATE of spendKeys. Throws QUOTA_EXCEEDED naming what is short, before anything is created; the caller's
 * transaction then creates nothing.
 */
export async function spendResellerQuota(trx: Db, serviceId: string, accountId: string, request: QuotaRequest, now: number) {
  const member = await findMember(trx, serviceId, accountId);
  // Removed (or made another role) between the auth check and here: answered as a stranger.
  if (!member || member.role !== 'reseller') throw notFound('Service');
  if (request.expirationType === 'lifetime' && member.allowLifetime !== 1) throw exceeded('lifetime keys are not allowed');
  if (member.maxDays !== null) {
    const days = request.expirationType === 'byDate' ? Math.ceil(((request.expiresAt ?? now) - now) / DAY_MS) : (request.days ?? 0);
    if (days > member.maxDays) throw exceeded(`keys may last at most ${member.maxDays} days, not ${days}`);
  }
  if (await spendKeys(trx, serviceId, accountId, request.count)) return;
  const left = (await findMember(trx, serviceId, accountId))?.keysLeft ?? 0;
  throw exceeded(`${request.count} keys asked, ${left} left`);
}

/** Deleting a reseller's own unredeemed key gives one back. */
export const refundResellerKey = (trx: Db, serviceId: string, accountId: string) => refundKey(trx, serviceId, accountId, MAX_KEYS_LEFT);
