import { Type } from 'typebox';
import { Note, Strict } from '../../schemas.ts';
import { oneOf } from './keys-list.schemas.ts';

/** Keys as written anywhere since imports widened them (contract part two): 8–64 of [A-Za-z0-9_-]. */
export const AnyKey = Type.String({
  minLength: 8,
  maxLength: 64,
  pattern: '^[A-Za-z0-9_-]+$',
  errorMessage: 'must be a key: 8 to 64 of A-Z a-z 0-9 _ -',
});

export const BULK_ACTIONS = ['delete', 'ban', 'pause', 'activate', 'resetHwid', 'extend', 'setNote', 'move'] as const;
export const BulkBody = Strict({
  action: oneOf(BULK_ACTIONS),
  keys: Type.Array(AnyKey, { minItems: 1, maxItems: 1000, uniqueItems: true, errorMessage: 'must be 1 to 1000 distinct keys' }),
  days: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650, errorMessage: 'must be a whole number from 1 to 3650' })),
  note: Type.Optional(Note),
  /** `ban` (contract §19): the ban's reason; its `days` end it (absent: permanent). */
  reason: Type.Optional(
    Type.String({ maxLength: 256, pattern: '^[^\\x00]*$', errorMessage: 'must be a reason of at most 256 characters' }),
  ),
  /** `move`: another service of the same account (id or identifier) that takes the keys. */
  toService: Type.Optional(
    Type.String({ minLength: 1, maxLength: 64, errorMessage: 'must be the id or identifier of one of your services' }),
  ),
});
export const BulkResult = Type.Object({
  action: Type.String(),
  updated: Type.Integer(),
  notFound: Type.Array(Type.String()),
  skipped: Type.Array(Type.String()),
});
