import type { Updateable } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { ActiveKeysTable, Flag, GeneratedKeysTable } from '../../db/schema.ts';
import { AppError, invalid, notFound } from '../../errors.ts';
import { randomAlphanumeric } from '../../lib/random.ts';
import { DAY_MS, iso, LATEST_TIME_MS, parseFutureTime } from '../../lib/time.ts';
import type { Db } from '../../db/database.ts';
import { extendKeys } from './keys-bulk.repository.ts';
import * as repo from './keys.repository.ts';
import { recordServiceAudit } from '../audit/audit.service.ts';
import type { Actor } from '../audit/actor.ts';
import { syncChatRoles } from '../discord-role/discord-role.service.ts';
import { emitEvent, keyEventData } from '../events/events.service.ts';
import { endSessions, type EndReason } from '../sessions/session-ending.service.ts';

export const KEY_LENGTH = 32;
export const newLicenseKey = () => randomAlphanumeric(KEY_LENGTH);
const flag = (value: boolean | undefined): Flag => (value ? 1 : 0);

export type KeyStatus = 'active' | 'paused' | 'banned';
export type ExpirationType = 'byDays' | 'byDate' | 'lifetime' | 'afterRedeem';
type TimeInput = string | number;

/** The fields active and generated keys share, as the API shows them. */
function keyFieldsView(row: repo.ActiveKeyRow | repo.GeneratedKeyRow) {
  return {
    note: row.note,
    isPremium: row.isPremium === 1,
    noHwidValidation: row.noHwidValidation === 1,
    status: row.status,
    expiresAt: iso(row.expiresAt),
    chatId: row.chatId,
    maxHwids: row.maxHwids,
    maxSessions: row.maxSessions,
  };
}

export function toActiveKeyView(row: repo.ActiveKeyWithHwids) {
  return {
    key: row.key,
    hwid: row.hwids[0] ?? null,
    hwids: row.hwids,
    ...keyFieldsView(row),
    executions: row.executions,
    createdAt: iso(row.createdAt)!,
    activatedAt: iso(row.activatedAt)!,
    lastUsedAt: iso(row.lastUsedAt),
    hwidResetAt: iso(row.hwidResetAt),
    hwidResetCount: row.hwidResetCount,
  };
}

export function toGeneratedKeyView(row: repo.GeneratedKeyRow) {
  return {
    key: row.key,
    ...keyFieldsView(row),
    expirationType: row.expirationType,
    durationDays: row.durationDays ?? null,
    createdAt: iso(row.createdAt)!,
  };
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
export async function insertNewKeys(trx: Db, serviceId: string, input: GenerateInput, now: number) {
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
  }));
  await repo.insertGeneratedKeys(trx, rows);
  return rows;
}

export async function generateKeys(ctx: AppContext, serviceId: string, input: GenerateInput, actor: Actor) {
  const now = ctx.clock();
  // Checked before the transaction opens, so bad input never holds a connection.
  expiryFor(input, now);
  return ctx.db.transaction().execute(async (trx) => {
    const rows = await insertNewKeys(trx, serviceId, input, now);
    const details = { count: rows.length, expirationType: input.expirationType, isPremium: input.isPremium === true };
    await recordServiceAudit(trx, actor, serviceId, 'key.generate', rows.length === 1 ? rows[0]!.key : null, details, now);
    return rows;
  });
}

/** At most MAX_LOOKUP_ROWS rows; `truncated` says more matched (the answer says so rather than stopping silently). */
function capped<T>(rows: T[]): { rows: T[]; truncated: boolean } {
  return { rows: rows.slice(0, repo.MAX_LOOKUP_ROWS), truncated: rows.length > repo.MAX_LOOKUP_ROWS };
}

export async function findActiveKeys(ctx: AppContext, serviceId: string, by: repo.ActiveLookup) {
  const { rows, truncated } = capped(await repo.searchActiveKeys(ctx.db, serviceId, by));
  if (rows.length === 0) throw notFound('Key');
  return { rows: await repo.withHwids(ctx.db, rows), truncated };
}

export async function findGeneratedKeys(ctx: AppContext, serviceId: string, by: repo.GeneratedLookup) {
  const { rows, truncated } = capped(await repo.searchGeneratedKeys(ctx.db, serviceId, by));
  if (rows.length === 0) throw notFound('Generated key');
  return { rows, truncated };
}

