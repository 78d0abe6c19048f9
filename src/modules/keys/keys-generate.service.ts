/**
 * Making keys (contract §3, §12.1, §17): what a generate writes, the one transaction that spends a reseller's quota,
 * and who a key is recorded as made by. keys.service.ts re-exports it; other modules import it from there.
 */
import type { AppContext } from '../../context.ts';
import type { Flag } from '../../db/schema.ts';
import type { Db } from '../../db/database.ts';
import { invalid } from '../../errors.ts';
import { randomAlphanumeric } from '../../lib/random.ts';
import { DAY_MS, parseFutureTime } from '../../lib/time.ts';
import * as repo from './keys.repository.ts';
import { recordServiceAudit } from '../audit/audit.service.ts';
import { resellerScope, type Actor } from '../audit/actor.ts';
import { spendResellerQuota, type KeyTerms } from '../services/services.service.ts';
import { syncChatRoles } from '../discord-role/discord-role.service.ts';
import type { ExpirationType, TimeInput } from './key-types.ts';

export const KEY_LENGTH = 32;
export const newLicenseKey = () => randomAlphanumeric(KEY_LENGTH);
export const flag = (value: boolean | undefined): Flag => (value ? 1 : 0);

/** Who a key is recorded as made by (contract §17): the acting account, or null for a machine or the system. */
export interface KeyCreator {
  accountId: string;
  username: string | null;
}

export interface GenerateInput {
  expirationType: ExpirationType;
  count?: number;
  days?: number;
  expiresAt?: TimeInput;
  note?: string;
  isPremium?: boolean;
  noHwidValidation?: boolean;
  chatId?: string;
  maxHwids?: number;
  maxSessions?: number;
}

const onlyWithDays = (field: string) => invalid(field, `${field} is only used when expirationType is byDays or afterRedeem`);

/** The expiry a new generated key gets, and for afterRedeem the days its time runs from redemption (contract §12.1). */
function expiryFor(input: GenerateInput, now: number): { expiresAt: number | null; durationDays: number | null } {
  switch (input.expirationType) {
    case 'byDays':
      if (input.days === undefined) throw invalid('days', 'days is required when expirationType is byDays');
      if (input.expiresAt !== undefined) throw invalid('expiresAt', 'expiresAt is only used when expirationType is byDate');
      return { expiresAt: now + input.days * DAY_MS, durationDays: null };
    case 'afterRedeem':
      if (input.days === undefined) throw invalid('days', 'days is required when expirationType is afterRedeem');
      if (input.expiresAt !== undefined) throw invalid('expiresAt', 'expiresAt is only used when expirationType is byDate');
      // The clock starts at redemption: until then the key has no expiry and never counts as expired.
      return { expiresAt: null, durationDays: input.days };
    case 'byDate':
      if (input.expiresAt === undefined) throw invalid('expiresAt', 'expiresAt is required when expirationType is byDate');
      if (input.days !== undefined) throw onlyWithDays('days');
      return { expiresAt: parseFutureTime('expiresAt', input.expiresAt, now), durationDays: null };
    case 'lifetime':
      if (input.days !== undefined) throw onlyWithDays('days');
      if (input.expiresAt !== undefined) throw invalid('expiresAt', 'expiresAt is only used when expirationType is byDate');
      return { expiresAt: null, durationDays: null };
  }
}

/**
 * Writes `input.count` new generated keys in the caller's transaction and answers their rows. For callers
 * that make keys as part of a larger change (a shop delivery); the caller writes its own audit entry.
 */
export async function insertNewKeys(trx: Db, serviceId: string, input: GenerateInput, now: number, createdBy: KeyCreator | null = null) {
  const { expiresAt, durationDays } = expiryFor(input, now);
  const rows = Array.from({ length: input.count ?? 1 }, () => ({
    key: newLicenseKey(),
    serviceId,
    note: input.note ?? null,
    isPremium: flag(input.isPremium),
    noHwidValidation: flag(input.noHwidValidation),
    status: 'active' as const,
    expiresAt,
    chatId: input.chatId ?? null,
    expirationType: input.expirationType,
    createdAt: now,
    maxHwids: input.maxHwids ?? 1,
    maxSessions: input.maxSessions ?? 0,
    durationDays,
    createdBy: createdBy?.accountId ?? null,
    createdByUsername: createdBy?.username ?? null,
    banReason: null,
    banExpiresAt: null,
    unbanToken: null,
  }));
  await repo.insertGeneratedKeys(trx, rows);
  return rows;
}

