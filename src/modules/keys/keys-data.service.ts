import type { Insertable } from 'kysely';
import { parse as parseCsv } from 'csv-parse/sync';
import type { AppContext } from '../../context.ts';
import { isUniqueViolation } from '../../db/database.ts';
import type { ActiveKeysTable, GeneratedKeysTable } from '../../db/schema.ts';
import { AppError, invalid } from '../../errors.ts';
import { pageOf, type PageRequest } from '../../lib/pagination.ts';
import { DAY_MS, iso, LATEST_TIME_MS } from '../../lib/time.ts';
import { recordServiceAudit } from '../audit/audit.service.ts';
import type { Actor } from '../audit/actor.ts';
import * as repo from './keys-data.repository.ts';
import { EXPORT_COLUMNS } from './keys-export.ts';
import { withHwids } from './keys.repository.ts';
import { toActiveKeyView, toGeneratedKeyView, type KeyStatus } from './keys.service.ts';

/** Filter values as the query string carries them; the schema has checked each is one of its words. */
export interface FilterQuery {
  type?: 'active' | 'generated' | 'all';
  status?: KeyStatus;
  premium?: 'true' | 'false';
  bound?: 'true' | 'false';
  expired?: 'true' | 'false';
  search?: string;
}

const flagOf = (text: 'true' | 'false' | undefined) => (text === undefined ? undefined : text === 'true');

export const filterOf = (query: FilterQuery, now: number): repo.KeyFilter => ({
  type: query.type ?? 'all',
  status: query.status,
  premium: flagOf(query.premium),
  bound: flagOf(query.bound),
  expired: flagOf(query.expired),
  search: query.search,
  now,
});

export type ListedKey =
  ({ type: 'active' } & ReturnType<typeof toActiveKeyView>) | ({ type: 'generated' } & ReturnType<typeof toGeneratedKeyView>);

/**
 * A short search reads every key of the service, once for the page and once more for the count. A page that is not
 * full is the last one: offset + its length is the count, and the second read is skipped (a 1–2 character term
 * mostly matches few keys or none). Only a full page, or an empty one past the first, still counts.
 */
async function pageThenTotal(ctx: AppContext, serviceId: string, filter: repo.KeyFilter, sort: repo.KeySort, request: PageRequest) {
  const entries = await repo.pageOfKeys(ctx.db, serviceId, filter, sort, request.limit, request.offset);
  const lastPage = entries.length > 0 ? entries.length < request.limit : request.offset === 0;
  return [entries, lastPage ? request.offset + entries.length : await repo.countKeys(ctx.db, serviceId, filter)] as const;
}

export async function listKeys(
  ctx: AppContext,
  serviceId: string,
  query: FilterQuery & { sort?: repo.SortColumn; order?: 'asc' | 'desc' },
  request: PageRequest,
) {
  const filter = filterOf(query, ctx.clock());
  const sort: repo.KeySort = { sort: query.sort ?? 'createdAt', order: query.order ?? 'desc' };
  const [entries, total] = repo.readsEveryKey(filter)
    ? await pageThenTotal(ctx, serviceId, filter, sort, request)
    : await Promise.all([
        repo.pageOfKeys(ctx.db, serviceId, filter, sort, request.limit, request.offset),
        repo.countKeys(ctx.db, serviceId, filter),
      ]);
  const activeKeys = entries.filter((e) => e.type === 'active').map((e) => e.key);
  const generatedKeys = entries.filter((e) => e.type === 'generated').map((e) => e.key);
  const [active, generated] = await Promise.all([
    repo.activeRowsByKey(ctx.db, serviceId, activeKeys).then((rows) => withHwids(ctx.db, rows)),
    repo.generatedRowsByKey(ctx.db, serviceId, generatedKeys),
  ]);
  const views = new Map<string, ListedKey>();
  for (const row of active) views.set(row.key, { type: 'active', ...toActiveKeyView(row) });
  for (const row of generated) views.set(row.key, { type: 'generated', ...toGeneratedKeyView(row) });
  // A key deleted between the two reads simply drops out of this page.
  const items = entries.map((e) => views.get(e.key)).filter((v) => v !== undefined);
  return pageOf(items, total, request);
}

// ---------------------------------------------------------------- bulk actions (§7.3)

export type BulkAction = 'delete' | 'ban' | 'pause' | 'activate' | 'resetHwid' | 'extend' | 'setNote';
export interface BulkInput {
  action: BulkAction;
  keys: string[];
  days?: number;
  note?: string;
}

