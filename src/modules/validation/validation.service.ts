import type { AppContext } from '../../context.ts';
import { findBanInForce } from '../blacklist/blacklist.service.ts';
import { findKeyless } from '../keyless/keyless.service.ts';
import * as keys from '../keys/keys.service.ts';
import { iso } from '../../lib/time.ts';
import { UNKNOWN_EXECUTOR } from '../../lib/executor.ts';
import { findActiveKeyAndBan, findActiveKeyAndBanNow, NOT_NOW, redeemAlone, redeemGeneratedKey } from './validation.repository.ts';
import { syncChatRoles } from '../discord-role/discord-role.service.ts';
import { emitEvent, keyEventData } from '../events/events.service.ts';
import { liftLapsedGeneratedBan, type JudgedKeyRow } from './validation.repository.ts';

/** Luarmor's codes (KEY_VALID, KEY_HWID_LOCKED, KEY_EXPIRED, KEY_BANNED, KEY_INCORRECT) plus Keyward's own. */
export type ValidationCode =
  | 'KEY_VALID'
  | 'KEYLESS'
  | 'HWID_REQUIRED'
  | 'HWID_BLACKLISTED'
  | 'KEY_INCORRECT'
  | 'KEY_BANNED'
  | 'KEY_PAUSED'
  | 'KEY_EXPIRED'
  | 'KEY_HWID_LOCKED'
  /** Contract §29: the script's executor rule excludes the run's executor (its sentence names which run it). */
  | 'EXECUTOR_UNSUPPORTED';

const MESSAGES: Record<ValidationCode, string> = {
  KEY_VALID: 'The key is valid',
  KEYLESS: 'This HWID is whitelisted',
  HWID_REQUIRED: 'No HWID was sent',
  HWID_BLACKLISTED: 'This HWID is blacklisted',
  KEY_INCORRECT: 'The key is incorrect',
  KEY_BANNED: 'The key is banned',
  KEY_PAUSED: 'The key is paused',
  KEY_EXPIRED: 'The key has expired',
  KEY_HWID_LOCKED: 'The key is bound to another HWID; reset it to use it here',
  EXECUTOR_UNSUPPORTED: 'This script does not support this executor',
};

/** An expected outcome, returned as data: refusing a key is not an exception. */
export interface Verdict {
  valid: boolean;
  code: ValidationCode;
  message: string;
  isPremium: boolean;
  expiresAt: string | null;
  /** Valid, but the HWID is not yet one of the key's: it takes a free slot only through bindForSession (§26). */
  unbound?: true;
}

function verdict(code: ValidationCode, subject?: { isPremium: number; expiresAt: number | null }): Verdict {
  return {
    valid: code === 'KEY_VALID' || code === 'KEYLESS',
    code,
    message: MESSAGES[code],
    isPremium: subject?.isPremium === 1,
    expiresAt: iso(subject?.expiresAt ?? null),
  };
}

/** HWID_BLACKLISTED in the buyer's words (contract §26): the entry's reason and end, when it has them. */
function blacklisted(entry: { reason: string | null; expiresAt: number | null } | undefined): Verdict {
  if (!entry?.reason && !entry?.expiresAt) return verdict('HWID_BLACKLISTED');
  const reason = entry.reason ? `: ${entry.reason}` : '';
  const until = entry.expiresAt ? `${reason ? ',' : ''} until ${iso(entry.expiresAt)}` : '';
  return { ...verdict('HWID_BLACKLISTED'), message: `This device is banned${reason}${until}` };
}

/** KEY_BANNED with the ban's reason when it has one (contract §19). */
const banned = (row: { isPremium: number; expiresAt: number | null; banReason: string | null }): Verdict => ({
  ...verdict('KEY_BANNED', row),
  message: keys.bannedMessage(row.banReason),
});

/**
 * The verdict of an active key from what was read, or 'bind' when its HWID must first take a free slot. The status is
 * judged at `now`: a ban past its end is no ban, so a cached copy of the row never outlives the ban (§19).
 */
