// Luarmor's script routes at {base_url}/luarmor (contract §16.2, §16.3): upload and update with ffa, silent and
// heartbeat, through the same scripts service as Keyward's own routes. Registered by luarmor.routes.ts, inside its
// envelope and input rules.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { serviceOf } from '../../plugins/auth.ts';
import { actorOf } from '../audit/actor.ts';
import { buyerSnippet, CODE_LIMIT_BYTES, createScript, findScript, loadstringFor, updateScript } from '../scripts/scripts.service.ts';
import * as schemas from './luarmor.schemas.ts';
import { codeOf, scriptNameOf } from './luarmor.translate.ts';

const tags = ['luarmor'];
const vss = { auth: 'luarmor', limit: 'api', permission: 'allowVss', action: 'service.configure' } as const;
const ok = (message: string, fields: Record<string, unknown> = {}) => ({ success: true, message, ...fields });

export default async function luarmorScriptRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;

  // Scripts take the whole code in the body, as Keyward's upload does (40 MB; JSON escapes may double it on the wire).
  const bodyLimit = CODE_LIMIT_BYTES * 2;
  app.post(
    '/v3/projects/:project_id/scripts',
    {
      config: vss,
      bodyLimit,
      schema: {
        summary: 'Luarmor: create a script',
        description:
          "Uploads `script` under `name` with ffa, silent and heartbeat (contract §16.3, §18); answers the buyer's loader snippet. Needs allowVss.",
        tags,
        params: schemas.ProjectParams,
        body: schemas.CreateScriptBody,
      },
    },
    async (request) => {
      const { name, script, ffa, silent, heartbeat } = request.body;
      const view = await createScript(
        ctx,
        serviceOf(request).id,
        { name: scriptNameOf(name), code: codeOf(script), ffa, silent, heartbeat },
        actorOf(request),
      );
      return ok('Script created!', {
        script_id: view.id,
        script_name: view.name,
        loader_script: buyerSnippet(loadstringFor(ctx, view.id)),
        ffa: ffa === true,
        silent: silent === true,
        heartbeat: view.heartbeat,
      });
    },
  );

  app.put(
    '/v3/projects/:project_id/scripts/:script_id',
    {
      config: vss,
      bodyLimit,
      schema: {
        summary: 'Luarmor: update a script',
        description: 'New code (a new version, live at once) and the ffa/silent/heartbeat options of the script. Needs allowVss.',
        tags,
        params: schemas.ScriptParams,
        body: schemas.UpdateScriptBody,
      },
    },
    async (request) => {
      const { script, ffa, silent, heartbeat } = request.body;
      const serviceId = serviceOf(request).id;
      const view = await updateScript(
        ctx,
        serviceId,
        request.params.script_id,
        { code: script === undefined ? undefined : codeOf(script), ffa, silent, heartbeat },
        actorOf(request),
      );
      const row = await findScript(ctx.db, view.id);
      return ok('Script updated!', { script_version: String(row?.currentVersion ?? 1) });
    },
  );
}
