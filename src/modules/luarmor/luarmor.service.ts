// The Luarmor-compatible API's actions (contract §16.2): each one translates Luarmor's input and calls the domain services
// Keyward's own routes call (keys, blacklist, scripts, analytics), so every rule, audit entry and event is theirs.
import type { AppContext } from '../../context.ts';
import { AppError, invalid, unauthorized } from '../../errors.ts';
import { randomAlphanumeric } from '../../lib/random.ts';
import { DAY_MS, HOUR_MS } from '../../lib/time.ts';
import { resellerScope, type Actor } from '../audit/actor.ts';
import { blacklistForBan, removeBanEntries } from '../blacklist/blacklist.service.ts';
import * as keys from '../keys/keys.service.ts';
import { bindUnusedKey } from '../keys/keys-bind.service.ts';
import { importKeys } from '../keys/keys-import.service.ts';
import { walkKeyRowsOldestFirst, type KeyRowEntry } from '../keys/keys-list.service.ts';
import type { ServiceAction, ServiceRow } from '../services/services.service.ts';
import { analyticsOf } from '../analytics/analytics.service.ts';
import { findServiceByRef } from '../services/services.service.ts';
import { KEY_NOT_FOUND, PROJECT_NOT_FOUND, LuarmorRefusal, refuse, toLuarmorUser } from './luarmor.translate.ts';

/** A key of the service as a Luarmor user: the active key if redeemed, else the generated one, else undefined. */
export async function findUser(ctx: AppContext, serviceId: string, key: string): Promise<KeyRowEntry | undefined> {
  const active = await keys.findActiveKey(ctx.db, serviceId, key);
  if (active) return { type: 'active', row: (await keys.withHwids(ctx.db, [active]))[0]! };
  const generated = await keys.findGeneratedKey(ctx.db, serviceId, key);
  return generated ? { type: 'generated', row: generated } : undefined;
}

/**
 * The key a call acts on, as the actor may see it (contract §27): a key outside a reseller's own answers exactly as an
 * unknown one, before anything about it (ban, Discord link) can show.
 */
async function requireUser(ctx: AppContext, serviceId: string, key: string, actor: Actor, notFoundMessage = KEY_NOT_FOUND) {
  const user = await keys.keyForActor(ctx.db, serviceId, key, actor);
  if (!user) throw new LuarmorRefusal(404, notFoundMessage);
  return user;
}

export interface UserQuery {
  user_key?: string;
  discord_id?: string;
  identifier?: string;
  search?: string;
  from: number;
  /** Exclusive; undefined answers every match from `from` on (contract §23). */
  until?: number;
}

/**
 * GET /users: the matches `from`…`until`, oldest first, as Luarmor user records, read from the database page by page
 * as the caller consumes them (a million keys never sit in memory at once). A reseller sees only the keys it created,
 * through every filter (contract §17, §27).
 */
export async function* listUsers(ctx: AppContext, serviceId: string, query: UserQuery, actor: Actor) {
  const now = ctx.clock();
  const rows = walkKeyRowsOldestFirst(
    ctx,
    serviceId,
    { key: query.user_key, chatId: query.discord_id, hwid: query.identifier, search: query.search, from: query.from, until: query.until },
    actor,
  );
  for await (const entry of rows) yield toLuarmorUser(entry, now);
}

/** Luarmor's `auth_expire` as Keyward's expiry: -1 (or 0) is lifetime; anything else a future Unix time in seconds. */
function expiryOf(authExpire: number, now: number, field = 'auth_expire'): number | null {
  if (authExpire === -1 || authExpire === 0) return null;
  const ms = authExpire * 1000;
  if (!Number.isSafeInteger(ms) || ms <= now)
    throw invalid('auth_expire', `${field} must be a future Unix time in seconds, or -1 for lifetime`);
  return ms;
}

const DISCORD_ID = /^[0-9]{17,20}$/;

/**
 * A Discord user id as every Luarmor route takes it (contract §23): 17–20 digits, else 400 `Invalid discord_id`.
 * `""` is the caller's "none": undefined here (each route says what none means).
 */
function discordIdOf(value: unknown, where = ''): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (typeof value === 'string' && DISCORD_ID.test(value)) return value;
  throw refuse(`${where}Invalid discord_id`);
}