function judgeActive(row: JudgedKeyRow, hwidBound: boolean, now: number): Verdict | 'bind' {
  const status = keys.statusNow(row, now);
  if (status === 'banned') return banned(row);
  if (status === 'paused') return verdict('KEY_PAUSED', row);
  if (row.expiresAt !== null && row.expiresAt <= now) return verdict('KEY_EXPIRED', row);
  // Full as last read: refuse without a write. Otherwise the database decides who gets a free slot.
  if (row.noHwidValidation !== 1 && !hwidBound) return row.hwidCount >= row.maxHwids ? verdict('KEY_HWID_LOCKED', row) : 'bind';
  return verdict('KEY_VALID', row);
}

async function checkActive(
  ctx: AppContext,
  serviceId: string,
  row: JudgedKeyRow,
  hwid: string,
  hwidBound: boolean,
  now: number,
  bindNow = true,
): Promise<Verdict> {
  const judged = judgeActive(row, hwidBound, now);
  if (judged !== 'bind' && !judged.valid) return judged;
  if (judged === 'bind' && !bindNow) return { ...verdict('KEY_VALID', await started(ctx, serviceId, row, now)), unbound: true };
  if (judged === 'bind') {
    // Binding writes lastUsedAt itself, in the same statement that takes the slot.
    const outcome = await ctx.db.transaction().execute((trx) => keys.bindAnotherHwid(trx, serviceId, row.key, hwid, now));
    if (outcome === 'full') return verdict('KEY_HWID_LOCKED', row);
    if (outcome === 'bound') return verdict('KEY_VALID', await started(ctx, serviceId, row, now));
  }
  // A valid answer's lastUsedAt is written by the next flush (key-touches.ts), not by this request.
  ctx.touches.touch(serviceId, row.key, now);
  // The common case (no pending days) answers without another await.
  return verdict('KEY_VALID', row.pendingDays === null ? row : await started(ctx, serviceId, row, now));
}

/**
 * The key as a valid answer shows it: one whose time waits for its first validation (contract §23) has it started
 * now, or by whichever validation (on any instance) started it first. A key with no pending days is as it was read.
 */
async function started(ctx: AppContext, serviceId: string, row: JudgedKeyRow, now: number): Promise<JudgedKeyRow> {
  if (row.pendingDays === null) return row;
  const after = await keys.startPendingTime(ctx.db, serviceId, row.key, now);
  return { ...row, expiresAt: after?.expiresAt ?? null, pendingDays: null };
}

/** Redeems a generated key when it can be redeemed now (see redeemGeneratedKey); null when it was not. */
async function redeem(ctx: AppContext, serviceId: string, key: string, hwid: string, now: number): Promise<Verdict | null> {
  // Most redemptions are one statement; a key that is no generated key (a typo, a guess) costs one read, not a write
  // transaction.
  const alone = await redeemAlone(ctx.db, ctx.dialect, { serviceId, key, hwid, now });
  const redeemed = alone === 'generated' ? await redeemWithWhatCommitsWithIt(ctx, serviceId, key, hwid, now) : alone;
  if (redeemed === 'absent' || !redeemed) return null;
  ctx.analytics.countRedemption(serviceId);
  return verdict('KEY_VALID', redeemed);
}

/** The buyer role and the key.redeemed event commit with the redemption (contract §12.3, §12.4). */
function redeemWithWhatCommitsWithIt(ctx: AppContext, serviceId: string, key: string, hwid: string, now: number) {
  return ctx.db.transaction().execute(async (trx) => {
    const taken = await redeemGeneratedKey(trx, ctx.dialect, { serviceId, key, hwid, now });
    if (!taken) return undefined;
    await syncChatRoles(trx, serviceId, [taken.chatId], now);
    await emitEvent(trx, serviceId, 'key.redeemed', keyEventData(serviceId, taken), now);
    return taken;
  });
}

