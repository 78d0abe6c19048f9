import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Responses } from '../../schemas.ts';
import { serviceOf } from '../../plugins/auth.ts';
import { analyticsOf } from './analytics.service.ts';
import { AnalyticsQuery, Analytics } from './analytics.schemas.ts';

export default async function analyticsRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;

  app.get(
    '/keys/api/analytics',
    {
      config: { auth: 'service', limit: 'api', action: 'keys.insights' },
      schema: {
        summary: 'Validations, executions and redemptions over time',
        description:
          'One bucket per aligned UTC hour or day (default: the last 7 days by day), zeros included, at most 1,000; verdicts by code and executions by script over the range. Counts may be up to 5 s late.',
        tags: ['analytics'],
        querystring: AnalyticsQuery,
        response: Responses(Analytics),
      },
    },
    async (request) => ({ success: true as const, data: await analyticsOf(ctx, serviceOf(request).id, request.query) }),
  );
}
