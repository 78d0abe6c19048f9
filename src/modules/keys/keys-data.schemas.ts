import { Type } from 'typebox';
import { Note, Paging, Strict } from '../../schemas.ts';
import { ActiveKey, GeneratedKey } from './keys.schemas.ts';

const oneOf = <T extends string>(values: readonly T[]) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    { errorMessage: `must be one of ${values.join(', ')}` },
  );
const bool = oneOf(['true', 'false'] as const);

/** The list filters (contract §7.2), shared by the listing and the export. */
const filters = {
  type: Type.Optional(oneOf(['active', 'generated', 'all'] as const)),
  status: Type.Optional(oneOf(['active', 'paused', 'banned'] as const)),
  premium: Type.Optional(bool),
  bound: Type.Optional(bool),
  expired: Type.Optional(bool),
  search: Type.Optional(Type.String({ minLength: 1, maxLength: 256, errorMessage: 'must be 1 to 256 characters' })),
};

export const ListQuery = Strict({
  ...filters,
  sort: Type.Optional(oneOf(['createdAt', 'expiresAt', 'lastUsedAt', 'executions'] as const)),
  order: Type.Optional(oneOf(['desc', 'asc'] as const)),
  ...Paging,
});

export const ExportQuery = Strict({ ...filters, format: Type.Optional(oneOf(['csv', 'json'] as const)) });

// Each item is an ActiveKey or a GeneratedKey plus its `type` (the same shape as GET /keys/api/key/by-chat).
/** A row of the list: an active key's or a generated key's view, told apart by `type`. */
export const ListedKey = Type.Union([
  Type.Object({ type: Type.Literal('active'), ...ActiveKey.properties }),
  Type.Object({ type: Type.Literal('generated'), ...GeneratedKey.properties }),
]);

/** Keys as written anywhere since imports widened them (contract part two): 8–64 of [A-Za-z0-9_-]. */
export const AnyKey = Type.String({
  minLength: 8,
  maxLength: 64,
  pattern: '^[A-Za-z0-9_-]+$',
  errorMessage: 'must be a key: 8 to 64 of A-Z a-z 0-9 _ -',
});

export const BULK_ACTIONS = ['delete', 'ban', 'pause', 'activate', 'resetHwid', 'extend', 'setNote'] as const;
export const BulkBody = Strict({
  action: oneOf(BULK_ACTIONS),
  keys: Type.Array(AnyKey, { minItems: 1, maxItems: 1000, uniqueItems: true, errorMessage: 'must be 1 to 1000 distinct keys' }),
  days: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650, errorMessage: 'must be a whole number from 1 to 3650' })),
  note: Type.Optional(Note),
});
export const BulkResult = Type.Object({
  action: Type.String(),
  updated: Type.Integer(),
  notFound: Type.Array(Type.String()),
  skipped: Type.Array(Type.String()),
});

export const IMPORT_FORMATS = ['keyward-csv', 'keyward-json', 'luarmor'] as const;
export const ImportBody = Strict({
  format: oneOf(IMPORT_FORMATS),
  // Its shape depends on the format (CSV text or an array of records); the import checks each record itself.
  data: Type.Union([Type.String(), Type.Array(Type.Unknown())], { errorMessage: 'must be CSV text or an array of records' }),
  onDuplicate: Type.Optional(oneOf(['error', 'skip'] as const)),
});
export const ImportResult = Type.Object({
  imported: Type.Object({ active: Type.Integer(), generated: Type.Integer() }),
  skipped: Type.Integer(),
});
