// Reading an import (contract §7.4): Keyward CSV or JSON, or Luarmor records, each checked field by field. Pure (no
// database, no context), beside keys-export.ts, whose columns it reads back; run in a worker thread (import-workers.ts).
import { parse as parseCsv } from 'csv-parse/sync';
import type { ActiveKeysTable } from '../../db/schema.ts';
import { AppError, invalid, invalidAsWritten } from '../../errors.ts';
import { iso, LATEST_TIME_MS } from '../../lib/time.ts';
import { EXPORT_COLUMNS, FORMULA_CELL, splitHwids } from './keys-csv.ts';

type KeyStatus = ActiveKeysTable['status'];

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
export interface ImportedKey {
  key: string;
  active: boolean;
  status: KeyStatus;
  hwids: string[];
  note: string | null;
  isPremium: boolean;
  noHwidValidation: boolean;
  maxHwids: number;
  /** Contract §18: a JSON export carries it; every other format leaves it 0 (no limit). */
  maxSessions: number;
  expiresAt: number | null;
  chatId: string | null;
  executions: number;
  createdAt: number | null;
  activatedAt: number | null;
  lastUsedAt: number | null;
  hwidResetAt: number | null;
  hwidResetCount: number;
  /** A generated key's, when a JSON export carries it; else derived from expiresAt and durationDays. */
  expirationType?: 'byDays' | 'byDate';
  /** A generated key whose time starts at redemption (contract §12.1): its length in days; else null. */
  durationDays: number | null;
  /** Contract §19: a JSON export's ban reason and end (absent: none). */
  banReason?: string | null;
  banExpiresAt?: number | null;
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
// Newlines and tabs are a note's own (contract §23): an exported multi-line note imports back as it was.
const NOTE_PATTERN = /^[^\x00-\x08\x0B\x0C\x0E-\x1F\x7F]{0,256}$/;
const FIELD_NAMES = new Set<string>(EXPORT_COLUMNS);
// A JSON export also carries hwid (the first of hwids), expirationType and the reset fields, maxSessions, and createdBy,
// which an import does not keep (contract §17: imported keys have none).
const JSON_ONLY = ['hwid', 'expirationType', 'hwidResetAt', 'hwidResetCount', 'createdBy', 'banReason', 'banExpiresAt', 'maxSessions'];
/** Every field a Keyward record may carry (any other is refused), and the Luarmor fields read (any other is ignored). */
export const KEYWARD_FIELDS = new Set<string>([...EXPORT_COLUMNS, ...JSON_ONLY]);
const LUARMOR_READ = 'user_key identifier discord_id note auth_expire banned total_executions total_resets last_reset key_days';
export const LUARMOR_FIELDS = new Set<string>(`${LUARMOR_READ} ban_reason ban_expire`.split(' '));
/** Columns an older export lacks and an import therefore does not insist on. */
const OPTIONAL_COLUMNS = new Set<string>(['durationDays']);

function checkKey(value: unknown, field: string): string {
  if (typeof value !== 'string' || !KEY_PATTERN.test(value)) throw bad(field, 'must be a key: 8 to 64 of A-Z a-z 0-9 _ -');
  return value;
}
function checkNote(value: unknown, field: string): string | null {
  if (value === null || value === undefined || value === '') return null;
  if (typeof value !== 'string' || !NOTE_PATTERN.test(value))
    throw bad(field, 'must be at most 256 characters; newlines and tabs are fine, other control characters are not');
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

const EXPIRATION_TYPES = new Set(['lifetime', 'byDays', 'byDate', 'afterRedeem']);
const MAX_DURATION_DAYS = 3650;

function checkDurationDays(value: unknown, field: string): number | null {
  if (value === null || value === undefined || value === '') return null;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_DURATION_DAYS)
    throw bad(field, `must be a whole number of days from 1 to ${MAX_DURATION_DAYS}`);
  return value;
}
/** Fields only an active key has: a record that would become a generated key must not carry them, or they would be lost. */
const ACTIVE_ONLY = ['activatedAt', 'lastUsedAt', 'hwidResetAt', 'hwidResetCount'] as const;

/** A keyward export record (JSON, or CSV with its text converted first). */
function fromKeyward(record: unknown): ImportedKey {
  if (typeof record !== 'object' || record === null || Array.isArray(record)) throw bad('record', 'must be an object');
  const r = record as Record<string, unknown>;
  for (const name of Object.keys(r)) {
    if (!KEYWARD_FIELDS.has(name)) throw bad(name, 'is not a known field');
  }
  if (r.type !== undefined && r.type !== 'active' && r.type !== 'generated') throw bad('type', 'must be active or generated');
  const status = r.status ?? 'active';
  if (status !== 'active' && status !== 'paused' && status !== 'banned') throw bad('status', 'must be one of active, paused, banned');
  const maxHwids = r.maxHwids ?? 1;
  if (typeof maxHwids !== 'number' || !Number.isInteger(maxHwids) || maxHwids < 1 || maxHwids > 100)
    throw bad('maxHwids', 'must be a whole number from 1 to 100');
  const maxSessions = r.maxSessions ?? 0;
  if (typeof maxSessions !== 'number' || !Number.isInteger(maxSessions) || maxSessions < 0 || maxSessions > 100)
    throw bad('maxSessions', 'must be a whole number from 0 (no limit) to 100');
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
  const durationDays = checkDurationDays(r.durationDays, 'durationDays');
  if (durationDays !== null) {
    // Time that starts at first use: an unused key's, or (as an active key) one bound before it (§23); no expiry yet.
    if (active && (executions > 0 || lastUsedAt !== null))
      throw bad('durationDays', 'only a key not used yet has durationDays: a used key has its expiresAt');
    if (expiresAt !== null) throw bad('durationDays', 'a key with durationDays has no expiresAt until it is redeemed');
  }
  if (r.expirationType !== undefined) {
    if (typeof r.expirationType !== 'string' || !EXPIRATION_TYPES.has(r.expirationType))
      throw bad('expirationType', 'must be one of lifetime, byDays, byDate, afterRedeem');
    if (active) throw bad('expirationType', 'only a generated key has expirationType');
    if ((r.expirationType === 'afterRedeem') !== (durationDays !== null))
      throw bad('expirationType', 'must be afterRedeem exactly when durationDays is given');
    if (durationDays === null && (expiresAt === null) !== (r.expirationType === 'lifetime'))
      throw bad('expirationType', 'must be lifetime exactly when expiresAt is empty, else byDays or byDate');
  }
  const expirationType = r.expirationType === 'byDays' || r.expirationType === 'byDate' ? r.expirationType : undefined;
  return {
    key: checkKey(r.key, 'key'),
    active,
    expirationType,
    durationDays,
    status,
    hwids,
    note: checkNote(r.note, 'note'),
    isPremium: checkBoolean(r.isPremium, 'isPremium', false),
    noHwidValidation: checkBoolean(r.noHwidValidation, 'noHwidValidation', false),
    maxHwids,
    maxSessions,
    expiresAt,
    chatId: checkChatId(r.chatId, 'chatId'),
    executions,
    createdAt: checkTime(r.createdAt, 'createdAt'),
    activatedAt,
    lastUsedAt,
    hwidResetAt,
    hwidResetCount,
    // A ban's reason and end belong to a ban in force (contract §19); any other status carries none.
    banReason: status === 'banned' ? checkNote(r.banReason, 'banReason') : null,
    banExpiresAt: status === 'banned' ? checkTime(r.banExpiresAt, 'banExpiresAt') : null,
  };
}

/** The cell's value without the one `'` an export put before a formula's first character (keys-export.ts, neutralized). */
const unneutralized = (cell: string) => (cell.startsWith("'") && FORMULA_CELL.test(cell) ? cell.slice(1) : cell);

/** CSV cells are text: turn an export's words back into the JSON record's types, then check it the same way. */
function csvRecordToJson(row: Record<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, cell] of Object.entries(row)) {
    const text = unneutralized(cell);
    if (text === '' && name !== 'note') continue;
    switch (name) {
      case 'hwids':
        out.hwids = splitHwids(text);
        break;
      case 'isPremium':
      case 'noHwidValidation':
        if (text !== 'true' && text !== 'false') throw bad(name, 'must be true or false');
        out[name] = text === 'true';
        break;
      case 'maxHwids':
      case 'executions':
      case 'durationDays':
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
  const active = hwids.length > 0 || executions > 0;
  // key_days: the days an unused key, or one bound but never run (auth_expire -1, §23), runs from its first use (§12.1);
  // -1 or 0 means none. A used key's time has started: its auth_expire says when it ends.
  let durationDays: number | null = null;
  if ((!active || (executions === 0 && expiresAt === null)) && r.key_days !== undefined && r.key_days !== null) {
    const days = r.key_days;
    if (typeof days !== 'number' || !Number.isSafeInteger(days) || days < -1 || days > MAX_DURATION_DAYS)
      throw bad('key_days', `must be a whole number of days up to ${MAX_DURATION_DAYS}, or -1 or 0 for none`);
    if (days > 0) {
      durationDays = days;
      expiresAt = null;
    }
  }
  return {
    key,
    active,
    durationDays,
    status: r.banned === 1 || r.banned === true ? 'banned' : 'active',
    hwids,
    note: checkNote(r.note, 'note'),
    isPremium: false,
    noHwidValidation: false,
    maxHwids: 1,
    maxSessions: 0,
    expiresAt,
    chatId: checkChatId(discordId, 'discord_id'),
    executions,
    createdAt: null,
    activatedAt: null,
    lastUsedAt: null,
    // last_reset (Unix s; 0 none): the buyer's reset cooldown continues from it (contract §27). Only an active key keeps it.
    hwidResetAt: active ? luarmorSeconds(r.last_reset, 'last_reset') : null,
    hwidResetCount: r.total_resets === undefined || r.total_resets === null ? 0 : checkCount(r.total_resets, 'total_resets'),
    // A banned user's ban_reason and ban_expire (Unix s; -1 permanent) become the ban's reason and end (contract §19).
    ...(r.banned === 1 || r.banned === true ? luarmorBan(r) : {}),
  };
}

/** A Luarmor time in Unix seconds, where 0, -1 or nothing means none. */
function luarmorSeconds(value: unknown, field: string, none = '0 for none'): number | null {
  if (value === undefined || value === null || (typeof value === 'number' && value <= 0)) return null;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value * 1000 > LATEST_TIME_MS)
    throw bad(field, `must be Unix seconds, or ${none}`);
  return value * 1000;
}