/** Whether another key the actor may see is linked to the Discord user (a reseller learns nothing of the others). */
async function discordTaken(ctx: AppContext, serviceId: string, discordId: string, actor: Actor, except?: string) {
  const { active, generated } = await keys.keysByChatForActor(ctx.db, serviceId, discordId, actor);
  return [...active, ...generated].some((row) => row.key !== except);
}

export interface CreateUserInput {
  identifier?: string;
  discord_id?: unknown;
  note?: string;
  auth_expire?: number;
  key_days?: number;
}

/** A new user's terms as Keyward's generate takes them, by Luarmor's rules (contract §16.2, §23). */
interface NewUserTerms {
  generate: keys.GenerateInput;
  identifier: string | undefined;
  discordId: string | undefined;
}

/**
 * Luarmor's rules for a new user's time (contract §23): `key_days` starts at first use, with an identifier too (the key
 * is bound at once and its time starts at its first validation); `auth_expire` alone is turned into the whole days to
 * it, rounded up, which also start at first use; with an identifier or a Discord id the user is claimed, and
 * `auth_expire` is a fixed end. `where` prefixes each refusal (an import names the entry).
 */
function newUserTerms(input: CreateUserInput, now: number, where = ''): NewUserTerms {
  const identifier = input.identifier || undefined;
  const discordId = discordIdOf(input.discord_id, where);
  const dated = input.auth_expire !== undefined && input.auth_expire !== -1 && input.auth_expire !== 0;
  if (input.key_days !== undefined && dated)
    throw invalid('key_days', `${where}key_days counts from first use and auth_expire is a fixed end: send one of them`);
  const expiresAt = dated ? expiryOf(input.auth_expire!, now, `${where}auth_expire`) : null;
  let generate: keys.GenerateInput;
  if (input.key_days !== undefined) generate = { expirationType: 'afterRedeem', days: input.key_days };
  else if (expiresAt === null) generate = { expirationType: 'lifetime' };
  else if (identifier === undefined && discordId === undefined)
    generate = { expirationType: 'afterRedeem', days: Math.ceil((expiresAt - now) / DAY_MS) };
  else generate = { expirationType: 'byDate', expiresAt };
  Object.assign(generate, { count: 1, note: input.note || undefined, chatId: discordId });
  return { generate, identifier, discordId };
}

/** POST /users: a new key of 32 characters, active and bound when an identifier is given. */
export async function createUser(ctx: AppContext, serviceId: string, input: CreateUserInput, actor: Actor) {
  const { generate, identifier, discordId } = newUserTerms(input, ctx.clock());
  if (identifier !== undefined && (await keys.activeKeysByHwidForActor(ctx.db, serviceId, identifier, actor)).length > 0)
    throw refuse('Identifier already exists.');
  if (discordId !== undefined && (await discordTaken(ctx, serviceId, discordId, actor))) throw refuse('Discord ID already exists.');
  // Contract §17: keys made through the Luarmor API record no maker, except a reseller's, which stay its own.
  const anonymous = resellerScope(actor) === null;
  if (identifier === undefined) return (await keys.generateKeys(ctx, serviceId, generate, actor, { anonymous }))[0]!.key;
  return keys.generateBoundKey(ctx, serviceId, generate, identifier, actor, { anonymous });
}

export interface ImportedUser extends CreateUserInput {
  user_key: string;
}

/**
 * POST /users/import: the seller's own keys, each made as POST /users makes one, all in one transaction through
 * Keyward's import (its audit entry and events); keys the service already has are skipped. Every entry is checked
 * before anything is written: the first bad one is a 400 naming its index, and nothing is made.
 */
export async function importUsers(ctx: AppContext, service: ServiceRow, users: ImportedUser[], actor: Actor) {
  const now = ctx.clock();
  const records = users.map((user, index) => {
    const { generate, identifier, discordId } = newUserTerms(user, now, `users[${index}]: `);
    const days = generate.expirationType === 'afterRedeem' ? generate.days : undefined;
    const end = generate.expirationType === 'byDate' ? Number(generate.expiresAt) / 1000 : -1;
    return { user_key: user.user_key, identifier, discord_id: discordId, note: generate.note, auth_expire: end, key_days: days };
  });
  try {
    const result = await importKeys(ctx, actor, service, { format: 'luarmor', data: records, onDuplicate: 'skip' });
    return { imported: result.imported.active + result.imported.generated, skipped: result.skippedKeys };
  } catch (error) {
    // The import's own check (a key twice in the list, …) in Luarmor's one sentence, naming the entry.
    const first =
      error instanceof AppError
        ? (error.extras.errors as Array<{ index: number; field: string; error: string }> | undefined)?.[0]
        : undefined;
    if (first) throw refuse(`users[${first.index}].${first.field} ${first.error}`);
    throw error;
  }
}

