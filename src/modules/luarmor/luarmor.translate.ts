// The edge of the Luarmor-compatible API (contract §16.1): Keyward's records and errors in Luarmor's words. Nothing here
// decides anything about keys; it only says how Keyward's answer reads to a client written for api.luarmor.net.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../errors.ts';
import { describeValidationError } from '../../plugins/validation.ts';
import { isDatabaseUnavailable, UNAVAILABLE_RETRY_AFTER_SECONDS } from '../../plugins/errors.ts';
import { banNow, statusNow } from '../keys/keys.service.ts';
import type { KeyRowEntry } from '../keys/keys-list.service.ts';
import { CODE_LIMIT_BYTES, ScriptCode } from '../scripts/scripts.service.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The sentence a Luarmor route answers when the key it names does not exist (§16.2 words it per route). */
    luarmorKeyNotFound?: string;
  }
}

/** A refusal in Luarmor's words: the route's status and exact message (§16.2). */
export class LuarmorRefusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export const refuse = (message: string) => new LuarmorRefusal(400, message);

export const WRONG_API_KEY = 'Wrong API key';
export const PROJECT_NOT_FOUND = 'Project not found!';
export const KEY_NOT_FOUND = 'Key not found';
export const USER_KEY_MISSING = "User key doesn't exist";

/** Luarmor's times are Unix seconds; a time that never comes is -1. */
export const seconds = (ms: number | null | undefined) => (ms === null || ms === undefined ? -1 : Math.floor(ms / 1000));

/** The days a key's time will run once it starts (its first use), or null when it has started or has no end. */
const keyDays = (entry: KeyRowEntry) => (entry.type === 'generated' ? entry.row.durationDays : entry.row.pendingDays);

/**
 * A Keyward key of the service as Luarmor's user record (§16.1's table, field for field).
 *
 * A class, not an object literal, for the streamed user list (contract §28: a million users in bounded memory). V8
 * gives each object literal an allocation site, and when most of a site's objects outlive a young-generation collection
 * it may make the site's later objects straight in the old generation. There each record held its young row alive
 * until a full collection: listing 300,000 users grew the heap by 124–145 MB in about a third of the runs. An object
 * made by `new` has no allocation site (docs/benchmarks.md, the fifth round's twelfth session). Its fields are declared
 * in Luarmor's order, which is the order JSON writes them in.
 */
class LuarmorUser {
  readonly user_key: string;
  readonly identifier: string;
  readonly identifier_type: 'HWID' | '';
  readonly discord_id: string;
  readonly status: 'banned' | 'active' | 'reset';
  readonly last_reset: number;
  readonly total_resets: number;
  readonly auth_expire: number;
  /** Undefined (left out of the JSON) unless the key's time starts at its first use. */
  readonly key_days?: number;
  readonly banned: 0 | 1;
  readonly ban_reason: string;
  readonly ban_expire: number;
  readonly unban_token: string;
  readonly total_executions: number;
  readonly note: string;
  readonly ban_ip = '';

  constructor(entry: KeyRowEntry, now: number) {
    const { row } = entry;
    const status = statusNow(row, now);
    const ban = banNow(row, now);
    const active = entry.type === 'active' ? entry.row : null;
    const hwid = active?.hwids[0] ?? null;
    const refused = status !== 'active';
    this.user_key = row.key;
    this.identifier = hwid ?? '';
    this.identifier_type = hwid ? 'HWID' : '';
    this.discord_id = row.chatId ?? '';
    this.status = refused ? 'banned' : hwid ? 'active' : 'reset';
    this.last_reset = active?.hwidResetAt ? seconds(active.hwidResetAt) : 0;
    this.total_resets = active?.hwidResetCount ?? 0;
    // Time that starts at first use has no end yet: Luarmor shows it as -1 beside key_days, for an unused key and for
    // one bound before its first use alike (contract §23).
    this.auth_expire = seconds(row.expiresAt);
    this.key_days = keyDays(entry) ?? undefined;
    this.banned = refused ? 1 : 0;
    this.ban_reason = status === 'paused' ? 'Paused' : (ban.banReason ?? '');
    this.ban_expire = seconds(ban.banExpiresAt);
    this.unban_token = status === 'banned' ? (row.unbanToken ?? '') : '';
    this.total_executions = active?.executions ?? 0;
    this.note = row.note ?? '';
  }
}

export const toLuarmorUser = (entry: KeyRowEntry, now: number) => new LuarmorUser(entry, now);

function send(reply: FastifyReply, status: number, message: string) {
  return reply.status(status).type('application/json; charset=utf-8').send({ success: false, message });
}