function luarmorBan(r: Record<string, unknown>): { banReason: string | null; banExpiresAt: number | null } {
  const banReason = typeof r.ban_reason === 'string' ? checkNote(r.ban_reason, 'ban_reason') : null;
  return { banReason, banExpiresAt: luarmorSeconds(r.ban_expire, 'ban_expire', '-1 for a permanent ban') };
}

/**
 * The header must name each of the contract's columns exactly once (in any order: a spreadsheet may move
 * them); a missing, unknown or repeated column is one 400 naming it, before any row is read.
 */
function checkCsvHeader(header: string[]) {
  const unknown = header.filter((name) => !FIELD_NAMES.has(name));
  if (unknown.length > 0)
    throw invalidAsWritten(
      'data',
      `The CSV header has unknown column(s) ${unknown.map((n) => `"${n}"`).join(', ')}; expected ${EXPORT_COLUMNS.join(',')}`,
    );
  const repeated = header.filter((name, i) => header.indexOf(name) !== i);
  if (repeated.length > 0) throw invalid('data', `The CSV header names ${[...new Set(repeated)].join(', ')} more than once`);
  const missing = EXPORT_COLUMNS.filter((name) => !OPTIONAL_COLUMNS.has(name) && !header.includes(name));
  if (missing.length > 0)
    throw invalidAsWritten('data', `The CSV header lacks column(s) ${missing.join(', ')}; expected ${EXPORT_COLUMNS.join(',')}`);
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
    if (header === undefined) throw invalidAsWritten('data', `data holds no CSV header line; expected ${EXPORT_COLUMNS.join(',')}`);
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
