import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { notFound } from '../../errors.ts';
import { Responses } from '../../schemas.ts';
import { serviceOf } from '../../plugins/auth.ts';
import { actorOf } from '../audit/actor.ts';
import { deliverableScript } from '../loader/loader.service.ts';
import { serviceForClient } from '../services/services.service.ts';
import { ClientCredentialsQuery, hwidFrom, ScriptIdParams } from '../validation/validation.schemas.ts';
import * as schemas from './variables.schemas.ts';
import * as variables from './variables.service.ts';

export default async function variablesRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;

  app.get(
    '/keys/api/variables',
    {
      config: { auth: 'service', limit: 'api', action: 'service.configure' },
      schema: {
        summary: "The service's variables",
        description: 'Names and text values a script reads with api.variables() (valid keys only).',
        tags: ['service'],
        response: Responses(schemas.Variables),
      },
    },
    async (request) => ({ success: true as const, data: await variables.getVariables(ctx, serviceOf(request).id) }),
  );

  app.put(
    '/keys/api/variables',
    {
      config: { auth: 'service', permission: 'allowManageKeys', limit: 'api', action: 'service.configure' },
      schema: {
        summary: "Replace the service's variables",
        description:
          'The whole set at once: at most 100, names of [A-Za-z_][A-Za-z0-9_]{0,63}, values text of at most 4096 characters. Needs allowManageKeys.',
        tags: ['service'],
        body: schemas.VariablesBody,
        response: Responses(schemas.Variables),
      },
    },
    async (request) => ({
      success: true as const,
      data: await variables.putVariables(ctx, serviceOf(request).id, request.body.variables, actorOf(request)),
    }),
  );

  app.get(
    '/keys/variables',
    {
      config: { limit: 'client' },
      schema: {
        summary: 'Variables for a key (executor call)',
        description:
          'The /keys/validate verdict for `service`, `key`, `hwid` (HWID binding included) and the variables when it is valid; `{}` otherwise.',
        tags: ['client'],
        querystring: schemas.ClientVariablesQuery,
        response: Responses(schemas.ClientVariables),
      },
    },
    async (request) => {
      const { service, key, hwid } = request.query;
      const credentials = { key: key || undefined, hwid: hwidFrom(request, hwid, ctx.config.hwidHeaders) };
      return { success: true as const, data: await variables.clientVariables(ctx, (await serviceForClient(ctx, service)).id, credentials) };
    },
  );

  // What api.variables() calls: the same, with the service named by the script id the library already holds.
  app.get(
    '/lua/variables/:scriptId',
    {
      config: { limit: 'client' },
      schema: {
        summary: 'Variables for a key, by script',
        description: "GET /keys/variables for the script's service.",
        tags: ['client'],
        params: ScriptIdParams,
        querystring: ClientCredentialsQuery,
        response: Responses(schemas.ClientVariables),
      },
    },
    async (request) => {
      const script = await deliverableScript(ctx, request.params.scriptId);
      if (!script) throw notFound('Script');
      const { key, hwid } = request.query;
      const credentials = { key: key || undefined, hwid: hwidFrom(request, hwid, ctx.config.hwidHeaders) };
      return { success: true as const, data: await variables.clientVariables(ctx, script.serviceId, credentials) };
    },
  );
}
