import { Type } from 'typebox';
import { NullableString } from '../../schemas.ts';
import { Nonce, SignatureVersion } from '../signing/signing.schemas.ts';
import { ClientCredentialsQuery, VerdictSchema } from '../validation/validation.schemas.ts';

/** The key-system page of a script's service, or null while its key system is off. */
export const KeySystemLink = Type.Object({ link: NullableString });

// With a nonce, the answer also names the service and HWID the signature covers: the library knows neither
// (a script id names the service; the HWID may have come from an executor header).
export const CheckQuery = Type.Object(
  { ...ClientCredentialsQuery.properties, nonce: Type.Optional(Nonce), sig: Type.Optional(SignatureVersion) },
  { additionalProperties: true },
);
export const CheckAnswer = Type.Object({
  ...VerdictSchema.properties,
  serviceId: Type.Optional(Type.String()),
  hwid: Type.Optional(Type.String()),
});
