import { Type } from 'typebox';
import { Strict, Time } from '../../schemas.ts';

export const VaultScript = Type.Object({ id: Type.String(), name: Type.String(), size: Type.Integer(), createdAt: Time, updatedAt: Time });
export const VaultScriptWithCode = Type.Object({ ...VaultScript.properties, code: Type.String() });
export const Name = Type.String({ minLength: 1, maxLength: 64 });
export const Code = Type.String({ minLength: 1 });
export const CreateBody = Strict({ name: Name, code: Code });
export const UpdateBody = Strict(
  { name: Type.Optional(Name), code: Type.Optional(Code) },
  { minProperties: 1, errorMessage: 'must name at least one of name, code' },
);
export const RefParams = Strict({ idOrName: Type.String({ minLength: 1, maxLength: 64 }) });
export const VaultToken = Type.Object({ token: Type.String(), expiresIn: Type.Integer(), apiBaseUrl: Type.String() });
