import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Page, Responses } from '../../schemas.ts';
import { accountIdOf, serviceOf } from '../../plugins/auth.ts';
import { pageRequest } from '../../lib/pagination.ts';
import { listAccountAudit, listServiceAudit } from './audit.service.ts';
import { Entry, AuditQuery } from './audit.schemas.ts';
const tags = ['audit'];

export default async function auditRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;

  app.get(
    '/keys/api/audit',
    {
      config: { auth: 'service', limit: 'api', action: 'keys.insights' },
      schema: {
        summary: 'The service’s audit log',
        description:
          'Newest first, paged; `action`, `actor` (an account id: what that member did), `from` and `to` (ISO 8601 or epoch ms, inclusive) filter. Lists service actions and the account actions on this service.',
        tags,
        querystring: AuditQuery,
        response: Responses(Page(Entry)),
      },
    },
    async (request) => ({
      success: true as const,
      data: await listServiceAudit(ctx, serviceOf(request).id, request.query, pageRequest(request.query)),
    }),
  );

  app.get(
    '/account/audit',
    {
      config: { auth: 'account', limit: 'api' },
      schema: {
        summary: 'The account’s audit log',
        description: 'Newest first, paged, with the same filters: the account’s own actions and the service actions on all its services.',
        tags,
        querystring: AuditQuery,
        response: Responses(Page(Entry)),
      },
    },
    async (request) => ({
      success: true as const,
      data: await listAccountAudit(ctx, accountIdOf(request), request.query, pageRequest(request.query)),
    }),
  );
}
