import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Readable } from 'node:stream';
import { Type } from 'typebox';
import { loaderSource } from '../../lua/loader.ts';
import { luaError } from '../../lua/quote.ts';
import { ClientCredentialsQuery, hwidFrom, ScriptIdParams } from '../validation/validation.schemas.ts';
import { deliver, deliverableScript, type Delivery } from './loader.service.ts';
import { executorOf } from '../../lib/executor.ts';

const tags = ['client'];
// globals=1: set Luarmor's LRM_ globals before the code runs (contract §16.3).
const FetchQuery = Type.Object(
  { ...ClientCredentialsQuery.properties, globals: Type.Optional(Type.String({ maxLength: 8 })) },
  { additionalProperties: true },
);
const LUA = 'text/plain; charset=utf-8';

/** Whether the client already holds this code: If-None-Match lists ETags, or is `*`. */
function alreadyHeld(request: FastifyRequest, etag: string): boolean {
  const header = request.headers['if-none-match'];
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '').replace(/"/g, '').replace(/-gz$/, '') === etag);
}

const acceptsGzip = (request: FastifyRequest) => /\bgzip\b/i.test(request.headers['accept-encoding'] ?? '');

/**
 * The code behind the LRM_ globals of this run (contract §16.3): never cached or compressed, as it names the key's own
 * values. X-Script-SHA256 stays the hash of the stored code.
 */
function sendWithGlobals(reply: FastifyReply, code: Extract<Delivery, { kind: 'code' }> & { globals: string }) {
  reply.header('cache-control', 'no-store').header('x-script-version', String(code.version));
  if (code.sha256) reply.header('x-script-sha256', code.sha256);
  const prefix = Buffer.from(code.globals, 'utf8');
  reply.header('content-length', String(prefix.length + code.size));
  if (code.cached) return reply.send(Buffer.concat([prefix, code.cached.body]));
  const body = code.stream();
  return reply.send(
    Readable.from(
      (async function* () {
        yield prefix;
        yield* body;
      })(),
      { objectMode: false },
    ),
  );
}

async function sendCode(request: FastifyRequest, reply: FastifyReply, code: Extract<Delivery, { kind: 'code' }>) {
  if (code.globals !== undefined) return sendWithGlobals(reply, { ...code, globals: code.globals });
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
          'The stored (obfuscated) code for a valid key and HWID (anyone, for a free-for-all script), counting one execution; otherwise Lua that raises the refusal code. ETag/304 and gzip supported. With globals=1 the code is preceded by Lua that sets the LRM_ globals (never cached).',
        tags,
        params: ScriptIdParams,
        querystring: FetchQuery,
      },
    },
    async (request, reply) => {
      const { key, hwid, globals, executor } = request.query;
      const result = await deliver(
        ctx,
        request.params.scriptId,
        { key: key || undefined, hwid: hwidFrom(request, hwid, ctx.config.hwidHeaders), executor: executorOf(executor) },
        { globals: globals === '1' },
      );
      reply.type(LUA);
      if (result.kind === 'refused') return reply.header('cache-control', 'no-store').status(result.status).send(result.lua);
      return sendCode(request, reply, result);
    },
  );
}
