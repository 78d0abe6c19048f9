import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Readable } from 'node:stream';
import { Type, type Static } from 'typebox';
import type { AppContext } from '../../context.ts';
import { RawAnswer, sendRaw } from '../../plugins/hot-lane.ts';
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
function alreadyHeld(headers: IncomingHttpHeaders, etag: string): boolean {
  const header = headers['if-none-match'];
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '').replace(/"/g, '').replace(/-gz$/, '') === etag);
}

const acceptsGzip = (headers: IncomingHttpHeaders) => /\bgzip\b/i.test(headers['accept-encoding'] ?? '');

type Code = Extract<Delivery, { kind: 'code' }>;

/** The version headers of contract §13.2. */
function versionHeaders(code: Code, headers: Record<string, string>) {
  headers['x-script-version'] = String(code.version);
  if (code.sha256) headers['x-script-sha256'] = code.sha256;
  return headers;
}

/**
 * The code behind the LRM_ globals of this run (contract §16.3): never cached or compressed, as it names the key's own
 * values. X-Script-SHA256 stays the hash of the stored code.
 */
function withGlobals(code: Code, globals: string): RawAnswer {
  const prefix = Buffer.from(globals, 'utf8');
  const headers = versionHeaders(code, { 'content-type': LUA, 'cache-control': 'no-store' });
  headers['content-length'] = String(prefix.length + code.size);
  if (code.cached) return new RawAnswer(200, headers, Buffer.concat([prefix, code.cached.body]));
  const body = code.stream();
  const joined = Readable.from(
    (async function* () {
      yield prefix;
      yield* body;
    })(),
    { objectMode: false },
  );
  return new RawAnswer(200, headers, joined);
}

async function codeAnswer(ctx: AppContext, requestHeaders: IncomingHttpHeaders, code: Code): Promise<RawAnswer> {
  if (code.globals !== undefined) return withGlobals(code, code.globals);
  // Stored copies must be checked with us each time (the key may have been revoked); the ETag makes
  // that check cheap. Each encoding has its own tag, as HTTP asks of strong validators.
  const headers = versionHeaders(code, { 'content-type': LUA, 'cache-control': 'private, no-cache', vary: 'accept-encoding' });
  const gzip = code.cached !== null && acceptsGzip(requestHeaders);
  headers.etag = `"${code.etag}${gzip ? '-gz' : ''}"`;
  if (alreadyHeld(requestHeaders, code.etag)) return new RawAnswer(304, headers, null);
  headers['content-length'] = String(code.size);
  if (!code.cached) return new RawAnswer(200, headers, code.stream());
  if (!gzip) return new RawAnswer(200, headers, code.cached.body);
  const body = await ctx.delivery.gzipped(code.cached);
  headers['content-encoding'] = 'gzip';
  headers['content-length'] = String(body.length);
  return new RawAnswer(200, headers, body);
}

/** The fetch's whole answer, the same whether the hot lane or Fastify's route sends it. */
async function fetchAnswer(ctx: AppContext, scriptId: string, query: Static<typeof FetchQuery>, headers: IncomingHttpHeaders) {
  const { key, hwid, globals, executor } = query;
  const result = await deliver(
    ctx,
    scriptId,
    { key: key || undefined, hwid: hwidFrom({ headers }, hwid, ctx.config.hwidHeaders), executor: executorOf(executor) },
    { globals: globals === '1' },
  );
  if (result.kind === 'refused') return new RawAnswer(result.status, { 'content-type': LUA, 'cache-control': 'no-store' }, result.lua);
  return codeAnswer(ctx, headers, result);
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

  const fetchSchema = { params: ScriptIdParams, querystring: FetchQuery };
  // Every script run fetches its code: the hot lane answers the GET when it can (plugins/hot-lane.ts).
  app.hotLane.add<Static<typeof ScriptIdParams>, Static<typeof FetchQuery>>({
    method: 'GET',
    url: `${app.prefix}/vss/fetch/:scriptId`,
    ...fetchSchema,
    response: {},
    handle: (request) => fetchAnswer(ctx, request.params.scriptId, request.query, request.headers),
  });
  app.get(
    '/vss/fetch/:scriptId',
    {
      config,
      schema: {
        summary: "Fetch a script's code",
        description:
          'The stored (obfuscated) code for a valid key and HWID (anyone, for a free-for-all script), counting one execution; otherwise Lua that raises the refusal code. ETag/304 and gzip supported. With globals=1 the code is preceded by Lua that sets the LRM_ globals (never cached).',
        tags,
        ...fetchSchema,
      },
    },
    async (request, reply) => sendRaw(reply, await fetchAnswer(ctx, request.params.scriptId, request.query, request.headers)),
  );
}
