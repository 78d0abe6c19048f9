import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Responses } from '../../schemas.ts';
import { serviceForClient } from '../services/services.service.ts';
import { isV2 } from '../signing/signing.schemas.ts';
import { signVerdict } from '../signing/signing.service.ts';
import { validateKey, type ClientRun, type Verdict } from './validation.service.ts';
import { executorOf } from '../../lib/executor.ts';
import { hwidFrom, ValidateInput, VerdictSchema } from './validation.schemas.ts';

type Input = { service: string; key?: string; hwid?: string; nonce?: string; sig?: unknown; executor?: string };

export default async function validationRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;
  const config = { limit: 'client' } as const;
  const schema = { tags: ['client'], response: Responses(VerdictSchema) };

  // A key validated in a loop is answered without a promise (Fastify sends a plain return value at once).
  const envelope = <T extends Verdict>(data: T) => ({ success: true as const, data });
  const handle = (request: { headers: IncomingHttpHeaders }, input: Input) => {
    const credentials = {
      key: input.key,
      hwid: hwidFrom(request, input.hwid, ctx.config.hwidHeaders),
      executor: executorOf(input.executor),
    };
    if (input.nonce !== undefined) {
      // v2 (contract §22) signs the HWID as the query or body sent it, not one read from a fingerprint header.
      const how = { nonce: input.nonce, version: isV2(input.sig) ? (2 as const) : (1 as const), sentHwid: input.hwid ?? '' };
      return signed(input.service, credentials, how);
    }
    const service = ctx.services.peek(input.service);
    const verdict = service ? validateKey(ctx, service.id, credentials) : validate(input.service, credentials);
    return verdict instanceof Promise ? verdict.then(envelope) : envelope(verdict);
  };
  const validate = async (ref: string, credentials: ClientRun) => validateKey(ctx, (await serviceForClient(ctx, ref)).id, credentials);
  // Only a client that sends a nonce pays for a signature (contract §13.1); the answer above stays as it was.
  const signed = async (ref: string, credentials: ClientRun, how: { nonce: string; version: 1 | 2; sentHwid: string }) => {
    const serviceId = (await serviceForClient(ctx, ref)).id;
    const verdict = await validateKey(ctx, serviceId, credentials);
    return envelope({ ...verdict, ...(await signVerdict(ctx, serviceId, { ...credentials, ...how }, verdict)) });
  };

  // Every script run validates: the hot lane answers the GET form when it can (plugins/hot-lane.ts).
  app.hotLane.add<never, Input>({
    method: 'GET',
    url: `${app.prefix}/keys/validate`,
    querystring: ValidateInput,
    response: schema.response,
    handle: (request) => handle(request, request.query),
  });
  app.get(
    '/keys/validate',
    {
      config,
      schema: {
        summary: 'Validate a key (executor call)',
        description:
          "Query `service`, `key`, `hwid` (the HWID may come from an executor header instead), and optionally `nonce` (16 to 64 letters and digits) for an answer signed with the service's Ed25519 key (`serverTime`, `signature`; contract §13.1), with `sig=2` for the v2 text (contract §22). Answers `valid` and a Luarmor-compatible `code` (KEY_VALID, KEY_HWID_LOCKED, KEY_EXPIRED, KEY_BANNED, KEY_INCORRECT); the first HWID is bound. Spends the client budget of the address and service.",
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