const STATUS_OF: Partial<Record<BulkAction, KeyStatus>> = { ban: 'banned', pause: 'paused', activate: 'active' };

function checkBulkInput(input: BulkInput) {
  if (input.action === 'extend' && input.days === undefined) throw invalid('days', 'days is required when action is extend');
  if (input.action !== 'extend' && input.days !== undefined) throw invalid('days', 'days is only used when action is extend');
  if (input.action === 'setNote' && input.note === undefined) throw invalid('note', 'note is required when action is setNote');
  if (input.action !== 'setNote' && input.note !== undefined) throw invalid('note', 'note is only used when action is setNote');
}

/** All of it happens or none: one transaction, and the audit entry commits with it. */
/** `service` is the caller's service (its owner is the audit entry's account). */
export async function bulkKeys(ctx: AppContext, actor: Actor, service: { id: string; accountId: string }, input: BulkInput) {
  const serviceId = service.id;
  checkBulkInput(input);
  const now = ctx.clock();
  return ctx.db.transaction().execute(async (trx) => {
    const found = await repo.existingOfService(trx, serviceId, input.keys);
    const known = new Set([...found.active, ...found.generated].map((r) => r.key));
    // Another service's keys are indistinguishable from keys that do not exist.
    const notFound = input.keys.filter((k) => !known.has(k));
    const active = found.active.map((r) => r.key);
    const generated = found.generated.map((r) => r.key);
    let skipped: string[] = [];
    switch (input.action) {
      case 'delete':
        await repo.deleteKeys(trx, serviceId, active, generated);
        break;
      case 'ban':
      case 'pause':
      case 'activate':
        await repo.patchKeys(trx, serviceId, active, generated, { status: STATUS_OF[input.action] });
        break;
      case 'setNote':
        // An empty note clears it, as a null note would.
        await repo.patchKeys(trx, serviceId, active, generated, { note: input.note === '' ? null : input.note });
        break;
      case 'resetHwid': {
        const bound = found.active.filter((r) => r.hwidCount > 0).map((r) => r.key);
        const boundSet = new Set(bound);
        skipped = [...active.filter((k) => !boundSet.has(k)), ...generated];
        await repo.clearHwids(trx, serviceId, bound);
        break;
      }
      case 'extend': {
        const ms = input.days! * DAY_MS;
        const rows = [...found.active, ...found.generated];
        skipped = rows.filter((r) => r.expiresAt === null).map((r) => r.key);
        const latest = Math.max(now, ...rows.map((r) => r.expiresAt ?? 0)) + ms;
        if (latest > LATEST_TIME_MS) throw invalid('days', `days would take an expiry past ${iso(LATEST_TIME_MS)}`);
        await repo.extendKeys(
          trx,
          serviceId,
          'activeKeys',
          found.active.filter((r) => r.expiresAt !== null).map((r) => r.key),
          ms,
          now,
        );
        await repo.extendKeys(
          trx,
          serviceId,
          'generatedKeys',
          found.generated.filter((r) => r.expiresAt !== null).map((r) => r.key),
          ms,
          now,
        );
        break;
      }
    }
    const updated = known.size - skipped.length;
    const details: Record<string, unknown> = { action: input.action, updated, notFound: notFound.length, skipped: skipped.length };
    if (input.days !== undefined) details.days = input.days;
    if (input.note !== undefined) details.note = input.note;
    await recordServiceAudit(trx, actor, service, 'keys.bulk', null, details, now);
    return { action: input.action, updated, notFound, skipped };
  });
}

// ---------------------------------------------------------------- import (§7.4)

export type ImportFormat = 'keyward-csv' | 'keyward-json' | 'luarmor';
export interface ImportInput {
  format: ImportFormat;
  data: string | unknown[];
  onDuplicate?: 'error' | 'skip';
}

export const MAX_IMPORT_RECORDS = 10_000;
const MAX_LISTED_ERRORS = 100;

interface RecordError {
  index: number;
  field: string;
  error: string;
}

