import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { pageRequest } from '../../lib/pagination.ts';
import { serviceOf } from '../../plugins/auth.ts';
import { ErrorEnvelope, Envelope, Page, Responses } from '../../schemas.ts';
import { actorOf } from '../audit/actor.ts';
import * as schemas from './keys-data.schemas.ts';
import * as data from './keys-data.service.ts';
import { exportFileName } from './keys-export.ts';

const read = { auth: 'service', limit: 'api' } as const;
const manage = { auth: 'service', limit: 'api', permission: 'allowManageKeys' } as const;
const tags = ['keys'];

/** Contract §7.4: an import body may be up to 16 MB, far above the 1 MB every other body gets. */
export const IMPORT_BODY_LIMIT_BYTES = 16 * 1024 * 1024;

const ImportErrorEnvelope = Type.Object({
  ...ErrorEnvelope.properties,
  errors: Type.Optional(Type.Array(Type.Object({ index: Type.Integer(), field: Type.String(), error: Type.String() }))),
  duplicates: Type.Optional(Type.Array(Type.String())),
});

export default async function keysDataRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;

  app.get(
    '/keys/api/keys',
    {
      config: read,
      schema: {
        summary: 'List keys',
        description:
          "One page of the service's active and generated keys, with filters `type`, `status`, `premium`, `bound`, `expired`, `search` (key, note, HWID, chat id) and `sort`/`order`.",
        tags,
        querystring: schemas.ListQuery,
        response: Responses(Page(schemas.ListedKey)),
      },
    },
    async (request) => ({
      success: true as const,
      data: await data.listKeys(ctx, serviceOf(request).id, request.query, pageRequest(request.query)),
    }),
  );

  app.post(
    '/keys/api/keys/bulk',
    {
      config: manage,
      schema: {
        summary: 'Act on many keys',
        description:
          '`action` delete, ban, pause, activate, resetHwid, extend (`days`) or setNote (`note`) on up to 1,000 distinct keys in one transaction; keys the service does not have are counted as notFound and never touched. Needs allowManageKeys.',
        tags,
        body: schemas.BulkBody,
        response: Responses(schemas.BulkResult),
      },
    },
    async (request) => ({ success: true as const, data: await data.bulkKeys(ctx, actorOf(request), serviceOf(request), request.body) }),
  );

  app.get(
    '/keys/api/keys/export',
    {
      config: read,
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
      const filter = data.filterOf(request.query, ctx.clock());
      return reply.send(ctx.exports.stream(service.id, filter, format) as never);
    },
  );

  app.post(
    '/keys/api/keys/import',
    {
      config: manage,
      bodyLimit: IMPORT_BODY_LIMIT_BYTES,
      schema: {
        summary: 'Import keys',
        description:
          'Keyward CSV or JSON (an export of any Keyward), or Luarmor user records; all or nothing. Keys that already exist anywhere on the server: 409 listing them, or skipped with `onDuplicate: skip`. Invalid records: 400 listing each with its index and field. At most 10,000 records and 16 MB (413). Needs allowManageKeys.',
        tags,
        body: schemas.ImportBody,
        response: { 201: Envelope(schemas.ImportResult), '4xx': ImportErrorEnvelope, '5xx': ErrorEnvelope },
      },
    },
    async (request, reply) => {
      const result = await data.importKeys(ctx, actorOf(request), serviceOf(request), request.body);
      return reply.status(201).send({ success: true as const, data: result });
    },
  );
}
