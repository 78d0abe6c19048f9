import { Type } from 'typebox';
import { NullableString, NullableTime, Strict } from '../../schemas.ts';
import { oneOf } from './keys-list.schemas.ts';

export const IMPORT_FORMATS = ['keyward-csv', 'keyward-json', 'luarmor'] as const;
export const ImportBody = Strict({
  format: oneOf(IMPORT_FORMATS),
  // Its shape depends on the format (CSV text or an array of records); the import checks each record itself.
  data: Type.Union([Type.String(), Type.Array(Type.Unknown())], { errorMessage: 'must be CSV text or an array of records' }),
  onDuplicate: Type.Optional(oneOf(['error', 'skip'] as const)),
  dryRun: Type.Optional(Type.Boolean({ description: 'Check and describe the import (200) without writing anything' })),
});
/**
 * What the import would store, each key in exactly one: banned first, then expired, then by what it becomes (active or
 * generated). With onDuplicate skip, the keys already there are left out, as the import leaves them.
 */
const ImportCounts = Type.Object({
  active: Type.Integer(),
  generated: Type.Integer(),
  banned: Type.Integer(),
  expired: Type.Integer(),
});
export const ImportResult = Type.Object({
  imported: Type.Object({ active: Type.Integer(), generated: Type.Integer() }),
  skipped: Type.Integer(),
});
const ImportSample = Type.Object({
  key: Type.String(),
  type: Type.Union([Type.Literal('active'), Type.Literal('generated')]),
  status: Type.String(),
  hwids: Type.Array(Type.String()),
  note: NullableString,
  chatId: NullableString,
  expiresAt: NullableTime,
  durationDays: Type.Unsafe<number | null>({ type: ['integer', 'null'] }),
  executions: Type.Integer(),
  hwidResetAt: NullableTime,
  hwidResetCount: Type.Integer(),
  banReason: NullableString,
});
export const ImportPreview = Type.Object({
  dryRun: Type.Literal(true),
  format: Type.String(),
  counts: ImportCounts,
  /** The field names found in the data that the import reads. */
  fields: Type.Array(Type.String()),
  /** Field names found that the import ignores (a Luarmor record carries some). */
  ignored: Type.Array(Type.String()),
  sample: Type.Array(ImportSample),
  /** Keys of this import already on the server: a 409 on import, or skipped with onDuplicate skip. */
  existing: Type.Array(Type.String()),
});
