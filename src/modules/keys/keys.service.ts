import type { Updateable } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { ActiveKeysTable, GeneratedKeysTable } from '../../db/schema.ts';
import { AppError, invalid, notFound } from '../../errors.ts';
import { DAY_MS, iso, LATEST_TIME_MS, parseFutureTime } from '../../lib/time.ts';
import type { Db } from '../../db/database.ts';
import { extendKeys } from './keys-bulk.repository.ts';
import { keyEditDetails } from './key-edit-audit.ts';
import * as repo from './keys.repository.ts';
import { recordServiceAudit } from '../audit/audit.service.ts';
import type { Actor } from '../audit/actor.ts';
import { assertOwnKey, keyScopeOf, keysByChatForActor } from './key-scope.ts';
import { refundResellerKey, roleForbidden } from '../services/services.service.ts';
import { syncChatRoles } from '../discord-role/discord-role.service.ts';
import { emitEvent, keyEventData } from '../events/events.service.ts';
import { banPatch, statusNow } from './key-bans.ts';
import { endSessions } from '../sessions/session-ending.service.ts';
import { afterActiveKeyEdit } from './key-edit-sessions.ts';
import { checkEditWithinPolicy } from './key-edit-role.ts';
import { flag } from './keys-generate.service.ts';
import type { KeyStatus, TimeInput } from './key-types.ts';
import { toActiveKeyView, toGeneratedKeyView } from './keys-view.ts';

/** Which role a key edit needs (contract §17), for the routes and the Luarmor layer. */
export { editAction } from './key-edit-role.ts';

/** At most MAX_LOOKUP_ROWS rows; `truncated` says more matched (the answer says so rather than stopping silently). */
function capped<T>(rows: T[]): { rows: T[]; truncated: boolean } {
  return { rows: rows.slice(0, repo.MAX_LOOKUP_ROWS), truncated: rows.length > repo.MAX_LOOKUP_ROWS };
}

/** `actor`: a reseller finds only its own keys. */
export async function findActiveKeys(ctx: AppContext, serviceId: string, by: repo.ActiveLookup, actor: Actor) {
  const scope = keyScopeOf(actor);
  const { rows, truncated } = capped(await repo.searchActiveKeys(ctx.db, serviceId, by, scope));
  if (rows.length === 0) throw notFound('Key');
  return { rows: await repo.withHwids(ctx.db, rows), truncated };
}

export async function findGeneratedKeys(ctx: AppContext, serviceId: string, by: repo.GeneratedLookup, actor: Actor) {
  const scope = keyScopeOf(actor);
  const { rows, truncated } = capped(await repo.searchGeneratedKeys(ctx.db, serviceId, by, scope));
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
  /** With status banned only (contract §19): the ban's reason and end; an absent one is null (permanent). */
  banReason?: string | null;
  banExpiresAt?: TimeInput | null;
  /** Set by the Luarmor blacklist (§16.2): the token its unban link spends. Not an API field. */
  unbanToken?: string;
  maxSessions?: number;
}

/** A ban's fields belong to a ban: sent with another status (or none) they would silently do nothing. */
function checkBanFields(edit: KeyEdit) {
  if (edit.status === 'banned') return;
  for (const field of ['banReason', 'banExpiresAt'] as const) {
    if (edit[field] !== undefined) throw invalid(field, `${field} is only used with status banned`);
  }
}

