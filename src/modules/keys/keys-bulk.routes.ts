import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { serviceOf } from '../../plugins/auth.ts';
import { Responses } from '../../schemas.ts';
import { actorOf } from '../audit/actor.ts';
import * as schemas from './keys-bulk.schemas.ts';
import { bulkKeys } from './keys-bulk.service.ts';

const manage = { auth: 'service', limit: 'api', permission: 'allowManageKeys' } as const;
const tags = ['keys'];

export default async function keysBulkRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;

  app.post(
    '/keys/api/keys/bulk',
    {
      // Contract §17's table: bulk is keys.manage whatever the action (a support member's or reseller's is 403, §23).
      config: { ...manage, action: 'keys.manage' },
      schema: {
        summary: 'Act on many keys',
        description:
          '`action` delete, ban, pause, activate, resetHwid, extend (`days`) or setNote (`note`) on up to 1,000 distinct keys in one transaction; keys the service does not have are counted as notFound and never touched. Needs allowManageKeys.',
        tags,
        body: schemas.BulkBody,
        response: Responses(schemas.BulkResult),
      },
    },
    async (request) => {
      return { success: true as const, data: await bulkKeys(ctx, actorOf(request), serviceOf(request), request.body) };
    },
  );
}
