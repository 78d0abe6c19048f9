import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { serviceOf } from '../../plugins/auth.ts';
import { ErrorEnvelope } from '../../schemas.ts';
import { exportFileName } from './keys-export.ts';
import { MAX_RUNNING_EXPORTS } from './export-workers.ts';
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
        description: `Every key of the service matching the list filters, as CSV or JSON (\`format\`), streamed as a download; the file imports back unchanged. 429 with \`Retry-After\` while ${MAX_RUNNING_EXPORTS} exports run on this server; 503 when the database has no connection free for it: try again in a moment.`,
        tags,
        querystring: schemas.ExportQuery,
        response: { '4xx': ErrorEnvelope, '5xx': ErrorEnvelope },
      },
    },
    async (request, reply) => {
      const service = serviceOf(request);
      const format = request.query.format ?? 'csv';
      const filename = exportFileName(service.identifier, format, ctx.clock());
      const filter = filterOf(request.query, ctx.clock());
      const stream = await ctx.exports.stream(service.id, filter, format);
      reply
        .header('content-disposition', `attachment; filename="${filename}"`)
        .type(format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8');
      // A stream, not an envelope: the response schemas above describe the failures only.
      return reply.send(stream as never);
    },
  );
}