function commonPatch(edit: KeyEdit, now: number) {
  checkBanFields(edit);
  const patch: Updateable<ActiveKeysTable> & Updateable<GeneratedKeysTable> = {};
  if (edit.note !== undefined) patch.note = edit.note;
  if (edit.isPremium !== undefined) patch.isPremium = flag(edit.isPremium);
  if (edit.noHwidValidation !== undefined) patch.noHwidValidation = flag(edit.noHwidValidation);
  if (edit.status !== undefined) {
    patch.status = edit.status;
    const expiresAt =
      edit.banExpiresAt === undefined || edit.banExpiresAt === null
        ? null
        : parseFutureTime('banExpiresAt', edit.banExpiresAt, now, ' (omit it for a permanent ban)');
    Object.assign(patch, banPatch(edit.status, { reason: edit.banReason, expiresAt, unbanToken: edit.unbanToken }));
  }
  if (edit.chatId !== undefined) patch.chatId = edit.chatId;
  // Lowering it below the bound count keeps the bound HWIDs; it only stops new ones binding.
  if (edit.maxHwids !== undefined) patch.maxHwids = edit.maxHwids;
  // Lowering it leaves running sessions alone; it only refuses new ones over the limit.
  if (edit.maxSessions !== undefined) patch.maxSessions = edit.maxSessions;
  // A new expiry in the past is refused as on generate: a typo (2001 for 2031) would expire the buyer's key at once.
  if (edit.expiresAt !== undefined) patch.expiresAt = edit.expiresAt === null ? null : parseFutureTime('expiresAt', edit.expiresAt, now);
  return patch;
}

export async function editActiveKey(ctx: AppContext, serviceId: string, key: string, edit: KeyEdit, actor: Actor) {
  const edited = await editActiveKeyRow(ctx, serviceId, key, edit, actor);
  await afterActiveKeyEdit(ctx, serviceId, edited, edit);
  return edited;
}

async function editActiveKeyRow(ctx: AppContext, serviceId: string, key: string, edit: KeyEdit, actor: Actor) {
  const patch: Updateable<ActiveKeysTable> = commonPatch(edit, ctx.clock());
  await assertOwnKey(ctx.db, serviceId, key, actor);
  return ctx.db.transaction().execute((trx) => applyActiveKeyEdit(ctx, trx, serviceId, key, edit, patch, actor));
}

/**
 * The edit of an active key inside the caller's transaction, for a caller whose change is larger (the Luarmor blacklist
 * bans the key and blacklists its HWIDs at once). `patch` is commonPatch's, checked before the transaction opened.
 */
export async function editActiveKeyIn(ctx: AppContext, trx: Db, serviceId: string, key: string, edit: KeyEdit, actor: Actor) {
  const patch = commonPatch(edit, ctx.clock());
  await assertOwnKey(trx, serviceId, key, actor);
  return applyActiveKeyEdit(ctx, trx, serviceId, key, edit, patch, actor);
}

async function applyActiveKeyEdit(
  ctx: AppContext,
  trx: Db,
  serviceId: string,
  key: string,
  edit: KeyEdit,
  patch: Updateable<ActiveKeysTable>,
  actor: Actor,
) {
  {
    // The row before the change: the audit lists what changed, and a key moved to another user may take the role
    // from the first one.
    await checkEditWithinPolicy(trx, serviceId, edit, actor);
    const found = await repo.findActiveKey(trx, serviceId, key);
    const [before] = found ? await repo.withHwids(trx, [found]) : [];
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
    const [withHwids] = await repo.withHwids(trx, [row]);
    await recordServiceAudit(trx, actor, serviceId, 'key.update', key, keyEditDetails('active', before ?? {}, withHwids!, edit), now);
    await syncChatRoles(trx, serviceId, [row.chatId, before?.chatId ?? null], now);
    if (edit.status === 'banned') await emitEvent(trx, serviceId, 'key.banned', keyEventData(serviceId, row), now);
    return withHwids!;
  }
}

export interface GeneratedKeyEdit extends Omit<KeyEdit, 'hwid'> {
  /** lifetime: the Luarmor API's `auth_expire: -1`, which makes any key lifetime (contract §23). */
  expirationType?: 'afterRedeem' | 'lifetime';
  days?: number;
}

