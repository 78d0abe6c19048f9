import { Type } from 'typebox';
import { Strict } from '../../schemas.ts';
import { ClientHwid, ClientKey } from '../validation/validation.schemas.ts';

// Names and values are checked by the service (variables.service.ts), so a refusal names the variable in words.
export const VariablesBody = Strict({
  variables: Type.Record(Type.String(), Type.Unknown(), { errorMessage: 'must be an object of variable names and text values' }),
});
const VariableMap = Type.Record(Type.String(), Type.String());
export const Variables = Type.Object({ variables: VariableMap });
export const ClientVariables = Type.Object({ valid: Type.Boolean(), code: Type.String(), variables: VariableMap });

// Client routes accept and ignore unknown fields (contract §1).
export const ClientVariablesQuery = Type.Object(
  {
    service: Type.String({
      minLength: 1,
      maxLength: 64,
      pattern: '^[^\\x00-\\x1F\\x7F]*$',
      errorMessage: 'must be a service id or identifier of 1 to 64 characters',
    }),
    key: Type.Optional(ClientKey),
    hwid: Type.Optional(ClientHwid),
  },
  { additionalProperties: true },
);
