import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { loaderSource } from '../../lua/loader.ts';
import { luaError } from '../../lua/quote.ts';
import { ClientCredentialsQuery, hwidFrom, ScriptIdParams } from '../validation/validation.schemas.ts';
import { deliver, deliverableScript, type Delivery } from './loader.service.ts';

const tags = ['client'];
const LUA = 'text/plain; charset=utf-8';

/** Whether the client already holds this code: If-None-Match lists ETags, or is `*`. */
function alreadyHeld(request: FastifyRequest, etag: string): boolean {
  const header = request.headers['if-none-match'];
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '').replace(/"/g, '').replace(/-gz$/, '') === etag);
}

const acceptsGzip = (request: FastifyRequest) => /\bgzip\b/i.test(request.headers['accept-encoding'] ?? '');

async function sendCode(request: FastifyRequest, reply: FastifyReply, code: Extract<Delivery, { kind: 'code' }>) {
  // Stored copies must be checked with us each time (the key may have been revoked); the ETag makes
  // that check cheap. Each encoding has its own tag, as HTTP asks of strong validators.
  reply.header('cache-control', 'private, no-cache').header('vary', 'accept-encoding');
  reply.header('x-script-version', String(code.version));
  if (code.sha256) reply.header('x-script-sha256', code.sha256);
  const gzip = code.cached !== null && acceptsGzip(request);
  reply.header('etag', `"${code.etag}${gzip ? '-gz' : ''}"`);
  if (alreadyHeld(request, code.etag)) return reply.status(304).send();
  if (!code.cached) return reply.header('content-length', String(code.size)).send(code.stream());
  if (!gzip) return reply.header('content-length', String(code.size)).send(code.cached.body);
  const body = await request.server.ctx.delivery.gzipped(code.cached);
  return reply.header('content-encoding', 'gzip').header('content-length', String(body.length)).send(body);
}

export default async function loaderRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;
  const config = { limit: 'client' } as const;

  app.get(
    '/vss/loader/:scriptId',
    {
      config,
      schema: {
        summary: 'Loader for a script',
        description:
          'Lua that reads `script_key`, takes the executor HWID and fetches the script from /vss/fetch. 404 (as Lua) for an unknown script.',
        tags,
        params: ScriptIdParams,
      },
    },
    async (request, reply) => {
      const script = await deliverableScript(ctx, request.params.scriptId);
      reply.type(LUA).header('cache-control', 'no-store');
      if (!script) return reply.status(404).send(luaError('SCRIPT_NOT_FOUND', 'No script with this id'));
      return reply.send(loaderSource(ctx.config.baseUrl, script.id, script.serviceId));
    },
  );

  app.get(
    '/vss/fetch/:scriptId',
    {
      config,
      schema: {
        summary: "Fetch a script's code",
        description:
          'The stored (obfuscated) code for a valid key and HWID, counting one execution; otherwise Lua that raises the refusal code. ETag/304 and gzip supported.',
        tags,
        params: ScriptIdParams,
        querystring: ClientCredentialsQuery,
      },
    },
    async (request, reply) => {
      const { key, hwid } = request.query;
      const result = await deliver(ctx, request.params.scriptId, {
        key: key || undefined,
        hwid: hwidFrom(request, hwid, ctx.config.hwidHeaders),
      });
      reply.type(LUA);
      if (result.kind === 'refused') return reply.header('cache-control', 'no-store').status(result.status).send(result.lua);
      return sendCode(request, reply, result);
    },
  );
}
