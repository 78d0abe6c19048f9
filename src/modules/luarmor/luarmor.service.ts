// The Luarmor-compatible API's actions (contract §16.2): each one translates Luarmor's input and calls the domain services
// Keyward's own routes call (keys, blacklist, scripts, analytics), so every rule, audit entry and event is theirs.
import type { AppContext } from '../../context.ts';
import { invalid, unauthorized } from '../../errors.ts';
import { randomAlphanumeric } from '../../lib/random.ts';
import { HOUR_MS } from '../../lib/time.ts';
import { resellerScope, type Actor } from '../audit/actor.ts';
import { blacklistForBan, removeBanEntries } from '../blacklist/blacklist.service.ts';
import * as keys from '../keys/keys.service.ts';
import { keyRowsOldestFirst, type KeyRowEntry } from '../keys/keys-list.service.ts';
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
  until: number;
}

const byAge = (a: KeyRowEntry, b: KeyRowEntry) => a.row.createdAt - b.row.createdAt || (a.row.key < b.row.key ? -1 : 1);

/** Whether a user matches every filter given (the list's own lookups pick the candidates; this checks the rest). */
function matches(entry: KeyRowEntry, query: UserQuery) {
  const hwids = entry.type === 'active' ? entry.row.hwids : [];
  if (query.user_key !== undefined && entry.row.key !== query.user_key) return false;
  if (query.discord_id !== undefined && entry.row.chatId !== query.discord_id) return false;
  if (query.identifier !== undefined && !hwids.includes(query.identifier)) return false;
  if (query.search !== undefined) {
    const needle = query.search.toLowerCase();
    const fields = [entry.row.key, entry.row.chatId ?? '', entry.row.note ?? '', ...hwids];
    if (!fields.some((f) => f.toLowerCase().includes(needle))) return false;
  }
  return true;
}

/** GET /users: oldest first, `from`…`until` of the matches. */
export async function listUsers(ctx: AppContext, serviceId: string, query: UserQuery) {
  const now = ctx.clock();
  let entries: KeyRowEntry[];
  if (query.user_key !== undefined) {
    const user = await findUser(ctx, serviceId, query.user_key);
    entries = user ? [user] : [];
  } else if (query.identifier !== undefined) {
    const rows = await keys.searchActiveKeys(ctx.db, serviceId, { hwid: query.identifier });
    entries = (await keys.withHwids(ctx.db, rows)).map((row) => ({ type: 'active' as const, row }));
  } else if (query.discord_id !== undefined) {
    const [active, generated] = await Promise.all([
      keys.activeKeysByChat(ctx.db, serviceId, query.discord_id),
      keys.generatedKeysByChat(ctx.db, serviceId, query.discord_id),
    ]);
    entries = [
      ...(await keys.withHwids(ctx.db, active)).map((row) => ({ type: 'active' as const, row })),
      ...generated.map((row) => ({ type: 'generated' as const, row })),
    ];
  } else {
    // The list's own search (key, note, any HWID, chat id) pages in the database.
    const page = await keyRowsOldestFirst(ctx, serviceId, query.search, query.from, query.until - query.from);
    return page.map((entry) => toLuarmorUser(entry, now));
  }
  return entries
    .filter((entry) => matches(entry, query))
    .sort(byAge)
    .slice(query.from, query.until)
    .map((entry) => toLuarmorUser(entry, now));
}

/** Luarmor's `auth_expire` as Keyward's expiry: -1 (or 0) is lifetime; anything else a future Unix time in seconds. */
function expiryOf(authExpire: number, now: number): number | null {
  if (authExpire === -1 || authExpire === 0) return null;
  const ms = authExpire * 1000;
  if (!Number.isSafeInteger(ms) || ms <= now) throw invalid('auth_expire', 'auth_expire must be a future Unix time in seconds, or -1');
  return ms;
}

