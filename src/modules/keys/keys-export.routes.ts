import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { serviceOf } from '../../plugins/auth.ts';
import { ErrorEnvelope } from '../../schemas.ts';
import { exportFileName } from './keys-export.ts';
import * as schemas from './keys-list.schemas.ts';
import { filterOf } from './keys-list.service.ts';

const read = { auth: 'service', limit: 'api' } as const;
const tags = ['keys'];

export default async function keysExportRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;

  app.get(
    '/keys/api/keys/export',
    {
      config: { ...read, action: 'keys.manage' },
      schema: {
        summary: 'Export keys',
        description:
          'Every key of the service matching the list filters, as CSV or JSON (`format`), streamed as a download; the file imports back unchanged.',
        tags,
        querystring: schemas.ExportQuery,
        response: { '4xx': ErrorEnvelope, '5xx': ErrorEnvelope },
      },
    },
    async (request, reply) => {
      const service = serviceOf(request);
      const format = request.query.format ?? 'csv';
      const filename = exportFileName(service.identifier, format, ctx.clock());
      reply
        .header('content-disposition', `attachment; filename="${filename}"`)
        .type(format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8');
      // A stream, not an envelope: the response schemas above describe the failures only.
      const filter = filterOf(request.query, ctx.clock());
      return reply.send(ctx.exports.stream(service.id, filter, format) as never);
    },
  );
}