export interface KeyEdit {
  note?: string | null;
  hwid?: string | null;
  isPremium?: boolean;
  noHwidValidation?: boolean;
  status?: KeyStatus;
  expiresAt?: TimeInput | null;
  chatId?: string | null;
  maxHwids?: number;
  maxSessions?: number;
}

function commonPatch(edit: KeyEdit, now: number) {
  const patch: Updateable<ActiveKeysTable> & Updateable<GeneratedKeysTable> = {};
  if (edit.note !== undefined) patch.note = edit.note;
  if (edit.isPremium !== undefined) patch.isPremium = flag(edit.isPremium);
  if (edit.noHwidValidation !== undefined) patch.noHwidValidation = flag(edit.noHwidValidation);
  if (edit.status !== undefined) patch.status = edit.status;
  if (edit.chatId !== undefined) patch.chatId = edit.chatId;
  // Lowering it below the bound count keeps the bound HWIDs; it only stops new ones binding.
  if (edit.maxHwids !== undefined) patch.maxHwids = edit.maxHwids;
  // Lowering it leaves running sessions alone; it only refuses new ones over the limit.
  if (edit.maxSessions !== undefined) patch.maxSessions = edit.maxSessions;
  // A new expiry in the past is refused as on generate: a typo (2001 for 2031) would expire the buyer's key at once.
  if (edit.expiresAt !== undefined) patch.expiresAt = edit.expiresAt === null ? null : parseFutureTime('expiresAt', edit.expiresAt, now);
  return patch;
}

/** What an edit does to the key's running sessions (contract §18): a ban, a pause or a new binding ends them. */
function sessionEndOf(edit: KeyEdit): EndReason | null {
  if (edit.status === 'banned') return 'KEY_BANNED';
  if (edit.status === 'paused') return 'KEY_PAUSED';
  if (edit.hwid !== undefined) return 'HWID_RESET';
  return null;
}

export async function editActiveKey(ctx: AppContext, serviceId: string, key: string, edit: KeyEdit, actor: Actor) {
  const edited = await editActiveKeyRow(ctx, serviceId, key, edit, actor);
  const reason = sessionEndOf(edit);
  if (reason) await endSessions(ctx, serviceId, { key }, reason);
  return edited;
}

async function editActiveKeyRow(ctx: AppContext, serviceId: string, key: string, edit: KeyEdit, actor: Actor) {
  const patch: Updateable<ActiveKeysTable> = commonPatch(edit, ctx.clock());
  return ctx.db.transaction().execute(async (trx) => {
    // The chat id before the change: a key moved to another user may take the role from the first one.
    const before = edit.chatId !== undefined ? await repo.findActiveKey(trx, serviceId, key) : undefined;
    if (Object.keys(patch).length > 0) {
      const result = await repo.updateActiveKey(trx, serviceId, key, patch);
      if (Number(result.numUpdatedRows) === 0) throw notFound('Key');
    }
    // null clears every HWID; a string leaves exactly that one.
    if (edit.hwid !== undefined) {
      const result = await repo.replaceHwids(trx, serviceId, key, edit.hwid === null ? [] : [edit.hwid]);
      if (Number(result.numUpdatedRows) === 0) throw notFound('Key');
    }
    const row = await repo.findActiveKey(trx, serviceId, key);
    if (!row) throw notFound('Key');
    const now = ctx.clock();
    await recordServiceAudit(trx, actor, serviceId, 'key.update', key, { type: 'active', ...edit }, now);
    const [withHwids] = await repo.withHwids(trx, [row]);
    await syncChatRoles(trx, serviceId, [row.chatId, before?.chatId ?? null], now);
    if (edit.status === 'banned') await emitEvent(trx, serviceId, 'key.banned', keyEventData(serviceId, row), now);
    return withHwids!;
  });
}

export interface GeneratedKeyEdit extends Omit<KeyEdit, 'hwid'> {
  expirationType?: 'afterRedeem';
  days?: number;
}