/** A record read from any format, before it becomes a row. */
interface ImportedKey {
  key: string;
  active: boolean;
  status: KeyStatus;
  hwids: string[];
  note: string | null;
  isPremium: boolean;
  noHwidValidation: boolean;
  maxHwids: number;
  expiresAt: number | null;
  chatId: string | null;
  executions: number;
  createdAt: number | null;
  activatedAt: number | null;
  lastUsedAt: number | null;
  hwidResetAt: number | null;
  hwidResetCount: number;
  /** A generated key's, when a JSON export carries it; else derived from expiresAt. */
  expirationType?: 'byDays' | 'byDate';
}

class RecordInvalid extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}
const bad = (field: string, message: string) => new RecordInvalid(field, message);

const KEY_PATTERN = /^[A-Za-z0-9_-]{8,64}$/;
const HWID_PATTERN = /^[\x20-\x7E]{1,256}$/;
const CHAT_ID_PATTERN = /^[0-9]{17,20}$/;
const NOTE_PATTERN = /^[^\x00-\x1F\x7F]{0,256}$/;
const FIELD_NAMES = new Set<string>(EXPORT_COLUMNS);

function checkKey(value: unknown, field: string): string {
  if (typeof value !== 'string' || !KEY_PATTERN.test(value)) throw bad(field, 'must be a key: 8 to 64 of A-Z a-z 0-9 _ -');
  return value;
}
function checkNote(value: unknown, field: string): string | null {
  if (value === null || value === undefined || value === '') return null;
  if (typeof value !== 'string' || !NOTE_PATTERN.test(value))
    throw bad(field, 'must be at most 256 characters, none of them control characters');
  return value;
}
function checkChatId(value: unknown, field: string): string | null {
  if (value === null || value === undefined || value === '') return null;
  if (typeof value !== 'string' || !CHAT_ID_PATTERN.test(value)) throw bad(field, 'must be a chat-platform user id of 17 to 20 digits');
  return value;
}
function checkHwids(value: string[], field: string, maxHwids: number): string[] {
  for (const hwid of value) if (!HWID_PATTERN.test(hwid)) throw bad(field, 'each HWID must be 1 to 256 printable characters');
  if (new Set(value).size !== value.length) throw bad(field, 'must not list the same HWID twice');
  if (value.length > maxHwids) throw bad(field, 'lists more HWIDs than maxHwids allows');
  return value;
}
function checkCount(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw bad(field, 'must be a whole number of at least 0');
  return value;
}
function checkTime(value: unknown, field: string, nullable = true): number | null {
  if ((value === null || value === undefined || value === '') && nullable) return null;
  if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(value)) {
    const ms = Date.parse(value);
    if (Number.isFinite(ms) && ms >= 0 && ms <= LATEST_TIME_MS) return ms;
  }
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && value <= LATEST_TIME_MS) return value;
  throw bad(field, 'must be an ISO 8601 date-time or epoch milliseconds');
}
function checkBoolean(value: unknown, field: string, fallback: boolean): boolean {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'boolean') throw bad(field, 'must be true or false');
  return value;
}

const EXPIRATION_TYPES = new Set(['lifetime', 'byDays', 'byDate']);
/** Fields only an active key has: a record that would become a generated key must not carry them, or they would be lost. */
const ACTIVE_ONLY = ['activatedAt', 'lastUsedAt', 'hwidResetAt', 'hwidResetCount'] as const;

