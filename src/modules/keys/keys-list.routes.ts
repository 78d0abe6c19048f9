import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { pageRequest } from '../../lib/pagination.ts';
import { serviceOf } from '../../plugins/auth.ts';
import { Page, Responses } from '../../schemas.ts';
import * as schemas from './keys-list.schemas.ts';
import { listKeys } from './keys-list.service.ts';
import { actorOf } from '../audit/actor.ts';

const read = { auth: 'service', limit: 'api', action: 'keys.read' } as const;
const tags = ['keys'];

export default async function keysListRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;

  app.get(
    '/keys/api/keys',
    {
      config: read,
      schema: {
        summary: 'List keys',
        description:
          "One page of the service's active and generated keys, with filters `type`, `status`, `premium`, `bound`, `expired`, `search` (key, note, HWID, chat id), `createdBy` (an account id) and `sort`/`order`. A reseller sees only the keys it created.",
        tags,
        querystring: schemas.ListQuery,
        response: Responses(Page(schemas.ListedKey)),
      },
    },
    async (request) => ({
      success: true as const,
      data: await listKeys(ctx, serviceOf(request).id, request.query, pageRequest(request.query), actorOf(request)),
    }),
  );
}
