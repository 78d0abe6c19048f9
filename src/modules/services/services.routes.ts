import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { Responses } from '../../schemas.ts';
import { accountIdOf } from '../../plugins/auth.ts';
import { actorOf } from '../audit/actor.ts';
import * as schemas from './services.schemas.ts';
import * as services from './services.service.ts';
import { listAccountServices } from './services.repository.ts';

const config = { auth: 'account', limit: 'api' } as const;
const tags = ['services'];

export default async function serviceRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;
  const params = schemas.ServiceParams;

  app.get('/services', { config, schema: { tags, response: Responses(Type.Object({ services: Type.Array(schemas.Service) })) } }, async (request) => {
    const rows = await listAccountServices(ctx.db, accountIdOf(request));
    return { success: true as const, data: { services: rows.map(services.toServiceView) } };
  });

  app.post(
    '/services',
    { config, schema: { tags, body: schemas.CreateServiceBody, response: Responses(schemas.Service, 201) } },
    async (request, reply) => {
      const row = await services.createService(ctx, accountIdOf(request), request.body, actorOf(request));
      return reply.status(201).send({ success: true as const, data: services.toServiceView(row) });
    },
  );

  app.get('/services/:id', { config, schema: { tags, params, response: Responses(schemas.Service) } }, async (request) => ({
    success: true as const,
    data: services.toServiceView(await services.getAccountService(ctx, accountIdOf(request), request.params.id)),
  }));

  app.patch(
    '/services/:id',
    { config, schema: { tags, params, body: schemas.RenameServiceBody, response: Responses(schemas.Service) } },
    async (request) => ({
      success: true as const,
      data: services.toServiceView(await services.renameService(ctx, accountIdOf(request), request.params.id, request.body.name, actorOf(request))),
    }),
  );

  app.delete('/services/:id', { config, schema: { tags, params, response: Responses(schemas.Service) } }, async (request) => ({
    success: true as const,
    data: services.toServiceView(await services.deleteService(ctx, accountIdOf(request), request.params.id, actorOf(request))),
  }));

  app.get('/services/:id/api-key', { config, schema: { tags, params, response: Responses(schemas.ApiKey) } }, async (request) => ({
    success: true as const,
    data: { apiKey: await services.revealServiceKey(ctx, accountIdOf(request), request.params.id) },
  }));

  app.post(
    '/services/:id/api-key/regenerate',
    { config, schema: { tags, params, response: Responses(schemas.ApiKey) } },
    async (request) => ({
      success: true as const,
      data: { apiKey: await services.regenerateServiceKey(ctx, accountIdOf(request), request.params.id, actorOf(request)) },
    }),
  );

  app.get('/services/:id/permissions', { config, schema: { tags, params, response: Responses(schemas.Permissions) } }, async (request) => ({
    success: true as const,
    data: services.permissionsOf(await services.getAccountService(ctx, accountIdOf(request), request.params.id)),
  }));

  app.patch(
    '/services/:id/permissions',
    { config, schema: { tags, params, body: schemas.PermissionsPatch, response: Responses(schemas.Permissions) } },
    async (request) => ({
      success: true as const,
      data: await services.updatePermissions(ctx, accountIdOf(request), request.params.id, request.body, actorOf(request)),
    }),
  );

  app.get('/services/:id/ip-allowlist', { config, schema: { tags, params, response: Responses(schemas.Allowlist) } }, async (request) => ({
    success: true as const,
    data: { entries: services.allowlistOf(await services.getAccountService(ctx, accountIdOf(request), request.params.id)) },
  }));

  app.put(
    '/services/:id/ip-allowlist',
    { config, schema: { tags, params, body: schemas.AllowlistBody, response: Responses(schemas.Allowlist) } },
    async (request) => ({
      success: true as const,
      data: { entries: await services.replaceAllowlist(ctx, accountIdOf(request), request.params.id, request.body.entries, actorOf(request)) },
    }),
  );
}