/**
 * The verdict of /keys/validate, the loader's fetch and the Lua check; each one is counted for analytics. An active
 * key whose answer needs no write (lastUsedAt is written in batches) is answered without a promise, so a caller that
 * can send a plain value (the validate route) skips the async steps: when this instance judged it within
 * VERDICT_CACHE_MS (the executor loop), and on SQLite whenever its connection is free (a lookup there is a call in this
 * process; real traffic is many keys, each validated rarely).
 */
export function validateKey(
  ctx: AppContext,
  serviceId: string,
  input: ClientRun,
  countValid = true,
  bindNow = true,
): Verdict | Promise<Verdict> {
  const atOnce = validateAtOnce(ctx, serviceId, input);
  if (atOnce === NOT_NOW || atOnce === ABSENT) {
    return judge(ctx, serviceId, input, atOnce === ABSENT, bindNow).then((result) =>
      counted(ctx, serviceId, result, countValid, input.executor),
    );
  }
  return counted(ctx, serviceId, atOnce, countValid, input.executor);
}

/**
 * What a client route hands validation: the key, the HWID and (contract §29) the executor the run reported, as counted
 * (executorOf: `unknown` when it named none).
 */
export interface ClientRun {
  key?: string;
  hwid?: string;
  executor?: string;
}

/**
 * A run a script's executor rule refused (contract §29): counted like any refusal, by code and by executor, before any
 * key is looked at, so nothing is bound or spent.
 */
export function countExecutorRefusal(ctx: AppContext, serviceId: string, executor: string): void {
  ctx.analytics.countVerdict(serviceId, 'EXECUTOR_UNSUPPORTED', false, executor);
}

/**
 * `countValid` false: a valid answer is not counted, because the same launch is counted by the fetch that follows
 * (the loader's session open, contract §18); a refusal ends the launch there and is counted.
 */
function counted(
  ctx: AppContext,
  serviceId: string,
  result: Verdict,
  countValid: boolean,
  executor = UNKNOWN_EXECUTOR,
): Verdict | Promise<Verdict> {
  if (countValid || !result.valid) ctx.analytics.countVerdict(serviceId, result.code, result.valid, executor);
  // The buyer's way out (contract §22): the service's self-serve reset page, named by its identifier (§27) in the
  // message they see. A refusal, so the lookup (cached per instance) is off the valid path.
  if (result.code === 'KEY_HWID_LOCKED') {
    const locked = (identifier: string) => ({
      ...result,
      message: `The key is bound to another HWID; reset it at ${ctx.config.baseUrl}/reset/${identifier} to use it here`,
    });
    const cached = ctx.services.peek(serviceId);
    return cached ? locked(cached.identifier) : ctx.services.get(serviceId).then((row) => locked(row.identifier));
  }
  return result;
}

/** validateAtOnce found no active key: the async path need not look again. */
const ABSENT = Symbol('no active key');

function validateAtOnce(
  ctx: AppContext,
  serviceId: string,
  { key, hwid }: { key?: string; hwid?: string },
): Verdict | typeof NOT_NOW | typeof ABSENT {
  if (!key || !hwid) return NOT_NOW;
  const now = ctx.clock();
  const found = ctx.verdicts.getNow(serviceId, key, hwid, () => findActiveKeyAndBanNow(ctx.db, serviceId, key, hwid, now));
  if (found === NOT_NOW) return NOT_NOW;
  if (!found) return ABSENT;
  // The ban's words take a read of its entry: the rare path, left to the async one.
  if (found.hwidBanned) return NOT_NOW;
  const judged = judgeActive(found.activeKey, found.hwidBound, now);
  // Binding writes, and so does starting a key's time (contract §23): the async path takes both (and finds the inputs
  // cached). The column came with the row: a key with no pending days costs nothing more.
  if (judged === 'bind' || (judged.valid && found.activeKey.pendingDays !== null)) return NOT_NOW;
  if (judged.valid) ctx.touches.touch(serviceId, found.activeKey.key, now);
  return judged;
}