/** Keyward's error codes as Luarmor's statuses: refusals of an action are 400s there, not 409/422/429s. */
function fromAppError(request: FastifyRequest, error: AppError): [number, string] {
  switch (error.code) {
    case 'UNAUTHORIZED':
      // The public unban route's unknown token is a failed authentication (it spends the budget) that Luarmor words
      // as a missing key; everywhere else it is a wrong API key.
      return request.routeOptions.config.auth ? [403, WRONG_API_KEY] : [404, KEY_NOT_FOUND];
    case 'PERMISSION_DENIED':
    case 'IP_NOT_ALLOWED':
    case 'FORBIDDEN':
    // A member's role or a reseller's quota (contract §17), in Keyward's words: Luarmor has no such refusal.
    case 'ROLE_FORBIDDEN':
    case 'QUOTA_EXCEEDED':
      return [403, error.message];
    case 'NOT_FOUND':
      if (error.message.startsWith('Project')) return [404, PROJECT_NOT_FOUND];
      return [404, request.routeOptions.config.luarmorKeyNotFound ?? KEY_NOT_FOUND];
    case 'RATE_LIMITED':
      return [429, error.message];
    case 'PAYLOAD_TOO_LARGE':
      return [413, error.message];
    case 'HWID_RESET_COOLDOWN':
      return [400, 'User is on cooldown.'];
    case 'UNAVAILABLE':
    case 'INTERNAL_ERROR':
    case 'WEBHOOK_DELIVERY_FAILED':
    case 'PROVIDER_UNAVAILABLE':
      return [error.status, error.message];
    default:
      return [400, error.message];
  }
}

/**
 * Luarmor's envelope for every answer of the module, errors included (`{ success: false, message }`), with the same
 * failure accounting as the rest of the server: the failed-authentication budget counts the 401 before this runs.
 */
export function installLuarmorErrors(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | AppError | LuarmorRefusal, request, reply) => {
    if (error instanceof LuarmorRefusal) return send(reply, error.status, error.message);
    if (error instanceof AppError) {
      if (error.status >= 500) request.log.error({ err: error }, error.message);
      if (error.extras.retryAfter !== undefined) reply.header('retry-after', String(error.extras.retryAfter));
      const [status, message] = fromAppError(request, error);
      return send(reply, status, message);
    }
    if (error.validation) {
      const { message } = describeValidationError(error.validation, error.validationContext ?? 'body');
      // An entry of a list is named by its index as a programmer writes it: users[3].user_key.
      return send(reply, 400, message.replace(/\b([A-Za-z_]+)\.(\d+)\b/g, '$1[$2]'));
    }
    if (error.statusCode === 429) return send(reply, 429, 'Too many requests, slow down');
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return send(reply, 413, 'The request body is too large');
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) return send(reply, 400, 'The request is malformed');
    if (isDatabaseUnavailable(error)) {
      reply.header('retry-after', String(UNAVAILABLE_RETRY_AFTER_SECONDS));
      return send(reply, 503, 'The service is briefly unavailable; try again shortly');
    }
    request.log.error({ err: error }, 'unhandled error');
    return send(reply, 500, 'Something went wrong on our side; the request id identifies it in the logs');
  });
  app.setNotFoundHandler((_request, reply) => send(reply, 404, 'Not found'));
  // Contract §27: every answer under /luarmor is Luarmor's envelope. Without this, a path no route takes (or one whose
  // parameter is longer than the router matches) fell through to the dashboard's pages or Fastify's own body.
  const longest = app.initialConfig.maxParamLength ?? 100;
  app.all('/*', { schema: { hide: true } }, async (request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    if (path.split('/').some((segment) => segment.length > longest))
      return send(reply, 400, `A path parameter is too long (at most ${longest} characters)`);
    return send(reply, 404, 'Not found');
  });
}

/** Luarmor's script names are free text; Keyward's are 1–64 of [A-Za-z0-9_.-]: anything else becomes `-`. */
export const scriptNameOf = (name: string) => name.replace(/[^A-Za-z0-9_.-]/g, '-').slice(0, 64);

/** Luarmor sends the whole script as a JSON string: Keyward's size limit, then the code as the scripts service takes it. */
export function codeOf(script: string) {
  if (Buffer.byteLength(script, 'utf8') > CODE_LIMIT_BYTES)
    throw new AppError('PAYLOAD_TOO_LARGE', 'The script code is larger than 40 MB (41,943,040 bytes)');
  return ScriptCode.fromString(script);
}

/** Drops `null` fields of a JSON object, and of the objects in its arrays (an import's users), in place. */
function dropNulls(value: unknown, depth = 0): void {
  if (value === null || typeof value !== 'object' || depth > 2) return;
  if (Array.isArray(value)) {
    for (const item of value) dropNulls(item, depth + 1);
    return;
  }
  const fields = value as Record<string, unknown>;
  for (const name of Object.keys(fields)) {
    if (fields[name] === null) delete fields[name];
    else if (Array.isArray(fields[name])) dropNulls(fields[name], depth + 1);
  }
}

/**
 * Contract §23: an optional field sent as JSON `null`, or a query parameter sent empty, was not sent. Luarmor's SDKs
 * serialise every unset option as `null` and bots write `value || null`; Luarmor reads both as absent. Runs before
 * validation and before any check read off the body (a PATCH's role), so neither ever sees them.
 */
export function installLuarmorInput(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    dropNulls(request.body);
    const query = request.query as Record<string, unknown> | undefined;
    if (query && typeof query === 'object') {
      for (const name of Object.keys(query)) if (query[name] === '') delete query[name];
    }
  });
}