/** The expiry part of a generated key's edit: a date, time that starts at redemption (contract §12.1), or none. */
function generatedExpiryPatch(edit: GeneratedKeyEdit): Updateable<GeneratedKeysTable> {
  if (edit.expirationType === 'lifetime') {
    if (edit.expiresAt !== undefined || edit.days !== undefined) throw invalid('expirationType', 'a lifetime key has no expiry nor days');
    return { expirationType: 'lifetime', expiresAt: null, durationDays: null };
  }
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
  await assertOwnKey(ctx.db, serviceId, key, actor, 'Generated key');
  return ctx.db.transaction().execute((trx) => applyGeneratedKeyEdit(ctx, trx, serviceId, key, edit, patch, actor));
}

/** editGeneratedKey inside the caller's transaction (see editActiveKeyIn). */
export async function editGeneratedKeyIn(ctx: AppContext, trx: Db, serviceId: string, key: string, edit: GeneratedKeyEdit, actor: Actor) {
  const { expirationType: _type, days: _days, ...common } = edit;
  const patch = { ...commonPatch(common, ctx.clock()), ...generatedExpiryPatch(edit) };
  await assertOwnKey(trx, serviceId, key, actor, 'Generated key');
  return applyGeneratedKeyEdit(ctx, trx, serviceId, key, edit, patch, actor);
}

async function applyGeneratedKeyEdit(
  ctx: AppContext,
  trx: Db,
  serviceId: string,
  key: string,
  edit: GeneratedKeyEdit,
  patch: Updateable<GeneratedKeysTable>,
  actor: Actor,
) {
  {
    await checkEditWithinPolicy(trx, serviceId, edit, actor);
    const before = await repo.findGeneratedKey(trx, serviceId, key);
    if (Object.keys(patch).length > 0) {
      const result = await repo.updateGeneratedKey(trx, serviceId, key, patch);
      if (Number(result.numUpdatedRows) === 0) throw notFound('Generated key');
    }
    // A date given to a key whose time started at redemption makes it a dated key.
    if (edit.expiresAt !== undefined) await repo.endAfterRedeem(trx, serviceId, key);
    const row = await repo.findGeneratedKey(trx, serviceId, key);
    if (!row) throw notFound('Generated key');
    await recordServiceAudit(trx, actor, serviceId, 'key.update', key, keyEditDetails('generated', before ?? {}, row, edit), ctx.clock());
    // A linked key counts for the buyer role before its first run (contract §24.3), so its changes move the role too.
    await syncChatRoles(trx, serviceId, [row.chatId, before?.chatId ?? null], ctx.clock());
    if (edit.status === 'banned')
      await emitEvent(trx, serviceId, 'key.banned', keyEventData(serviceId, { ...row, hwid: null }), ctx.clock());
    return row;
  }
}

export async function deleteActiveKey(ctx: AppContext, serviceId: string, key: string, actor: Actor) {
  await assertOwnKey(ctx.db, serviceId, key, actor);
  // A reseller deletes only its own unredeemed keys; a redeemed one is a buyer's.
  if (keyScopeOf(actor) !== null) throw roleForbidden('reseller');
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
  await assertOwnKey(ctx.db, serviceId, key, actor, 'Generated key');
  await ctx.db.transaction().execute(async (trx) => {
    const before = await repo.findGeneratedKey(trx, serviceId, key);
    const result = await repo.deleteGeneratedKey(trx, serviceId, key);
    if (Number(result.numDeletedRows) === 0 || !before) throw notFound('Generated key');
    const now = ctx.clock();
    // Contract §17: a reseller's own unredeemed key deleted gives one back (in the same transaction as the delete).
    const reseller = keyScopeOf(actor);
    if (reseller !== null) await refundResellerKey(trx, serviceId, reseller);
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
  await assertOwnKey(ctx.db, serviceId, key, actor);
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
      return { type: 'active' as const, view: toActiveKeyView(withHwids!, now) };
    }
    const generated = await repo.findGeneratedKey(trx, serviceId, key);
    if (!generated) throw notFound('Key');
    if (generated.expirationType === 'afterRedeem') {
      // Its time has not started: the days go to the length it will run once redeemed (added by the database, so
      // concurrent extensions add up).
      const durationDays = await repo.addDurationDays(trx, serviceId, key, days);
      if (durationDays > MAX_DURATION_DAYS) throw invalid('days', `days would make the key run more than ${MAX_DURATION_DAYS} days`);
      await recordServiceAudit(trx, actor, serviceId, 'key.extend', key, { type: 'generated', days, durationDays }, now);
      return { type: 'generated' as const, view: toGeneratedKeyView({ ...generated, durationDays }, now) };
    }
    if (generated.expiresAt === null) throw lifetime();
    const expiresAt = await extend(trx, 'generatedKeys');
    return { type: 'generated' as const, view: toGeneratedKeyView({ ...generated, expiresAt }, now) };
  });
}

