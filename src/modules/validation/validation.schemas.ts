import type { IncomingHttpHeaders } from 'node:http';
import { Type } from 'typebox';
import { NullableTime } from '../../schemas.ts';
import { Nonce, SignatureFields, SignatureVersion } from '../signing/signing.schemas.ts';
import { ExecutorField } from '../../lib/executor.ts';

// An HWID is printable ASCII (contract §3, the API's Hwid rule), so a bound key can be looked up and
// managed again. Empty is allowed here: a missing HWID is the HWID_REQUIRED verdict, not a 400.
const PRINTABLE = '^[\\x20-\\x7E]*$';
const HWID_PATTERN = new RegExp(PRINTABLE);
// No control characters: PostgreSQL refuses NUL in text, which would otherwise surface as a 500.
const NO_CONTROLS = '^[^\\x00-\\x1F\\x7F]*$';

/** The `key` and `hwid` a client route takes (validate, and any route that runs the same validation). */
export const ClientKey = Type.String({
  maxLength: 128,
  pattern: NO_CONTROLS,
  errorMessage: 'must be at most 128 characters, none of them control characters',
});
export const ClientHwid = Type.String({ maxLength: 256, pattern: PRINTABLE, errorMessage: 'must be at most 256 printable characters' });

/** Path parameter of the client routes that name a script (loader, fetch, Lua library check). */
export const ScriptIdParams = Type.Object({ scriptId: Type.String({ minLength: 1, maxLength: 64, pattern: NO_CONTROLS }) });
/** `key` and `hwid` of the client routes that run validation for a script; unknown fields are ignored. */
export const ClientCredentialsQuery = Type.Object(
  { key: Type.Optional(ClientKey), hwid: Type.Optional(ClientHwid), executor: Type.Optional(ExecutorField) },
  { additionalProperties: true },
);

// Executors differ, so client routes accept and ignore unknown fields (contract §1); types are still strict.
export const ValidateInput = Type.Object(
  {
    service: Type.String({
      minLength: 1,
      maxLength: 64,
      pattern: NO_CONTROLS,
      errorMessage: 'must be a service id or identifier of 1 to 64 characters',
    }),
    key: Type.Optional(ClientKey),
    hwid: Type.Optional(ClientHwid),
    nonce: Type.Optional(Nonce),
    sig: Type.Optional(SignatureVersion),
    /** The executor the run reported (contract §29): counted in analytics, never a lock. */
    executor: Type.Optional(ExecutorField),
  },
  { additionalProperties: true },
);
export const VerdictSchema = Type.Object({
  valid: Type.Boolean(),
  code: Type.String(),
  message: Type.String(),
  isPremium: Type.Boolean(),
  expiresAt: NullableTime,
  ...SignatureFields,
});

/** The HWID from the request field, else from the first executor fingerprint header with a usable value. */
export function hwidFrom(
  request: { headers: IncomingHttpHeaders },
  field: string | undefined,
  headers: readonly string[],
): string | undefined {
  if (field) return field;
  for (const name of headers) {
    const value = request.headers[name];
    const hwid = typeof value === 'string' ? value.trim().slice(0, 256) : '';
    if (hwid && HWID_PATTERN.test(hwid)) return hwid;
  }
  return undefined;
}
