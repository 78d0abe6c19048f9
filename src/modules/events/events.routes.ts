import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { serviceOf } from '../../plugins/auth.ts';
import { Deleted, Responses } from '../../schemas.ts';
import { actorOf } from '../audit/actor.ts';
import * as schemas from './events.schemas.ts';
import * as events from './events.service.ts';

const read = { auth: 'service', limit: 'api' } as const;
const manage = { auth: 'service', limit: 'api', permission: 'allowManageKeys' } as const;
const tags = ['events'];

/** Event endpoints (contract §12.4): where Keyward posts signed events, and what happened to each attempt. */
export default async function eventRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;

  app.get(
    '/keys/api/event-endpoints',
    {
      config: { ...read, action: 'service.configure' },
      schema: {
        summary: 'List event endpoints',
        description: 'Each endpoint with the events it receives. The signing secret is never shown again after creation.',
        tags,
        response: Responses(schemas.EndpointList),
      },
    },
    async (request) => ({ success: true as const, data: await events.listEndpoints(ctx, serviceOf(request).id) }),
  );

  app.post(
    '/keys/api/event-endpoints',
    {
      config: { ...manage, action: 'service.configure' },
      schema: {
        summary: 'Add an event endpoint',
        description:
          'An https address and the events it receives (`["*"]` for all). The answer holds the signing secret (`whsec_…`), shown only this once. Needs allowManageKeys.',
        tags,
        body: schemas.EndpointBody,
        response: Responses(schemas.CreatedEndpoint, 201),
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .send({ success: true as const, data: await events.createEndpoint(ctx, serviceOf(request).id, request.body, actorOf(request)) }),
  );

  app.delete(
    '/keys/api/event-endpoints',
    {
      config: { ...manage, action: 'service.configure' },
      schema: {
        summary: 'Delete an event endpoint',
        description: 'Events still waiting for it are dropped. Needs allowManageKeys.',
        tags,
        querystring: schemas.EndpointQuery,
        response: Responses(Deleted),
      },
    },
    async (request) => ({
      success: true as const,
      data: await events.deleteEndpoint(ctx, serviceOf(request).id, request.query.id, actorOf(request)),
    }),
  );

  app.get(
    '/keys/api/event-endpoints/:id/deliveries',
    {
      config: { ...read, action: 'service.configure' },
      schema: {
        summary: 'Delivery log of an event endpoint',
        description: 'The last 50 attempts, newest first: event, attempt number, HTTP status or error.',
        tags,
        params: schemas.EndpointParams,
        response: Responses(schemas.DeliveryList),
      },
    },
    async (request) => ({ success: true as const, data: await events.listDeliveries(ctx, serviceOf(request).id, request.params.id) }),
  );

  app.post(
    '/keys/api/event-endpoints/:id/test',
    {
      config: { ...manage, action: 'service.configure' },
      schema: {
        summary: 'Send a test event',
        description:
          'Queues one `keyward.test` event to this endpoint only, signed like every event; its attempts show in the delivery log. Needs allowManageKeys.',
        tags,
        params: schemas.EndpointParams,
        response: Responses(schemas.TestSent, 202),
      },
    },
    async (request, reply) =>
      reply.status(202).send({ success: true as const, data: await events.sendTestEvent(ctx, serviceOf(request).id, request.params.id) }),
  );
}