/** Whether another key the actor may see is linked to the Discord user (a reseller learns nothing of the others). */
async function discordTaken(ctx: AppContext, serviceId: string, discordId: string, actor: Actor, except?: string) {
  const { active, generated } = await keys.keysByChatForActor(ctx.db, serviceId, discordId, actor);
  return [...active, ...generated].some((row) => row.key !== except);
}

export interface CreateUserInput {
  identifier?: string;
  discord_id?: string;
  note?: string;
  auth_expire?: number;
  key_days?: number;
}

/** POST /users: a new key of 32 characters, active and bound when an identifier is given. */
export async function createUser(ctx: AppContext, serviceId: string, input: CreateUserInput, actor: Actor) {
  const now = ctx.clock();
  const identifier = input.identifier || undefined;
  if (input.key_days !== undefined && identifier !== undefined)
    throw invalid('key_days', 'key_days starts the time at redemption; it cannot be used with identifier');
  if (input.key_days !== undefined && input.auth_expire !== undefined && input.auth_expire !== -1)
    throw invalid('key_days', 'key_days cannot be used with auth_expire');
  const expiresAt = input.auth_expire === undefined ? null : expiryOf(input.auth_expire, now);
  const generate: keys.GenerateInput =
    input.key_days !== undefined
      ? { expirationType: 'afterRedeem', days: input.key_days }
      : expiresAt === null
        ? { expirationType: 'lifetime' }
        : { expirationType: 'byDate', expiresAt };
  Object.assign(generate, { count: 1, note: input.note || undefined, chatId: input.discord_id || undefined });
  if (identifier !== undefined && (await keys.activeKeysByHwidForActor(ctx.db, serviceId, identifier, actor)).length > 0)
    throw refuse('Identifier already exists.');
  if (input.discord_id && (await discordTaken(ctx, serviceId, input.discord_id, actor))) throw refuse('Discord ID already exists.');
  // Contract §17: keys made through the Luarmor API record no maker, except a reseller's, which stay its own.
  const anonymous = resellerScope(actor) === null;
  if (identifier === undefined) return (await keys.generateKeys(ctx, serviceId, generate, actor, { anonymous }))[0]!.key;
  return keys.generateBoundKey(ctx, serviceId, generate, identifier, actor, { anonymous });
}

export interface EditUserInput {
  user_key: string;
  identifier?: string;
  discord_id?: string;
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
  const user = await requireUser(ctx, serviceId, input.user_key, actor);
  const now = ctx.clock();
  const edit: keys.KeyEdit = {};
  if (input.note !== undefined) edit.note = input.note === '' ? null : input.note;
  if (input.discord_id !== undefined) edit.chatId = input.discord_id === '' ? null : input.discord_id;
  if (input.auth_expire !== undefined) {
    const expiresAt = expiryOf(input.auth_expire, now);
    if (user.type === 'generated' && expiresAt === null && user.row.expirationType !== 'lifetime')
      throw invalid('auth_expire', 'auth_expire cannot be -1 for a key that was not made lifetime; give a future Unix time');
    // A lifetime generated key asked to stay lifetime: nothing to change.
    if (!(user.type === 'generated' && expiresAt === null)) edit.expiresAt = expiresAt;
  }
  if (user.type === 'active') {
    if (input.identifier !== undefined) edit.hwid = input.identifier === '' ? null : input.identifier;
    await keys.editActiveKey(ctx, serviceId, user.row.key, edit, actor);
    return;
  }
  if (input.identifier) throw invalid('identifier', 'This key has not been redeemed yet; its identifier is set when it is first used');
  await keys.editGeneratedKey(ctx, serviceId, user.row.key, edit as keys.GeneratedKeyEdit, actor);
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

const DISCORD_ID = /^[0-9]{17,20}$/;

export async function linkDiscord(ctx: AppContext, serviceId: string, key: string, discordId: string, force: boolean, actor: Actor) {
  if (!DISCORD_ID.test(discordId)) throw refuse('Invalid discord_id');
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
export async function unbanByToken(ctx: AppContext, projectRef: string, token: string, actor: Actor) {
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
