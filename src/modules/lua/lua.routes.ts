import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { notFound } from '../../errors.ts';
import { librarySource } from '../../lua/library.ts';
import { Responses } from '../../schemas.ts';
import { checkForScript } from '../loader/loader.service.ts';
import { ClientCredentialsQuery, hwidFrom, ScriptIdParams, VerdictSchema } from '../validation/validation.routes.ts';

const tags = ['client'];

export default async function luaRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;
  const config = { limit: 'client' } as const;

  app.get('/lua/library.lua', { config, schema: { tags } }, async (_request, reply) =>
    reply.type('text/plain; charset=utf-8').header('cache-control', 'public, max-age=300').send(librarySource(ctx.config.baseUrl)),
  );

  // What api.check_key calls: /keys/validate's verdict for the script's service, named by the script id.
  app.get(
    '/lua/check/:scriptId',
    { config, schema: { tags, params: ScriptIdParams, querystring: ClientCredentialsQuery, response: Responses(VerdictSchema) } },
    async (request) => {
      const { key, hwid } = request.query;
      const verdict = await checkForScript(ctx, request.params.scriptId, {
        key: key || undefined,
        hwid: hwidFrom(request, hwid, ctx.config.hwidHeaders),
      });
      if (!verdict) throw notFound('Script');
      return { success: true as const, data: verdict };
    },
  );
}
