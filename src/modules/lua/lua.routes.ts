import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { notFound } from '../../errors.ts';
import { librarySource } from '../../lua/library.ts';
import { Responses } from '../../schemas.ts';
import { keyLinkOf } from '../key-system/key-system.service.ts';
import { serviceForClient } from '../services/services.service.ts';
import { deliverableScript } from '../loader/loader.service.ts';
import { checkForScript } from '../loader/loader.service.ts';
import { hwidFrom, ScriptIdParams } from '../validation/validation.schemas.ts';
import { CheckAnswer, CheckQuery, KeySystemLink } from './lua.schemas.ts';
import { executorOf } from '../../lib/executor.ts';
import { isV2 } from '../signing/signing.schemas.ts';
import { signVerdict } from '../signing/signing.service.ts';

const tags = ['client'];

export default async function luaRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;
  const config = { limit: 'client' } as const;

  app.get(
    '/lua/library.lua',
    {
      config,
      schema: {
        summary: 'Keyward Lua library',
        description: 'The `api` library scripts load to check keys (api.check_key, api.get_key_link).',
        tags,
      },
    },
    async (_request, reply) =>
      reply.type('text/plain; charset=utf-8').header('cache-control', 'public, max-age=300').send(librarySource(ctx.config.baseUrl)),
  );

  // What api.get_key_link calls: the get-key page of the script's service (null while its key system is off).
  app.get(
    '/lua/key-link/:scriptId',
    {
      config,
      schema: {
        summary: 'Get-key link of a script',
        description: "The key-system page of the script's service, or null while its key system is off.",
        tags,
        params: ScriptIdParams,
        response: Responses(KeySystemLink),
      },
    },
    async (request) => {
      const script = await deliverableScript(ctx, request.params.scriptId);
      if (!script) throw notFound('Script');
      return { success: true as const, data: { link: await keyLinkOf(ctx, await serviceForClient(ctx, script.serviceId)) } };
    },
  );

  // What api.check_key calls: /keys/validate's verdict for the script's service, named by the script id.
  app.get(
    '/lua/check/:scriptId',
    {
      config,
      schema: {
        summary: 'Check a key for a script',
        description: "The /keys/validate verdict for the script's service, named by the script id.",
        tags,
        params: ScriptIdParams,
        querystring: CheckQuery,
        response: Responses(CheckAnswer),
      },
    },
    async (request) => {
      const { key, hwid, nonce, sig, executor } = request.query;
      const credentials = {
        key: key || undefined,
        hwid: hwidFrom(request, hwid, ctx.config.hwidHeaders),
        executor: executorOf(executor),
      };
      const verdict = await checkForScript(ctx, request.params.scriptId, credentials);
      if (!verdict) throw notFound('Script');
      if (nonce === undefined) return { success: true as const, data: verdict };
      const script = await deliverableScript(ctx, request.params.scriptId);
      if (!script) throw notFound('Script');
      // v2 (contract §22) signs the HWID as the query sent it: one read from a fingerprint header is not covered.
      const how = { nonce, version: isV2(sig) ? (2 as const) : (1 as const), sentHwid: hwid ?? '' };
      const signature = await signVerdict(ctx, script.serviceId, { ...credentials, ...how }, verdict);
      return { success: true as const, data: { ...verdict, ...signature, serviceId: script.serviceId, hwid: credentials.hwid ?? '' } };
    },
  );
}