export interface EditUserInput {
  user_key: string;
  identifier?: string;
  discord_id?: unknown;
  note?: string;
  auth_expire?: number;
}

/** PATCH /users: the edit Keyward's PUT /keys/api/key (or generated-key) makes. */
// Keyward's key-edit field for each field of a Luarmor user edit: the role an edit needs is keys.editAction's to say.
const KEY_EDIT_FIELD_OF: Readonly<Record<string, string>> = {
  note: 'note',
  discord_id: 'chatId',
  identifier: 'hwid',
  auth_expire: 'expiresAt',
};

/** The role-table action a user edit's body needs (auth_expire changes the key's terms: keys.manage), before validation. */
export function editUserAction(body: unknown): ServiceAction | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const fields = Object.keys(body).filter((field) => Object.hasOwn(KEY_EDIT_FIELD_OF, field));
  return keys.editAction(fields.map((field) => KEY_EDIT_FIELD_OF[field]!));
}

export async function editUser(ctx: AppContext, serviceId: string, input: EditUserInput, actor: Actor) {
  // `""` unlinks (discordIdOf reads it as none); anything else must be an id.
  const chatId = input.discord_id === undefined ? undefined : (discordIdOf(input.discord_id) ?? null);
  const user = await requireUser(ctx, serviceId, input.user_key, actor);
  const now = ctx.clock();
  const edit: keys.KeyEdit = {};
  if (input.note !== undefined) edit.note = input.note === '' ? null : input.note;
  if (chatId !== undefined) edit.chatId = chatId;
  const expiresAt = input.auth_expire === undefined ? undefined : expiryOf(input.auth_expire, now);
  if (user.type === 'active') {
    if (expiresAt !== undefined) edit.expiresAt = expiresAt;
    if (input.identifier !== undefined) edit.hwid = input.identifier === '' ? null : input.identifier;
    await keys.editActiveKey(ctx, serviceId, user.row.key, edit, actor);
    return;
  }
  if (input.identifier) {
    // A never-used key given an identifier is bound at once (contract §23): active, its time kept (days still start at
    // its first validation); the HWID must be free, as on create.
    if ((await keys.activeKeysByHwidForActor(ctx.db, serviceId, input.identifier, actor)).length > 0)
      throw refuse('Identifier already exists.');
    if (expiresAt !== undefined) edit.expiresAt = expiresAt;
    await bindUnusedKey(ctx, serviceId, user.row.key, input.identifier, edit, actor);
    return;
  }
  // -1 makes any key lifetime (contract §23), also one whose time would have started at first use.
  const generatedEdit: keys.GeneratedKeyEdit =
    expiresAt === null ? { ...edit, expirationType: 'lifetime' } : { ...edit, ...(expiresAt !== undefined && { expiresAt }) };
  await keys.editGeneratedKey(ctx, serviceId, user.row.key, generatedEdit, actor);
}

export async function deleteUser(ctx: AppContext, serviceId: string, key: string, actor: Actor) {
  const user = await requireUser(ctx, serviceId, key, actor);
  if (user.type === 'active') await keys.deleteActiveKey(ctx, serviceId, key, actor);
  else await keys.deleteGeneratedKey(ctx, serviceId, key, actor);
}

/** POST /users/resethwid: Keyward's reset with its cooldown, which `force` skips; a banned key is never reset. */
export async function resetUserHwid(ctx: AppContext, service: ServiceRow, key: string, force: boolean, actor: Actor) {
  const user = await requireUser(ctx, service.id, key, actor, "User key doesn't exist");
  if (keys.statusNow(user.row, ctx.clock()) !== 'active') throw refuse('User is banned.');
  const outcome = await keys.resetHwid(ctx, service, key, actor, { force });
  if (outcome.kind === 'cooldown') throw refuse('User is on cooldown.');
  if (outcome.kind === 'not-found') throw new LuarmorRefusal(404, "User key doesn't exist");
  // Not bound (never redeemed, or reset already): there is nothing to reset, which is what was asked.
}

