import { Type } from 'typebox';
import { Paging, Strict } from '../../schemas.ts';
import { ActiveKey, GeneratedKey } from './keys.schemas.ts';

export const oneOf = <T extends string>(values: readonly T[]) =>
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
  /** The account id of the member or owner that created the keys (contract §17). */
  createdBy: Type.Optional(Type.String({ minLength: 1, maxLength: 64, errorMessage: 'must be an account id' })),
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
