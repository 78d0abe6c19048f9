import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { IdParams, Page, Responses } from '../../schemas.ts';
import { pageRequest } from '../../lib/pagination.ts';
import { accountIdOf, serviceOf } from '../../plugins/auth.ts';
import * as webhook from './webhook.service.ts';
import { PostBody, Delivered, Revealed, OutboxQuery, OutboxMessage } from './webhook.schemas.ts';

export default async function webhookRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;

  app.post(
    '/keys/api/webhook',
    {
      config: { auth: 'service', permission: 'allowManageKeys', limit: 'api', action: 'service.configure' },
      schema: {
        summary: 'Post a message to the service webhook',
        description:
          'Stored before it is sent: 200 delivered, 202 queued (the platform asked to wait or failed briefly; the worker retries), ' +
          '502 when the platform refuses it for good. 409 while the webhook is off or unset.',
        tags: ['service'],
        body: PostBody,
        response: { ...Responses(Delivered), ...Responses(Delivered, 202) },
      },
    },
    async (request, reply) => {
      const outcome = await webhook.postMessage(ctx, serviceOf(request), request.body);
      return reply.status(outcome.delivered ? 200 : 202).send({ success: true as const, data: outcome });
    },
  );

  app.get(
    '/keys/api/webhook/outbox',
    {
      config: { auth: 'service', limit: 'api', action: 'service.configure' },
      schema: {
        tags: ['service'],
        summary: 'List webhook messages and what became of them',
        description:
          'Newest first, paged. Each message shows its status (pending, sending, delivered, failed), attempts and the last error; ' +
          'never the webhook URL or its token. `status` filters.',
        querystring: OutboxQuery,
        response: Responses(Page(OutboxMessage)),
      },
    },
    async (request) => ({
      success: true as const,
      data: await webhook.listOutbox(ctx, serviceOf(request).id, pageRequest(request.query), request.query.status),
    }),
  );

  // The owner's reveal: the only answer that carries the webhook token.
  app.get(
    '/services/:id/webhook',
    {
      config: { auth: 'account', limit: 'api', serviceAction: 'service.own' },
      schema: {
        summary: 'Reveal the webhook URL',
        description: 'The only answer that carries the webhook token (stored sealed).',
        tags: ['services'],
        params: IdParams,
        response: Responses(Revealed),
      },
    },
    async (request) => ({ success: true as const, data: await webhook.revealWebhook(ctx, accountIdOf(request), request.params.id) }),
  );
}
