import { Type } from 'typebox';
import { Strict } from '../../schemas.ts';
import { oneOf } from './keys-list.schemas.ts';

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