/** A keyward export record (JSON, or CSV with its text converted first). */
function fromKeyward(record: unknown): ImportedKey {
  if (typeof record !== 'object' || record === null || Array.isArray(record)) throw bad('record', 'must be an object');
  const r = record as Record<string, unknown>;
  for (const name of Object.keys(r)) {
    // A JSON export also carries hwid (the first of hwids), expirationType and the reset fields.
    if (!FIELD_NAMES.has(name) && !['hwid', 'expirationType', 'hwidResetAt', 'hwidResetCount'].includes(name))
      throw bad(name, 'is not a known field');
  }
  if (r.type !== undefined && r.type !== 'active' && r.type !== 'generated') throw bad('type', 'must be active or generated');
  const status = r.status ?? 'active';
  if (status !== 'active' && status !== 'paused' && status !== 'banned') throw bad('status', 'must be one of active, paused, banned');
  const maxHwids = r.maxHwids ?? 1;
  if (typeof maxHwids !== 'number' || !Number.isInteger(maxHwids) || maxHwids < 1 || maxHwids > 100)
    throw bad('maxHwids', 'must be a whole number from 1 to 100');
  let hwids: string[] = [];
  if (r.hwids !== undefined && r.hwids !== null) {
    if (!Array.isArray(r.hwids) || r.hwids.some((h) => typeof h !== 'string')) throw bad('hwids', 'must be a list of HWIDs');
    hwids = checkHwids(r.hwids as string[], 'hwids', maxHwids);
  }
  // `hwid` is the first of `hwids`: alone it binds that one HWID; beside `hwids` it must agree with them.
  if (r.hwid !== undefined) {
    if (r.hwid !== null && typeof r.hwid !== 'string') throw bad('hwid', 'must be an HWID or null');
    if (r.hwids === undefined || r.hwids === null) {
      if (typeof r.hwid === 'string') hwids = checkHwids([r.hwid], 'hwid', maxHwids);
    } else if ((hwids[0] ?? null) !== r.hwid) {
      throw bad('hwid', 'must be the first of hwids (or null when hwids is empty)');
    }
  }
  const executions = r.executions === undefined ? 0 : checkCount(r.executions, 'executions');
  const hwidResetCount = r.hwidResetCount === undefined ? 0 : checkCount(r.hwidResetCount, 'hwidResetCount');
  const hwidResetAt = checkTime(r.hwidResetAt, 'hwidResetAt');
  const activatedAt = checkTime(r.activatedAt, 'activatedAt');
  const lastUsedAt = checkTime(r.lastUsedAt, 'lastUsedAt');
  const active = r.type === 'active' || (r.type === undefined && (hwids.length > 0 || executions > 0));
  if (r.type === 'generated' && (hwids.length > 0 || executions > 0)) throw bad('type', 'a generated key cannot have HWIDs or executions');
  if (!active) {
    const values = { activatedAt, lastUsedAt, hwidResetAt, hwidResetCount: hwidResetCount || null };
    const held = ACTIVE_ONLY.find((name) => values[name] !== null);
    if (held) throw bad(held, `only an active key has ${held}: give the record type active, or leave ${held} out`);
  }
  const expiresAt = checkTime(r.expiresAt, 'expiresAt');
  if (r.expirationType !== undefined) {
    if (typeof r.expirationType !== 'string' || !EXPIRATION_TYPES.has(r.expirationType))
      throw bad('expirationType', 'must be one of lifetime, byDays, byDate');
    if (active) throw bad('expirationType', 'only a generated key has expirationType');
    if ((expiresAt === null) !== (r.expirationType === 'lifetime'))
      throw bad('expirationType', 'must be lifetime exactly when expiresAt is empty, else byDays or byDate');
  }
  const expirationType = r.expirationType === 'byDays' || r.expirationType === 'byDate' ? r.expirationType : undefined;
  return {
    key: checkKey(r.key, 'key'),
    active,
    expirationType,
    status,
    hwids,
    note: checkNote(r.note, 'note'),
    isPremium: checkBoolean(r.isPremium, 'isPremium', false),
    noHwidValidation: checkBoolean(r.noHwidValidation, 'noHwidValidation', false),
    maxHwids,
    expiresAt,
    chatId: checkChatId(r.chatId, 'chatId'),
    executions,
    createdAt: checkTime(r.createdAt, 'createdAt'),
    activatedAt,
    lastUsedAt,
    hwidResetAt,
    hwidResetCount,
  };
}

/** CSV cells are text: turn an export's words back into the JSON record's types, then check it the same way. */
function csvRecordToJson(row: Record<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, text] of Object.entries(row)) {
    if (text === '' && name !== 'note') continue;
    switch (name) {
      case 'hwids':
        out.hwids = text.split('|');
        break;
      case 'isPremium':
      case 'noHwidValidation':
        if (text !== 'true' && text !== 'false') throw bad(name, 'must be true or false');
        out[name] = text === 'true';
        break;
      case 'maxHwids':
      case 'executions':
        if (!/^(0|[1-9][0-9]{0,14})$/.test(text)) throw bad(name, 'must be a whole number');
        out[name] = Number(text);
        break;
      default:
        out[name] = text;
    }
  }
  return out;
}

/**
 * A Luarmor user record (Luarmor's users API: user_key, identifier, discord_id, note, auth_expire,
 * banned, total_executions, total_resets …). Fields not mapped by the contract are ignored.
 */
