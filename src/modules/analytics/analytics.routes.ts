import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Responses } from '../../schemas.ts';
import { serviceOf } from '../../plugins/auth.ts';
import { analyticsOf, executorsOf } from './analytics.service.ts';
import { AnalyticsQuery, Analytics, Executors, ExecutorsQuery } from './analytics.schemas.ts';

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

  app.get(
    '/keys/api/analytics/executors',
    {
      config: { auth: 'service', limit: 'api', action: 'keys.insights' },
      schema: {
        summary: 'Runs by executor',
        description:
          "Per executor the runs reported (the buyer's own claim, from identifyexecutor()): executions, valid verdicts, refusals by code, the most sessions at once and the last run, over whole UTC days (default: the last 7), most executions first. At most 200 names a service and day are kept; the rest count as `other`. Counts may be up to 5 s late.",
        tags: ['analytics'],
        querystring: ExecutorsQuery,
        response: Responses(Executors),
      },
    },
    async (request) => ({ success: true as const, data: await executorsOf(ctx, serviceOf(request).id, request.query) }),
  );
}
