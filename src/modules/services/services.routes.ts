import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { IdParams, Responses } from '../../schemas.ts';
import { accountIdOf } from '../../plugins/auth.ts';
import { actorOf } from '../audit/actor.ts';
import * as schemas from './services.schemas.ts';
import * as services from './services.service.ts';

const config = { auth: 'account', limit: 'api' } as const;
const tags = ['services'];

export default async function serviceRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;
  const params = IdParams;

  app.get(
    '/services',
    {
      config,
      schema: {
        summary: 'List your services',
        description:
          'Every service the calling account (account key or signed-in session) owns or is a member of, each with its `role` (owner, manager, support, reseller).',
        tags,
        response: Responses(schemas.ServiceList),
      },
    },
    async (request) => {
      return { success: true as const, data: { services: await services.listServicesWithRole(ctx, accountIdOf(request)) } };
    },
  );

  app.post(
    '/services',
    {
      config,
      schema: {
        summary: 'Create a service',
        description:
          '`identifier` (optional, unique on this server) names the service in client URLs; the service key is revealed by GET /services/{id}/api-key.',
        tags,
        body: schemas.CreateServiceBody,
        response: Responses(schemas.Service, 201),
      },
    },
    async (request, reply) => {
      const row = await services.createService(ctx, accountIdOf(request), request.body, actorOf(request));
      return reply.status(201).send({ success: true as const, data: services.toServiceView(row) });
    },
  );

  app.get(
    '/services/:id',
    {
      config,
      schema: {
        summary: 'Get one service',
        description:
          "`id` is the service id or identifier; `role` is the caller's role on it. 404 for a service the account neither owns nor is a member of.",
        tags,
        params,
        response: Responses(schemas.ServiceWithRole),
      },
    },
    async (request) => {
      const access = await services.getServiceAccess(ctx, accountIdOf(request), request.params.id, 'keys.read');
      return { success: true as const, data: services.withRole(access.service, access.role) };
    },
  );

  app.patch(
    '/services/:id',
    {
      config,
      schema: {
        summary: 'Rename a service',
        description: 'Changes `name` and/or `identifier`; 409 when the identifier is taken.',
        tags,
        params,
        body: schemas.RenameServiceBody,
        response: Responses(schemas.Service),
      },
    },
    async (request) => ({
      success: true as const,
      data: services.toServiceView(
        await services.renameService(ctx, accountIdOf(request), request.params.id, request.body.name, actorOf(request)),
      ),
    }),
  );

  app.delete(
    '/services/:id',
    {
      config,
      schema: {
        summary: 'Delete a service',
        description: 'Deletes the service and what belongs to it. Cannot be undone.',
        tags,
        params,
        response: Responses(schemas.Service),
      },
    },
    async (request) => ({
      success: true as const,
      data: services.toServiceView(await services.deleteService(ctx, accountIdOf(request), request.params.id, actorOf(request))),
    }),
  );

  app.get(
    '/services/:id/api-key',
    {
      config,
      schema: {
        summary: 'Reveal the service key',
        description: 'The only answer that shows the service key in full; it is stored encrypted.',
        tags,
        params,
        response: Responses(schemas.ApiKey),
      },
    },
    async (request) => ({
      success: true as const,
      data: { apiKey: await services.revealServiceKey(ctx, accountIdOf(request), request.params.id) },
    }),
  );

  app.post(
    '/services/:id/api-key/regenerate',
    {
      config,
      schema: {
        summary: 'Regenerate the service key',
        description: 'The old key stops working at once, on every instance.',
        tags,
        params,
        response: Responses(schemas.ApiKey),
      },
    },
    async (request) => ({
      success: true as const,
      data: { apiKey: await services.regenerateServiceKey(ctx, accountIdOf(request), request.params.id, actorOf(request)) },
    }),
  );

  app.get(
    '/services/:id/permissions',
    {
      config,
      schema: {
        summary: "Get the service key's permissions",
        description: 'The flags that gate service-key routes (allowManageKeys, allowVss, allowUrlShortener, …).',
        tags,
        params,
        response: Responses(schemas.Permissions),
      },
    },
    async (request) => ({
      success: true as const,
      data: services.permissionsOf(await services.getAccountService(ctx, accountIdOf(request), request.params.id)),
    }),
  );

  app.patch(
    '/services/:id/permissions',
    {
      config,
      schema: {
        summary: "Change the service key's permissions",
        description: 'Flags not sent keep their value.',
        tags,
        params,
        body: schemas.PermissionsPatch,
        response: Responses(schemas.Permissions),
      },
    },
    async (request) => ({
      success: true as const,
      data: await services.updatePermissions(ctx, accountIdOf(request), request.params.id, request.body, actorOf(request)),
    }),
  );

  app.get(
    '/services/:id/ip-allowlist',
    {
      config,
      schema: {
        summary: "Get the service key's IP allowlist",
        description: 'Empty means any address may use the service key.',
        tags,
        params,
        response: Responses(schemas.Allowlist),
      },
    },
    async (request) => ({
      success: true as const,
      data: { entries: services.allowlistOf(await services.getAccountService(ctx, accountIdOf(request), request.params.id)) },
    }),
  );

  app.put(
    '/services/:id/ip-allowlist',
    {
      config,
      schema: {
        summary: "Replace the service key's IP allowlist",
        description: 'Addresses or CIDR ranges; a service key used from elsewhere is answered 403 IP_NOT_ALLOWED.',
        tags,
        params,
        body: schemas.AllowlistBody,
        response: Responses(schemas.Allowlist),
      },
    },
    async (request) => ({
      success: true as const,
      data: {
        entries: await services.replaceAllowlist(ctx, accountIdOf(request), request.params.id, request.body.entries, actorOf(request)),
      },
    }),
  );
}