function fromLuarmor(record: unknown): ImportedKey {
  if (typeof record !== 'object' || record === null || Array.isArray(record)) throw bad('record', 'must be an object');
  const r = record as Record<string, unknown>;
  const key = checkKey(r.user_key, 'user_key');
  if (r.identifier !== undefined && r.identifier !== null && typeof r.identifier !== 'string') throw bad('identifier', 'must be text');
  const hwids = typeof r.identifier === 'string' && r.identifier !== '' ? checkHwids([r.identifier], 'identifier', 1) : [];
  let expiresAt: number | null = null;
  if (r.auth_expire !== undefined && r.auth_expire !== null) {
    const seconds = r.auth_expire;
    if (typeof seconds !== 'number' || !Number.isSafeInteger(seconds) || seconds < -1)
      throw bad('auth_expire', 'must be Unix seconds, or -1 or 0 for lifetime');
    if (seconds > 0) {
      if (seconds * 1000 > LATEST_TIME_MS) throw bad('auth_expire', `must be no later than ${iso(LATEST_TIME_MS)}`);
      expiresAt = seconds * 1000;
    }
  }
  if (r.banned !== undefined && r.banned !== null && r.banned !== 0 && r.banned !== 1 && typeof r.banned !== 'boolean')
    throw bad('banned', 'must be 0 or 1');
  const discordId = typeof r.discord_id === 'number' ? String(r.discord_id) : r.discord_id;
  const executions =
    r.total_executions === undefined || r.total_executions === null ? 0 : checkCount(r.total_executions, 'total_executions');
  return {
    key,
    active: hwids.length > 0 || executions > 0,
    status: r.banned === 1 || r.banned === true ? 'banned' : 'active',
    hwids,
    note: checkNote(r.note, 'note'),
    isPremium: false,
    noHwidValidation: false,
    maxHwids: 1,
    expiresAt,
    chatId: checkChatId(discordId, 'discord_id'),
    executions,
    createdAt: null,
    activatedAt: null,
    lastUsedAt: null,
    hwidResetAt: null,
    hwidResetCount: r.total_resets === undefined || r.total_resets === null ? 0 : checkCount(r.total_resets, 'total_resets'),
  };
}

/**
 * The header must name each of the contract's columns exactly once (in any order: a spreadsheet may move
 * them); a missing, unknown or repeated column is one 400 naming it, before any row is read.
 */
function checkCsvHeader(header: string[]) {
  const unknown = header.filter((name) => !FIELD_NAMES.has(name));
  if (unknown.length > 0)
    throw invalid(
      'data',
      `The CSV header has unknown column(s) ${unknown.map((n) => `"${n}"`).join(', ')}; expected ${EXPORT_COLUMNS.join(',')}`,
    );
  const repeated = header.filter((name, i) => header.indexOf(name) !== i);
  if (repeated.length > 0) throw invalid('data', `The CSV header names ${[...new Set(repeated)].join(', ')} more than once`);
  const missing = EXPORT_COLUMNS.filter((name) => !header.includes(name));
  if (missing.length > 0)
    throw invalid('data', `The CSV header lacks column(s) ${missing.join(', ')}; expected ${EXPORT_COLUMNS.join(',')}`);
}

function recordsOf(input: ImportInput): unknown[] {
  if (input.format === 'keyward-csv') {
    if (typeof input.data !== 'string') throw invalid('data', 'data must be the CSV text of an export when format is keyward-csv');
    let rows: string[][];
    try {
      // Cell counts are checked below, after the header, so a wrong header is named as such.
      rows = parseCsv(input.data, { skip_empty_lines: true, bom: true, relax_column_count: true });
    } catch (error) {
      throw invalid('data', `data is not valid CSV: ${(error as Error).message.split('\n')[0]}`);
    }
    const [header, ...body] = rows;
    if (header === undefined) throw invalid('data', `data holds no CSV header line; expected ${EXPORT_COLUMNS.join(',')}`);
    checkCsvHeader(header);
    const uneven = body.findIndex((cells) => cells.length !== header.length);
    if (uneven !== -1)
      throw invalid('data', `The CSV data row at index ${uneven} has ${body[uneven]!.length} cells; the header has ${header.length}`);
    return body.map((cells) => Object.fromEntries(header.map((name, i) => [name, cells[i]!])));
  }
  if (!Array.isArray(input.data)) throw invalid('data', `data must be an array of records when format is ${input.format}`);
  return input.data;
}

