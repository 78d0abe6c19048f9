import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Deleted, Page, Responses } from '../../schemas.ts';
import { serviceOf } from '../../plugins/auth.ts';
import { actorOf } from '../audit/actor.ts';
import { pageRequest } from '../../lib/pagination.ts';
import { invalid } from '../../errors.ts';
import { installScriptBodyParser, uploadedCode } from './body-parser.ts';
import * as schemas from './scripts.schemas.ts';
import * as scripts from './scripts.service.ts';

const tags = ['scripts'];

function codeOf(request: FastifyRequest) {
  const code = uploadedCode(request);
  if (!code) throw invalid('code', 'code must be a string');
  return code;
}

export default async function scriptRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;

  const vss = { auth: 'service', permission: 'allowVss', limit: 'api' } as const;

  // Upload and update take up to 40 MB of code through a streaming parser of their own.
  await app.register(async (uploads) => {
    const up = uploads.withTypeProvider<TypeBoxTypeProvider>();
    installScriptBodyParser(uploads);

    up.post(
      '/vss/api/scripts',
      {
        config: { ...vss, action: 'service.configure' },
        schema: {
          summary: 'Upload a script',
          description:
            'Name, code (up to 40 MB) and obfuscation type; NONE is ready at once, others are obfuscated in the background (status processing, then ready or failed with a reason). Needs allowVss.',
          tags,
          body: schemas.CreateBody,
          response: Responses(schemas.Script, 201),
        },
      },
      async (request, reply) => {
        const { name, obfuscationType, visible, enabled, disabledMessage, ffa, silent, heartbeat, executors } = request.body;
        const data = await scripts.createScript(
          ctx,
          serviceOf(request).id,
          { name, obfuscationType, visible, enabled, disabledMessage, ffa, silent, heartbeat, executors, code: codeOf(request) },
          actorOf(request),
        );
        return reply.status(201).send({ success: true as const, data });
      },
    );

    up.put(
      '/vss/api/scripts/:idOrSlug',
      {
        config: { ...vss, action: 'service.configure' },
        schema: {
          summary: 'Update a script',
          description:
            'By id or name: rename, change visibility, or send new code (up to 40 MB) or a new obfuscation type, which queues obfuscation again (status processing). Needs allowVss.',
          tags,
          params: schemas.ScriptParams,
          body: schemas.UpdateBody,
          response: Responses(schemas.Script),
        },
      },
      async (request) => {
        const { name, obfuscationType, visible, enabled, disabledMessage, ffa, silent, heartbeat, executors } = request.body;
        const code = request.body.code === undefined ? undefined : codeOf(request);
        return {
          success: true as const,
          data: await scripts.updateScript(
            ctx,
            serviceOf(request).id,
            request.params.idOrSlug,
            { name, obfuscationType, visible, enabled, disabledMessage, ffa, silent, heartbeat, executors, code },
            actorOf(request),
          ),
        };
      },
    );
  });

  app.get(
    '/vss/api/scripts',
    {
      config: { ...vss, action: 'service.configure' },
      schema: {
        summary: 'List scripts',
        description: 'Paged, newest first, `search` on the name; code is never included.',
        tags,
        querystring: schemas.ListQuery,
        response: Responses(Page(schemas.Script)),
      },
    },
    async (request) => ({
      success: true as const,
      data: await scripts.listScripts(ctx, serviceOf(request).id, pageRequest(request.query), request.query.search),
    }),
  );

  app.get(
    '/vss/api/scripts/:idOrSlug/loadstring',
    {
      config: { ...vss, action: 'service.configure' },
      schema: {
        summary: "A script's loadstring",
        description: 'The one line buyers paste into their executor: it loads /vss/loader/<id>.',
        tags,
        params: schemas.ScriptParams,
        response: Responses(schemas.Loadstring),
      },
    },
    async (request) => ({
      success: true as const,
      data: await scripts.scriptLoadstring(ctx, serviceOf(request).id, request.params.idOrSlug),
    }),
  );

  app.get(
    '/vss/api/scripts/:idOrSlug/versions',
    {
      config: { ...vss, action: 'service.configure' },
      schema: {
        summary: "A script's versions",
        description:
          'The last 20 versions of the code (every upload and every change of code keeps one), newest first, with their SHA-256, size and which one is served now. Needs allowVss.',
        tags,
        params: schemas.ScriptParams,
        response: Responses(schemas.Versions),
      },
    },
    async (request) => ({
      success: true as const,
      data: await scripts.listVersions(ctx, serviceOf(request).id, request.params.idOrSlug),
    }),
  );

  app.post(
    '/vss/api/scripts/:idOrSlug/versions/:version/restore',
    {
      config: { ...vss, action: 'service.configure' },
      schema: {
        summary: 'Restore a version',
        description:
          'Makes a kept version the code every fetch serves, at once on every instance (the ETag and X-Script-Version follow). An obfuscated script is obfuscated again from that version. 404 for a version that is not kept. Needs allowVss.',
        tags,
        params: schemas.VersionParams,
        response: Responses(schemas.Script),
      },
    },
    async (request) => ({
      success: true as const,
      data: await scripts.restoreVersion(
        ctx,
        serviceOf(request).id,
        request.params.idOrSlug,
        Number(request.params.version),
        actorOf(request),
      ),
    }),
  );

  app.delete(
    '/vss/api/scripts/:idOrSlug',
    {
      config: { ...vss, action: 'service.configure' },
      schema: {
        summary: 'Delete a script',
        description: 'By id or name; its code goes with it. Needs allowVss.',
        tags,
        params: schemas.ScriptParams,
        response: Responses(Deleted),
      },
    },
    async (request) => {
      await scripts.deleteScript(ctx, serviceOf(request).id, request.params.idOrSlug, actorOf(request));
      return { success: true as const, data: { deleted: 1 } };
    },
  );

  // Never gated by a flag: a GET outside /vss/api (contract §2).
  app.get(
    '/keys/api/scripts',
    {
      config: { auth: 'service', limit: 'api', action: 'keys.read' },
      schema: {
        summary: 'Visible scripts with loadstrings',
        description: "The service's scripts marked visible, each with the loadstring to give buyers (what the chat /script command shows).",
        tags,
        response: Responses(schemas.VisibleScripts),
      },
    },
    async (request) => ({ success: true as const, data: { scripts: await scripts.visibleLoadstrings(ctx, serviceOf(request).id) } }),
  );
}
