import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Responses } from '../../schemas.ts';
import { serviceOf } from '../../plugins/auth.ts';
import { actorOf } from '../audit/actor.ts';
import { serviceForClient } from '../services/services.service.ts';
import { SigningKey, SigningKeyParams } from './signing.schemas.ts';
import { publicSigningKey, rotateSigningKey } from './signing.service.ts';

const tags = ['service'];

export default async function signingRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;

  app.get(
    '/public/services/:service/signing-key',
    {
      config: { limit: 'client' },
      schema: {
        summary: "A service's public signing key",
        description:
          'Public: the Ed25519 key that signs /keys/validate answers asked for with `nonce` (contract §13.1), as base64 of its 32 raw bytes. Set it as `api.public_key` in the Lua library.',
        tags: ['client'],
        params: SigningKeyParams,
        response: Responses(SigningKey),
      },
    },
    async (request) => {
      const service = await serviceForClient(ctx, request.params.service);
      return { success: true as const, data: await publicSigningKey(ctx, service.id) };
    },
  );

  app.post(
    '/keys/api/signing-key/rotate',
    {
      config: { auth: 'service', limit: 'api', permission: 'allowManageKeys', action: 'service.configure' },
      schema: {
        summary: 'Rotate the signing key',
        description:
          'Needs allowManageKeys. Replaces the Ed25519 key pair at once on every instance and answers the new public key; loaders holding the old one refuse signed answers (SIGNATURE_INVALID) until they get the new one. Audited as signingKey.rotate.',
        tags,
        response: Responses(SigningKey),
      },
    },
    async (request) => ({
      success: true as const,
      data: await rotateSigningKey(ctx, serviceOf(request), actorOf(request)),
    }),
  );
}