/** Reads and checks every record; throws one 400 listing the invalid ones (at most 100). */
export function parseImport(input: ImportInput): ImportedKey[] {
  const records = recordsOf(input);
  if (records.length === 0) throw invalid('data', 'data holds no records');
  // 413 like the 16 MB body limit (the issue's "over 10,000 records or 16 MB (413)"; the contract names no status).
  if (records.length > MAX_IMPORT_RECORDS)
    throw new AppError('PAYLOAD_TOO_LARGE', `An import holds at most ${MAX_IMPORT_RECORDS} records; this one has ${records.length}`, {
      field: 'data',
    });
  const errors: RecordError[] = [];
  const parsed: ImportedKey[] = [];
  const seen = new Set<string>();
  records.forEach((record, index) => {
    try {
      const key =
        input.format === 'luarmor'
          ? fromLuarmor(record)
          : fromKeyward(input.format === 'keyward-csv' ? csvRecordToJson(record as Record<string, string>) : record);
      if (seen.has(key.key)) throw bad(input.format === 'luarmor' ? 'user_key' : 'key', 'appears more than once in this import');
      seen.add(key.key);
      parsed.push(key);
    } catch (error) {
      if (!(error instanceof RecordInvalid)) throw error;
      errors.push({ index, field: error.field, error: error.message });
    }
  });
  if (errors.length > 0) {
    throw new AppError('VALIDATION_ERROR', `${errors.length} record(s) are invalid; nothing was imported`, {
      field: 'data',
      errors: errors.slice(0, MAX_LISTED_ERRORS),
    });
  }
  return parsed;
}

export interface ImportProgress {
  (done: number, total: number): void;
}

/** All or nothing: every record checked, duplicates settled, then one transaction with its audit entry. */
export async function importKeys(
  ctx: AppContext,
  actor: Actor,
  service: { id: string; accountId: string },
  input: ImportInput,
  progress?: ImportProgress,
) {
  const serviceId = service.id;
  const parsed = parseImport(input);
  const now = ctx.clock();
  const run = async (trx: typeof ctx.db) => {
    const existing = await repo.existingKeys(
      trx,
      parsed.map((k) => k.key),
    );
    if (existing.size > 0 && input.onDuplicate !== 'skip') {
      const duplicates = parsed.filter((k) => existing.has(k.key)).map((k) => k.key);
      throw new AppError('CONFLICT', `${duplicates.length} key(s) already exist; nothing was imported`, { duplicates });
    }
    const fresh = parsed.filter((k) => !existing.has(k.key));
    const active: Insertable<ActiveKeysTable>[] = [];
    const generated: Insertable<GeneratedKeysTable>[] = [];
    const hwids: Array<{ key: string; serviceId: string; hwid: string; position: number }> = [];
    for (const k of fresh) {
      const shared = {
        key: k.key,
        serviceId: serviceId,
        note: k.note,
        isPremium: k.isPremium ? (1 as const) : (0 as const),
        noHwidValidation: k.noHwidValidation ? (1 as const) : (0 as const),
        status: k.status,
        expiresAt: k.expiresAt,
        chatId: k.chatId,
        createdAt: k.createdAt ?? now,
        maxHwids: k.maxHwids,
      };
      if (k.active) {
        active.push({
          ...shared,
          hwid: k.hwids[0] ?? null,
          hwidCount: k.hwids.length,
          executions: k.executions,
          activatedAt: k.activatedAt ?? k.createdAt ?? now,
          lastUsedAt: k.lastUsedAt,
          hwidResetAt: k.hwidResetAt,
          hwidResetCount: k.hwidResetCount,
        });
        k.hwids.forEach((hwid, i) => hwids.push({ key: k.key, serviceId: serviceId, hwid, position: i + 1 }));
      } else {
        generated.push({ ...shared, expirationType: k.expiresAt === null ? 'lifetime' : (k.expirationType ?? 'byDate') });
      }
    }
    await repo.insertImported(trx, active, hwids, generated, progress);
    const result = { imported: { active: active.length, generated: generated.length }, skipped: existing.size };
    await recordServiceAudit(trx, actor, service, 'keys.import', null, { format: input.format, ...result }, now);
    return result;
  };
  // Another import committing some of these keys between our check and our insert breaks a unique index:
  // run again, and the check then sees them (409, or skipped when asked).
  for (let attempt = 1; ; attempt++) {
    try {
      return await ctx.db.transaction().execute(run);
    } catch (error) {
      if (!isUniqueViolation(error) || attempt === 3) throw error;
    }
  }
}
