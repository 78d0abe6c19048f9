import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { NullableTime, Responses } from '../../schemas.ts';
import { serviceForClient } from '../services/service-lookup.ts';
import { validateKey } from './validation.service.ts';

// Executors differ, so client routes accept and ignore unknown fields (contract §1); types are still strict.
const ValidateInput = Type.Object(
  {
    service: Type.String({ minLength: 1, maxLength: 64 }),
    key: Type.Optional(Type.String({ maxLength: 128 })),
    hwid: Type.Optional(Type.String({ maxLength: 256 })),
  },
  { additionalProperties: true },
);
export const VerdictSchema = Type.Object({
  valid: Type.Boolean(),
  code: Type.String(),
  message: Type.String(),
  isPremium: Type.Boolean(),
  expiresAt: NullableTime,
});

/** The HWID from the request field, else from the first executor fingerprint header present. */
export function hwidFrom(request: FastifyRequest, field: string | undefined, headers: readonly string[]): string | undefined {
  if (field) return field;
  for (const name of headers) {
    const value = request.headers[name];
    if (typeof value === 'string' && value.trim()) return value.trim().slice(0, 256);
  }
  return undefined;
}

export default async function validationRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;
  const config = { limit: 'client' } as const;
  const schema = { tags: ['client'], response: Responses(VerdictSchema) };

  const handle = async (request: FastifyRequest, input: { service: string; key?: string; hwid?: string }) => {
    const service = await serviceForClient(ctx, input.service);
    const verdict = await validateKey(ctx, service.id, { key: input.key, hwid: hwidFrom(request, input.hwid, ctx.config.hwidHeaders) });
    return { success: true as const, data: verdict };
  };

  app.get('/keys/validate', { config, schema: { ...schema, querystring: ValidateInput } }, (request) => handle(request, request.query));
  app.post('/keys/validate', { config, schema: { ...schema, body: ValidateInput } }, (request) => handle(request, request.body));
}