export async function linkDiscord(ctx: AppContext, serviceId: string, key: string, discordIdInput: unknown, force: boolean, actor: Actor) {
  const discordId = discordIdOf(discordIdInput);
  if (discordId === undefined) throw refuse('Invalid discord_id');
  const user = await requireUser(ctx, serviceId, key, actor);
  if (user.row.chatId !== null && user.row.chatId !== discordId && !force) throw refuse('This key already has a discord linked to it');
  if (await discordTaken(ctx, serviceId, discordId, actor, key)) throw refuse('Discord ID already exists.');
  if (user.type === 'active') await keys.editActiveKey(ctx, serviceId, key, { chatId: discordId }, actor);
  else await keys.editGeneratedKey(ctx, serviceId, key, { chatId: discordId }, actor);
}

/**
 * POST /users/blacklist: the key is banned (§19) with the reason and end, and each of its HWIDs blacklisted alike, in
 * one transaction; the answer's token undoes exactly that.
 */
export async function blacklistUser(
  ctx: AppContext,
  serviceId: string,
  input: { user_key: string; ban_reason?: string; ban_expire?: number },
  actor: Actor,
) {
  const now = ctx.clock();
  const expiresAt = input.ban_expire === undefined || input.ban_expire < 0 ? null : input.ban_expire * 1000;
  if (expiresAt !== null && (!Number.isSafeInteger(expiresAt) || expiresAt <= now))
    throw invalid('ban_expire', 'ban_expire must be a future Unix time in seconds, or -1 for a permanent ban');
  const user = await requireUser(ctx, serviceId, input.user_key, actor);
  const unbanToken = randomAlphanumeric(32);
  const reason = input.ban_reason || null;
  const ban = { status: 'banned' as const, banReason: reason, banExpiresAt: expiresAt, unbanToken };
  const banned = await ctx.db.transaction().execute(async (trx) => {
    if (user.type === 'generated') return void (await keys.editGeneratedKeyIn(ctx, trx, serviceId, user.row.key, ban, actor));
    const row = await keys.editActiveKeyIn(ctx, trx, serviceId, user.row.key, ban, actor);
    await blacklistForBan(trx, serviceId, row.hwids, { reason, expiresAt, unbanToken }, actor, now);
    return row;
  });
  // The ban ends the key's running sessions as every other ban does (contract §27).
  if (banned) await keys.afterActiveKeyEdit(ctx, serviceId, banned, ban);
  return unbanToken;
}

/**
 * GET|POST /users/unban (public): the key whose ban carries the token is active again and that ban's blacklist entries
 * go. An unknown token is a failed authentication (it spends the address's budget), answered as Luarmor does.
 */
export async function unbanByToken(ctx: AppContext, projectRef: string, token: string, caller: Actor) {
  // Whoever holds the link lifts the ban: the audit log names the door (contract §27), not "a buyer".
  const actor: Actor = { ...caller, via: 'unban-link' };
  const service = await findServiceByRef(ctx.db, projectRef);
  if (!service) throw new LuarmorRefusal(404, PROJECT_NOT_FOUND);
  if (!/^[A-Za-z0-9]{32}$/.test(token)) throw unauthorized('Unknown unban token');
  const now = ctx.clock();
  await ctx.db.transaction().execute(async (trx) => {
    // Only the ban that made the token: one replaced since (another ban, an unban) no longer carries it.
    const user = await keys.takeUnbanToken(trx, service.id, token);
    if (!user) throw unauthorized('Unknown unban token');
    if (user.type === 'active') await keys.editActiveKeyIn(ctx, trx, service.id, user.key, { status: 'active' }, actor);
    else await keys.editGeneratedKeyIn(ctx, trx, service.id, user.key, { status: 'active' }, actor);
    await removeBanEntries(trx, service.id, token, actor, now);
  });
}

/** Counts of the last 24 hours for one service (Luarmor's stats), from Keyward's analytics. */
export async function lastDay(ctx: AppContext, serviceId: string, now: number) {
  const from = Math.floor(now / HOUR_MS) * HOUR_MS - 23 * HOUR_MS;
  const result = await analyticsOf(ctx, serviceId, { from: String(from), to: String(now), interval: 'hour' });
  return result.series.slice(-24);
}