/** `absent`: a lookup just now found no active key by this string (validateAtOnce), so none is made again. */
async function judge(
  ctx: AppContext,
  serviceId: string,
  input: { key?: string; hwid?: string },
  absent = false,
  bindNow = true,
): Promise<Verdict> {
  const now = ctx.clock();
  const hwid = input.hwid;
  if (!hwid) return verdict('HWID_REQUIRED');
  const key = input.key;

  // The common case (a redeemed key) costs one query; everything else takes the general path below.
  if (key) {
    const found = absent
      ? undefined
      : await ctx.verdicts.get(serviceId, key, hwid, () => findActiveKeyAndBan(ctx.db, ctx.dialect, serviceId, key, hwid, now));
    if (found?.hwidBanned) return blacklisted(await findBanInForce(ctx.db, serviceId, hwid, now));
    if (found) return checkActive(ctx, serviceId, found.activeKey, hwid, found.hwidBound, now, bindNow);
    // Not an active key: most often a generated key used for the first time, redeemed here in one statement (on
    // PostgreSQL) when nothing refuses it. When nothing was redeemed, the general path below finds out why.
    const redeemed = await redeem(ctx, serviceId, key, hwid, now);
    if (redeemed) return redeemed;
  }
  const ban = await findBanInForce(ctx.db, serviceId, hwid, now);
  if (ban) return blacklisted(ban);

  if (!key) {
    const entry = await findKeyless(ctx.db, serviceId, hwid);
    return entry && entry.expiresAt > now ? verdict('KEYLESS', entry) : verdict('KEY_INCORRECT');
  }

  // Not an active key when the query above ran, and not redeemed: a generated key says why.
  const generated = await keys.findGeneratedKey(ctx.db, serviceId, key);
  if (generated) {
    const status = keys.statusNow(generated, now);
    if (status === 'banned') return banned(generated);
    // A ban that has ended leaves nothing in the way: lifted in the row, so the redemption below can take the key.
    if (status !== generated.status) await liftLapsedGeneratedBan(ctx.db, serviceId, key, now);
    if (generated.status === 'paused') return verdict('KEY_PAUSED', generated);
    if (generated.expiresAt !== null && generated.expiresAt <= now) return verdict('KEY_EXPIRED', generated);
    // Redeemable now (generated again meanwhile, which imports can do): try once more.
    const redeemed = await redeem(ctx, serviceId, key, hwid, now);
    if (redeemed) return redeemed;
  }
  // Gone from the generated keys, or another request redeemed it first. A key only moves generated →
  // active, in one committed transaction, so one more look at the active keys is conclusive.
  const redeemedMeanwhile = await keys.findActiveKey(ctx.db, serviceId, key);
  if (!redeemedMeanwhile) return verdict('KEY_INCORRECT');
  const bound = await keys.isHwidBound(ctx.db, serviceId, key, hwid);
  return checkActive(ctx, serviceId, redeemedMeanwhile, hwid, bound, now, bindNow);
}

/**
 * Binds the HWID of an `unbound` verdict once its session has opened (contract §26: a run refused SESSION_LIMIT binds
 * nothing); null when it took a slot, else the KEY_HWID_LOCKED verdict (another device took the last slot meanwhile).
 */
export async function bindForSession(ctx: AppContext, serviceId: string, key: string, hwid: string): Promise<Verdict | null> {
  const now = ctx.clock();
  const outcome = await ctx.db.transaction().execute((trx) => keys.bindAnotherHwid(trx, serviceId, key, hwid, now));
  if (outcome !== 'full') return null;
  const row = await keys.findActiveKey(ctx.db, serviceId, key);
  return counted(ctx, serviceId, verdict('KEY_HWID_LOCKED', row), false);
}
