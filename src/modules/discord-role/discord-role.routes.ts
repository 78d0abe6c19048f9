import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { serviceOf } from '../../plugins/auth.ts';
import { Responses } from '../../schemas.ts';
import { RoleStatus } from './discord-role.schemas.ts';
import { roleStatus } from './discord-role.service.ts';

/** The Discord buyer role's status (contract §12.3); the role is set up in PUT /keys/api/settings. */
export default async function discordRoleRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;
  app.get(
    '/keys/api/discord-role',
    {
      config: { auth: 'service', limit: 'api', action: 'service.configure' },
      schema: {
        summary: 'Discord buyer role status',
        description: 'Whether the role is set up, how many users hold it, calls waiting, and the last failures in words.',
        tags: ['service'],
        response: Responses(RoleStatus),
      },
    },
    async (request) => ({ success: true as const, data: await roleStatus(ctx, serviceOf(request)) }),
  );
}
