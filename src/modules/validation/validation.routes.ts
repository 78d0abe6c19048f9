import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { NullableTime, Responses } from '../../schemas.ts';
import { serviceForClient } from '../services/service-lookup.ts';
import { Nonce, SignatureFields } from '../signing/signing.schemas.ts';
import { signVerdict } from '../signing/signing.service.ts';
import { validateKey, type Verdict } from './validation.service.ts';

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
  { key: Type.Optional(ClientKey), hwid: Type.Optional(ClientHwid) },
  { additionalProperties: true },
);

// Executors differ, so client routes accept and ignore unknown fields (contract §1); types are still strict.
const ValidateInput = Type.Object(
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
export function hwidFrom(request: FastifyRequest, field: string | undefined, headers: readonly string[]): string | undefined {
  if (field) return field;
  for (const name of headers) {
    const value = request.headers[name];
    const hwid = typeof value === 'string' ? value.trim().slice(0, 256) : '';
    if (hwid && HWID_PATTERN.test(hwid)) return hwid;
  }
  return undefined;
}

export default async function validationRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;
  const config = { limit: 'client' } as const;
  const schema = { tags: ['client'], response: Responses(VerdictSchema) };

  // A key validated in a loop is answered without a promise (Fastify sends a plain return value at once).
  const envelope = <T extends Verdict>(data: T) => ({ success: true as const, data });
  const handle = (request: FastifyRequest, input: { service: string; key?: string; hwid?: string; nonce?: string }) => {
    const credentials = { key: input.key, hwid: hwidFrom(request, input.hwid, ctx.config.hwidHeaders) };
    if (input.nonce !== undefined) return signed(input.service, credentials, input.nonce);
    const service = ctx.services.peek(input.service);
    const verdict = service ? validateKey(ctx, service.id, credentials) : validate(input.service, credentials);
    return verdict instanceof Promise ? verdict.then(envelope) : envelope(verdict);
  };
  const validate = async (ref: string, credentials: { key?: string; hwid?: string }) =>
    validateKey(ctx, (await serviceForClient(ctx, ref)).id, credentials);
  // Only a client that sends a nonce pays for a signature (contract §13.1); the answer above stays as it was.
  const signed = async (ref: string, credentials: { key?: string; hwid?: string }, nonce: string) => {
    const serviceId = (await serviceForClient(ctx, ref)).id;
    const verdict = await validateKey(ctx, serviceId, credentials);
    return envelope({ ...verdict, ...(await signVerdict(ctx, serviceId, { ...credentials, nonce }, verdict)) });
  };

  app.get(
    '/keys/validate',
    {
      config,
      schema: {
        summary: 'Validate a key (executor call)',
        description:
          "Query `service`, `key`, `hwid` (the HWID may come from an executor header instead), and optionally `nonce` (16 to 64 letters and digits) for an answer signed with the service's Ed25519 key (`serverTime`, `signature`; contract §13.1). Answers `valid` and a Luarmor-compatible `code` (KEY_VALID, KEY_HWID_LOCKED, KEY_EXPIRED, KEY_BANNED, KEY_INCORRECT); the first HWID is bound. Spends the client budget of the address and service.",
        ...schema,
        querystring: ValidateInput,
      },
    },
    (request) => handle(request, request.query),
  );
  app.post(
    '/keys/validate',
    {
      config,
      schema: {
        summary: 'Validate a key (JSON body)',
        description: 'The same as GET /keys/validate with `service`, `key`, `hwid` in a JSON body; unknown fields are ignored.',
        ...schema,
        body: ValidateInput,
      },
    },
    (request) => handle(request, request.body),
  );
}