export async function keyBinding(ctx: AppContext, serviceId: string, key: string, type: 'active' | 'generated', actor: Actor) {
  await assertOwnKey(ctx.db, serviceId, key, actor, type === 'active' ? 'Active key' : 'Generated key');
  if (type === 'active') {
    const row = await repo.findActiveKey(ctx.db, serviceId, key);
    if (!row) throw notFound('Active key');
    return { key, type, bound: row.hwid !== null, hwid: row.hwid };
  }
  const row = await repo.findGeneratedKey(ctx.db, serviceId, key);
  if (!row) throw notFound('Generated key');
  return { key, type, bound: false, hwid: null };
}

/** A key is usable now when it is active (or its ban has ended), not expired, and (for generated keys) redeemable. */
export const isUsableNow = (row: { status: KeyStatus; expiresAt: number | null; banExpiresAt: number | null }, now: number) =>
  statusNow(row, now) === 'active' && (row.expiresAt === null || row.expiresAt > now);

export async function keysByChat(ctx: AppContext, serviceId: string, chatId: string, actor: Actor) {
  const { active, generated } = await keysByChatForActor(ctx.db, serviceId, chatId, actor);
  const now = ctx.clock();
  const keys = [
    ...(await repo.withHwids(ctx.db, active)).map((row) => ({ type: 'active' as const, ...toActiveKeyView(row, now) })),
    ...generated.map((row) => ({ type: 'generated' as const, ...toGeneratedKeyView(row, now) })),
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
  activeKeysByChat,
  bindAnotherHwid,
  countKeyExecution,
  countKeys,
  findActiveKey,
  findGeneratedKey,
  findKeyByUnbanToken,
  generatedKeysByChat,
  insertGeneratedKeys,
  isHwidBound,
  searchActiveKeys,
  takeUnbanToken,
  withHwids,
  type ActiveKeyRow,
  type GeneratedKeyRow,
} from './keys.repository.ts';
export { scriptLoadstrings } from './loadstrings.ts';
// Whether a ban is in force and how the buyer reads it (contract §19): validation and the Luarmor API judge keys alike.
export { bannedMessage, banNow, statusNow } from './key-bans.ts';
export { resetAnswer, resetHwid, type ResetOutcome, type ResetResult } from './keys-reset.service.ts';
export { toActiveKeyView, toGeneratedKeyView };
export { afterActiveKeyEdit } from './key-edit-sessions.ts';
// Every lookup of keys for an actor, with its scope (contract §17, §27).
export {
  activeKeysByHwidForActor,
  assertOwnKey,
  countKeysForActor,
  keyForActor,
  keysByChatForActor,
  keyScopeOf,
  type ScopedKey,
} from './key-scope.ts';
export {
  generateBoundKey,
  generateKeys,
  insertNewKeys,
  KEY_LENGTH,
  newLicenseKey,
  type GenerateInput,
  type KeyCreator,
} from './keys-generate.service.ts';
export type { ExpirationType, KeyStatus, TimeInput } from './key-types.ts';
