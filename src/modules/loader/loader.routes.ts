import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { loaderSource } from '../../lua/loader.ts';
import { luaError } from '../../lua/quote.ts';
import { ClientCredentialsQuery, hwidFrom, ScriptIdParams } from '../validation/validation.routes.ts';
import { deliver, deliverableScript } from './loader.service.ts';

const tags = ['client'];
const LUA = 'text/plain; charset=utf-8';

export default async function loaderRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;
  const config = { limit: 'client' } as const;

  app.get('/vss/loader/:scriptId', { config, schema: { tags, params: ScriptIdParams } }, async (request, reply) => {
    const script = await deliverableScript(ctx, request.params.scriptId);
    reply.type(LUA).header('cache-control', 'no-store');
    if (!script) return reply.status(404).send(luaError('SCRIPT_NOT_FOUND', 'No script with this id'));
    return reply.send(loaderSource(ctx.config.baseUrl, script.id));
  });

  app.get('/vss/fetch/:scriptId', { config, schema: { tags, params: ScriptIdParams, querystring: ClientCredentialsQuery } }, async (request, reply) => {
    const { key, hwid } = request.query;
    const result = await deliver(ctx, request.params.scriptId, { key: key || undefined, hwid: hwidFrom(request, hwid, ctx.config.hwidHeaders) });
    reply.type(LUA).header('cache-control', 'no-store');
    if (result.kind === 'refused') return reply.status(result.status).send(result.lua);
    return reply.header('content-length', String(result.size)).send(result.body);
  });
}
