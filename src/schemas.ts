import { Type, type TSchema, type TProperties, type TObjectOptions } from 'typebox';
import { MAX_LIMIT } from './lib/pagination.ts';

/**
 * Shared schema primitives. `errorMessage` is an annotation our Ajv knows (see plugins/validation.ts):
 * the error handler shows it instead of Ajv's generic sentence.
 */

/** Request objects reject unknown fields, so a typo never silently does nothing. */
export const Strict = <P extends TProperties>(properties: P, options: TObjectOptions = {}) =>
  Type.Object(properties, { additionalProperties: false, ...options });

/** ISO 8601 string or epoch milliseconds. */
export const TimeInput = Type.Union([Type.String({ format: 'date-time' }), Type.Integer({ minimum: 0, maximum: 253_402_300_799_999 })], {
  errorMessage: 'must be an ISO 8601 date-time or epoch milliseconds',
});
export const NullableTimeInput = Type.Union([TimeInput, Type.Null()], {
  errorMessage: 'must be an ISO 8601 date-time, epoch milliseconds or null',
});

export const Time = Type.String({ format: 'date-time' });
// Nullable response fields are type arrays, not unions: fast-json-stringify serializes a union by
// running Ajv over each branch, on every response.
export const NullableTime = Type.Unsafe<string | null>({ type: ['string', 'null'], format: 'date-time' });
export const NullableString = Type.Unsafe<string | null>({ type: ['string', 'null'] });

export const Hwid = Type.String({
  minLength: 1,
  maxLength: 256,
  pattern: '^[\\x20-\\x7E]+$',
  errorMessage: 'must be 1 to 256 printable characters',
});
// Generated keys are 32 of [A-Za-z0-9]; imported ones may also hold _ and - (contract §7: every route that takes a key
// accepts 8–64 of [A-Za-z0-9_-]; shorter ones stay accepted as before). Free text may not carry control characters.
export const LicenseKey = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: '^[A-Za-z0-9_-]+$',
  errorMessage: 'must be a key: 1 to 64 of A-Z a-z 0-9 _ -',
});
// A note may run over several lines and hold tabs (contract §23); no other control character.
export const Note = Type.String({
  maxLength: 256,
  pattern: '^[^\\x00-\\x08\\x0B\\x0C\\x0E-\\x1F\\x7F]*$',
  errorMessage: 'must be at most 256 characters; newlines and tabs are fine, other control characters are not',
});
export const ChatId = Type.String({ pattern: '^[0-9]{17,20}$', errorMessage: 'must be 17 to 20 digits' });
export const KeyStatus = Type.Union([Type.Literal('active'), Type.Literal('paused'), Type.Literal('banned')], {
  errorMessage: 'must be one of active, paused, banned',
});

/** Query-string integers arrive as text and are parsed strictly: no signs, decimals, exponents or spaces. */
export const QueryInt = (min: number, max: number) =>
  Type.String({ pattern: '^[0-9]{1,10}$', errorMessage: `must be a whole number from ${min} to ${max}`, 'x-int-range': [min, max] });

/** `page` and `limit` of every paged list (contract §1); `pageRequest` turns them into numbers. */
export const Paging = {
  page: Type.Optional(QueryInt(1, 1_000_000)),
  limit: Type.Optional(QueryInt(1, MAX_LIMIT)),
};

export const PageQuery = {
  ...Paging,
  search: Type.Optional(Type.String({ maxLength: 256 })),
};

export const Page = <T extends TSchema>(item: T) =>
  Type.Object({
    items: Type.Array(item),
    page: Type.Integer(),
    limit: Type.Integer(),
    total: Type.Integer(),
    totalPages: Type.Integer(),
  });

export const ErrorEnvelope = Type.Object({
  success: Type.Literal(false),
  error: Type.String(),
  code: Type.String(),
  field: Type.Optional(Type.String()),
  retryAfter: Type.Optional(Type.Integer()),
  requestId: Type.Optional(Type.String()),
});

export const Envelope = <T extends TSchema>(data: T) => Type.Object({ success: Type.Literal(true), data });

/** Response schemas for a route: the success envelope at `status`, the error envelope for every failure. */
export const Responses = <T extends TSchema>(data: T, status = 200) => ({
  [status]: Envelope(data),
  '4xx': ErrorEnvelope,
  '5xx': ErrorEnvelope,
});

export const Deleted = Type.Object({ deleted: Type.Integer() });

/** An account as its owner and staff see it: never a key or a secret. */
export const Account = Type.Object({
  id: Type.String(),
  username: Type.String(),
  role: Type.Union([Type.Literal('user'), Type.Literal('moderator'), Type.Literal('admin')]),
  twoFactorEnabled: Type.Boolean(),
  createdAt: Time,
  /** The Discord user the account acts as in staff slash commands (contract §24.3). */
  discordUserId: NullableString,
});

/** `/:id` of an account or a service. */
export const IdParams = Strict({ id: Type.String({ minLength: 1, maxLength: 64 }) });
