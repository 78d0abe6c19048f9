import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { serviceOf } from '../../plugins/auth.ts';
import { ErrorEnvelope, Envelope } from '../../schemas.ts';
import { actorOf } from '../audit/actor.ts';
import * as schemas from './keys-import.schemas.ts';
import { importKeys } from './keys-import.service.ts';
import { previewImport } from './keys-import-preview.ts';

const manage = { auth: 'service', limit: 'api', permission: 'allowManageKeys' } as const;
const tags = ['keys'];

/** Contract §7.4: an import body may be up to 16 MB, far above the 1 MB every other body gets. */
export const IMPORT_BODY_LIMIT_BYTES = 16 * 1024 * 1024;

const ImportErrorEnvelope = Type.Object({
  ...ErrorEnvelope.properties,
  errors: Type.Optional(Type.Array(Type.Object({ index: Type.Integer(), field: Type.String(), error: Type.String() }))),
  duplicates: Type.Optional(Type.Array(Type.String())),
});

export default async function keysImportRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;

  app.post(
    '/keys/api/keys/import',
    {
      config: { ...manage, action: 'keys.manage' },
      bodyLimit: IMPORT_BODY_LIMIT_BYTES,
      schema: {
        summary: 'Import keys',
        description:
          'Keyward CSV or JSON (an export of any Keyward), or Luarmor user records; all or nothing. Keys that already exist anywhere on the server: 409 listing them, or skipped with `onDuplicate: skip`. Invalid records: 400 listing each with its index and field. At most 10,000 records and 16 MB (413). With `dryRun: true`, answers 200 with what it would store (counts, the fields read and ignored, the first 5 records, the keys already on the server) and writes nothing. Needs allowManageKeys.',
        tags,
        body: schemas.ImportBody,
        response: {
          200: Envelope(schemas.ImportPreview),
          201: Envelope(schemas.ImportResult),
          '4xx': ImportErrorEnvelope,
          '5xx': ErrorEnvelope,
        },
      },
    },
    async (request, reply) => {
      if (request.body.dryRun) return reply.status(200).send({ success: true as const, data: await previewImport(ctx, request.body) });
      const result = await importKeys(ctx, actorOf(request), serviceOf(request), request.body);
      return reply.status(201).send({ success: true as const, data: result });
    },
  );
}