/** The expiry part of a generated key's edit: a date, or time that starts at redemption (contract §12.1). */
function generatedExpiryPatch(edit: GeneratedKeyEdit): Updateable<GeneratedKeysTable> {
  if (edit.expiresAt === null) throw invalid('expiresAt', 'expiresAt of a generated key cannot be null');
  if (edit.expirationType === 'afterRedeem') {
    if (edit.days === undefined) throw invalid('days', 'days is required when expirationType is afterRedeem');
    if (edit.expiresAt !== undefined) throw invalid('expiresAt', 'expiresAt is not used when expirationType is afterRedeem');
    return { expirationType: 'afterRedeem', expiresAt: null, durationDays: edit.days };
  }
  if (edit.days !== undefined) throw invalid('days', 'days is only used with expirationType afterRedeem');
  return {};
}

export async function editGeneratedKey(ctx: AppContext, serviceId: string, key: string, edit: GeneratedKeyEdit, actor: Actor) {
  const { expirationType: _type, days: _days, ...common } = edit;
  const patch = { ...commonPatch(common, ctx.clock()), ...generatedExpiryPatch(edit) };
  return ctx.db.transaction().execute(async (trx) => {
    if (Object.keys(patch).length > 0) {
      const result = await repo.updateGeneratedKey(trx, serviceId, key, patch);
      if (Number(result.numUpdatedRows) === 0) throw notFound('Generated key');
    }
    // A date given to a key whose time started at redemption makes it a dated key.
    if (edit.expiresAt !== undefined) await repo.endAfterRedeem(trx, serviceId, key);
    const row = await repo.findGeneratedKey(trx, serviceId, key);
    if (!row) throw notFound('Generated key');
    await recordServiceAudit(trx, actor, serviceId, 'key.update', key, { type: 'generated', ...edit }, ctx.clock());
    return row;
  });
}

export async function deleteActiveKey(ctx: AppContext, serviceId: string, key: string, actor: Actor) {
  await ctx.db.transaction().execute(async (trx) => {
    const before = await repo.findActiveKey(trx, serviceId, key);
    const result = await repo.deleteActiveKey(trx, serviceId, key);
    if (Number(result.numDeletedRows) === 0 || !before) throw notFound('Key');
    const now = ctx.clock();
    await recordServiceAudit(trx, actor, serviceId, 'key.delete', key, { type: 'active' }, now);
    await syncChatRoles(trx, serviceId, [before.chatId], now);
    await emitEvent(trx, serviceId, 'key.deleted', keyEventData(serviceId, before), now);
  });
  await endSessions(ctx, serviceId, { key }, 'KEY_DELETED');
}

export async function deleteGeneratedKey(ctx: AppContext, serviceId: string, key: string, actor: Actor) {
  await ctx.db.transaction().execute(async (trx) => {
    const before = await repo.findGeneratedKey(trx, serviceId, key);
    const result = await repo.deleteGeneratedKey(trx, serviceId, key);
    if (Number(result.numDeletedRows) === 0 || !before) throw notFound('Generated key');
    const now = ctx.clock();
    await recordServiceAudit(trx, actor, serviceId, 'key.delete', key, { type: 'generated' }, now);
    await emitEvent(trx, serviceId, 'key.deleted', keyEventData(serviceId, { ...before, hwid: null }), now);
  });
}

/** The longest an afterRedeem key may run once redeemed, extensions included (about 100 years). */
const MAX_DURATION_DAYS = 36_500;

const lifetime = () => new AppError('LIFETIME_KEY', 'Lifetime keys cannot be extended');