/** One new key made active and bound to `hwid` at once: a Luarmor user created with an identifier (contract §16.2). */
async function insertBoundKey(trx: Db, serviceId: string, input: GenerateInput, hwid: string, now: number, createdBy: KeyCreator | null) {
  const { expiresAt } = expiryFor(input, now);
  const key = newLicenseKey();
  await repo.insertActiveKey(trx, {
    key,
    serviceId,
    hwid,
    note: input.note ?? null,
    isPremium: flag(input.isPremium),
    noHwidValidation: 0,
    status: 'active',
    expiresAt,
    chatId: input.chatId ?? null,
    executions: 0,
    createdAt: now,
    activatedAt: now,
    lastUsedAt: null,
    hwidResetAt: null,
    hwidResetCount: 0,
    maxHwids: input.maxHwids ?? 1,
    maxSessions: input.maxSessions ?? 0,
    hwidCount: 1,
    createdBy: createdBy?.accountId ?? null,
    createdByUsername: createdBy?.username ?? null,
  });
  await repo.insertKeyHwids(trx, serviceId, key, [hwid]);
  await syncChatRoles(trx, serviceId, [input.chatId ?? null], now);
  return key;
}

/**
 * The one way keys are made through the API: in one transaction, a reseller's quota is spent (too few left, and
 * nothing is created), the keys are written and the generate is audited. `anonymous`: the keys record no maker
 * (contract §17: keys from the Luarmor API have `createdBy` null); by default the acting account (a service key's
 * owner) is recorded.
 */
async function creatingKeys<T>(
  ctx: AppContext,
  serviceId: string,
  input: GenerateInput,
  actor: Actor,
  anonymous: boolean,
  create: (
    trx: Db,
    now: number,
    createdBy: KeyCreator | null,
    input: GenerateInput,
  ) => Promise<{ result: T; key: string | null; details?: object }>,
) {
  const now = ctx.clock();
  // Checked before the transaction opens, so bad input never holds a connection.
  const { expiresAt } = expiryFor(input, now);
  return ctx.db.transaction().execute(async (trx) => {
    const createdBy = anonymous ? null : await creatorOf(trx, actor);
    const reseller = resellerScope(actor);
    let made = input;
    if (reseller !== null) {
      const terms = termsOf(input);
      const request = { count: input.count ?? 1, expirationType: input.expirationType, days: input.days, expiresAt, terms };
      // The policy's own limit of devices at once goes on keys whose request set none (contract §25).
      made = { ...input, ...(await spendResellerQuota(trx, serviceId, reseller, request, now)) };
    }
    const { result, key, details } = await create(trx, now, createdBy, made);
    const count = input.count ?? 1;
    const audited = { count, expirationType: input.expirationType, isPremium: input.isPremium === true, ...details };
    await recordServiceAudit(trx, actor, serviceId, 'key.generate', key, audited, now);
    return result;
  });
}

export async function generateKeys(
  ctx: AppContext,
  serviceId: string,
  input: GenerateInput,
  actor: Actor,
  options: { anonymous?: boolean } = {},
) {
  return creatingKeys(ctx, serviceId, input, actor, options.anonymous === true, async (trx, now, createdBy, made) => {
    const rows = await insertNewKeys(trx, serviceId, made, now, createdBy);
    return { result: rows, key: rows.length === 1 ? rows[0]!.key : null };
  });
}

/** One key, active and bound to `hwid` from the start (a Luarmor user with an identifier), made like generateKeys'. */
export async function generateBoundKey(
  ctx: AppContext,
  serviceId: string,
  input: GenerateInput,
  hwid: string,
  actor: Actor,
  options: { anonymous?: boolean } = {},
) {
  const one = { ...input, count: 1 };
  return creatingKeys(ctx, serviceId, one, actor, options.anonymous === true, async (trx, now, createdBy, made) => {
    const key = await insertBoundKey(trx, serviceId, made, hwid, now, createdBy);
    return { result: key, key, details: { boundTo: hwid } };
  });
}

/** The terms of a generate that the reseller key policy limits (contract §25). */
const termsOf = (input: GenerateInput): KeyTerms => ({
  maxHwids: input.maxHwids,
  noHwidValidation: input.noHwidValidation,
  isPremium: input.isPremium,
  maxSessions: input.maxSessions,
});

/** The account a generate records as the keys' maker: a service key is its owner's machine credential, so the owner. */
async function creatorOf(db: Db, actor: Actor): Promise<KeyCreator | null> {
  if (actor.accountId === null) return null;
  if (actor.username !== undefined) return { accountId: actor.accountId, username: actor.username };
  const account = await db.selectFrom('accounts').select('username').where('id', '=', actor.accountId).executeTakeFirst();
  return { accountId: actor.accountId, username: account?.username ?? null };
}
