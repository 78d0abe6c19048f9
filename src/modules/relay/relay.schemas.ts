import { Type } from 'typebox';
import { Envelope, ErrorEnvelope } from '../../schemas.ts';
import { ClientHwid } from '../validation/validation.schemas.ts';

export const RelayParams = Type.Object({
  service: Type.String({
    minLength: 1,
    maxLength: 64,
    pattern: '^[^\\x00-\\x1F\\x7F]*$',
    errorMessage: 'must be a service id or identifier of 1 to 64 characters',
  }),
});
// A client route: unknown fields are accepted and ignored (contract §1), the named ones are strict.
export const RelayBody = Type.Object(
  {
    key: Type.String({
      minLength: 1,
      maxLength: 128,
      pattern: '^[^\\x00-\\x1F\\x7F]*$',
      errorMessage: 'must be the license key: 1 to 128 characters, none of them control characters',
    }),
    hwid: Type.Optional(ClientHwid),
    content: Type.String({ minLength: 1, maxLength: 2000, pattern: '^[^\\x00]*$', errorMessage: 'must be 1 to 2000 characters' }),
    username: Type.Optional(
      Type.String({ minLength: 1, maxLength: 80, pattern: '^[^\\x00]*$', errorMessage: 'must be 1 to 80 characters' }),
    ),
  },
  { additionalProperties: true },
);
export const Delivered = Type.Object({ delivered: Type.Boolean(), queued: Type.Optional(Type.Boolean()) });

/** The error envelope with `reason` (KEY_REFUSED: the validation code). */
const RelayError = Type.Object({ ...ErrorEnvelope.properties, reason: Type.Optional(Type.String()) });
export const RelayResponses = {
  200: Envelope(Delivered),
  202: Envelope(Delivered),
  '4xx': RelayError,
  '5xx': RelayError,
};