/** New expiry = the later of now and the old expiry, plus `days`; works on active and generated keys. */
export async function extendKey(ctx: AppContext, serviceId: string, key: string, days: number, actor: Actor) {
  const now = ctx.clock();
  // The database adds the days to the expiry as it is when the row is written, so two extensions at once
  // both count; one past the latest time rolls the transaction back.
  const extend = async (trx: Db, table: 'activeKeys' | 'generatedKeys') => {
    const [row] = await extendKeys(trx, serviceId, table, [key], days * DAY_MS, now);
    const expiresAt = row!.expiresAt!;
    if (expiresAt > LATEST_TIME_MS) throw invalid('days', `days would take the expiry past ${iso(LATEST_TIME_MS)}`);
    await recordServiceAudit(
      trx,
      actor,
      serviceId,
      'key.extend',
      key,
      { type: table === 'activeKeys' ? 'active' : 'generated', days, expiresAt: iso(expiresAt) },
      now,
    );
    return expiresAt;
  };
  return ctx.db.transaction().execute(async (trx) => {
    const active = await repo.findActiveKey(trx, serviceId, key);
    if (active) {
      if (active.expiresAt === null) throw lifetime();
      const expiresAt = await extend(trx, 'activeKeys');
      const [withHwids] = await repo.withHwids(trx, [{ ...active, expiresAt }]);
      return { type: 'active' as const, view: toActiveKeyView(withHwids!) };
    }
    const generated = await repo.findGeneratedKey(trx, serviceId, key);
    if (!generated) throw notFound('Key');
    if (generated.expirationType === 'afterRedeem') {
      // Its time has not started: the days go to the length it will run once redeemed (added by the database, so
      // concurrent extensions add up).
      const durationDays = await repo.addDurationDays(trx, serviceId, key, days);
      if (durationDays > MAX_DURATION_DAYS) throw invalid('days', `days would make the key run more than ${MAX_DURATION_DAYS} days`);
      await recordServiceAudit(trx, actor, serviceId, 'key.extend', key, { type: 'generated', days, durationDays }, now);
      return { type: 'generated' as const, view: toGeneratedKeyView({ ...generated, durationDays }) };
    }
    if (generated.expiresAt === null) throw lifetime();
    const expiresAt = await extend(trx, 'generatedKeys');
    return { type: 'generated' as const, view: toGeneratedKeyView({ ...generated, expiresAt }) };
  });
}

export async function keyBinding(ctx: AppContext, serviceId: string, key: string, type: 'active' | 'generated') {
  if (type === 'active') {
    const row = await repo.findActiveKey(ctx.db, serviceId, key);
    if (!row) throw notFound('Active key');
    return { key, type, bound: row.hwid !== null, hwid: row.hwid };
  }
  const row = await repo.findGeneratedKey(ctx.db, serviceId, key);
  if (!row) throw notFound('Generated key');
  return { key, type, bound: false, hwid: null };
}

/** A key is usable now when it is active, not expired, and (for generated keys) redeemable. */
export const isUsableNow = (row: { status: KeyStatus; expiresAt: number | null }, now: number) =>
  row.status === 'active' && (row.expiresAt === null || row.expiresAt > now);

export async function keysByChat(ctx: AppContext, serviceId: string, chatId: string) {
  const [active, generated] = await Promise.all([
    repo.activeKeysByChat(ctx.db, serviceId, chatId),
    repo.generatedKeysByChat(ctx.db, serviceId, chatId),
  ]);
  const now = ctx.clock();
  const keys = [
    ...(await repo.withHwids(ctx.db, active)).map((row) => ({ type: 'active' as const, ...toActiveKeyView(row) })),
    ...generated.map((row) => ({ type: 'generated' as const, ...toGeneratedKeyView(row) })),
  ];
  const usable = [...active, ...generated].find((row) => isUsableNow(row, now));
  return { keys, anyValid: usable !== undefined, usableKey: usable?.key ?? null };
}

export async function compensate(ctx: AppContext, serviceId: string, days: number, actor: Actor) {
  const shifted = await ctx.db.transaction().execute(async (trx) => {
    const counts = await repo.shiftExpiries(trx, serviceId, days * DAY_MS, LATEST_TIME_MS);
    const details = { days, activeKeysUpdated: counts.active, generatedKeysUpdated: counts.generated };
    await recordServiceAudit(trx, actor, serviceId, 'keys.compensate', null, details, ctx.clock());
    return counts;
  });
  return { activeKeysUpdated: shifted.active, generatedKeysUpdated: shifted.generated };
}

/**
 * What other modules may use of the keys module beyond the functions above, each named here so the keys module
 * decides what it shares:
 * - validation reads a key and binds an HWID with the same conditional writes the keys routes use (the race rules of
 *   redemption and binding live in one repository);
 * - the key system issues generated keys; the service settings count keys and executions for the overview;
 * - the chat commands answer with the script loadstrings.
 */
export {
  bindAnotherHwid,
  countKeyExecution,
  countKeys,
  findActiveKey,
  findGeneratedKey,
  insertGeneratedKeys,
  isHwidBound,
  type ActiveKeyRow,
} from './keys.repository.ts';
export { scriptLoadstrings } from './loadstrings.ts';
export { resetAnswer, resetHwid, type ResetOutcome, type ResetResult } from './keys-reset.service.ts';
