import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { NullableString, Page, Paging, Responses, Strict, Time } from '../../schemas.ts';
import { accountIdOf, serviceOf } from '../../plugins/auth.ts';
import { pageRequest } from '../../lib/pagination.ts';
import { AUDIT_ACTIONS } from './audit.repository.ts';
import { listAccountAudit, listServiceAudit } from './audit.service.ts';

const Entry = Type.Object({
  id: Type.String(),
  at: Time,
  action: Type.String(),
  actor: Type.Object({ kind: Type.String(), accountId: NullableString }),
  ip: NullableString,
  target: NullableString,
  details: Type.Record(Type.String(), Type.Unknown()),
});
const QueryTime = Type.String({ maxLength: 40, errorMessage: 'must be an ISO 8601 date-time or epoch milliseconds' });
const AuditQuery = Strict({
  ...Paging,
  action: Type.Optional(
    Type.Union(
      AUDIT_ACTIONS.map((a) => Type.Literal(a)),
      { errorMessage: `must be one of ${AUDIT_ACTIONS.join(', ')}` },
    ),
  ),
  from: Type.Optional(QueryTime),
  to: Type.Optional(QueryTime),
});
const tags = ['audit'];

export default async function auditRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;

  app.get(
    '/keys/api/audit',
    {
      config: { auth: 'service', limit: 'api' },
      schema: {
        summary: 'The service’s audit log',
        description:
          'Newest first, paged; `action`, `from` and `to` (ISO 8601 or epoch ms, inclusive) filter. Lists service actions and the account actions on this service.',
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
