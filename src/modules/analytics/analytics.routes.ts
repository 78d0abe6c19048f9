import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { Responses, Strict, Time } from '../../schemas.ts';
import { serviceOf } from '../../plugins/auth.ts';
import { analyticsOf } from './analytics.service.ts';

const QueryTime = Type.String({ maxLength: 40, errorMessage: 'must be an ISO 8601 date-time or epoch milliseconds' });
const AnalyticsQuery = Strict({
  from: Type.Optional(QueryTime),
  to: Type.Optional(QueryTime),
  interval: Type.Optional(Type.Union([Type.Literal('hour'), Type.Literal('day')], { errorMessage: 'must be hour or day' })),
});
const Bucket = Type.Object({
  at: Time,
  validations: Type.Integer(),
  valid: Type.Integer(),
  refused: Type.Integer(),
  executions: Type.Integer(),
  redemptions: Type.Integer(),
  keySystemKeys: Type.Integer(),
});
const Analytics = Type.Object({
  from: Time,
  to: Time,
  interval: Type.String(),
  series: Type.Array(Bucket),
  codes: Type.Record(Type.String(), Type.Integer()),
  scripts: Type.Array(Type.Object({ scriptId: Type.String(), name: Type.String(), executions: Type.Integer() })),
});

export default async function analyticsRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;

  app.get(
    '/keys/api/analytics',
    {
      config: { auth: 'service', limit: 'api' },
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
