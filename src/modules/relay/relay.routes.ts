import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { notFound } from '../../errors.ts';
import { deliverableScript } from '../loader/loader.service.ts';
import { hwidFrom, ScriptIdParams } from '../validation/validation.schemas.ts';
import * as schemas from './relay.schemas.ts';
import { relayMessage, type RelayInput } from './relay.service.ts';

const description =
  'A valid key posts `content` to the service webhook with mentions disabled; the webhook address never reaches the client. ' +
  '200 delivered, 202 queued, 403 KEY_REFUSED (reason = the validation code), 409 WEBHOOK_DISABLED, 429 after 10 messages a minute per key.';

export default async function relayRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;
  const response = schemas.RelayResponses;

  const send = async (request: FastifyRequest, reply: FastifyReply, serviceRef: string, body: RelayInput) => {
    const input = { ...body, hwid: hwidFrom(request, body.hwid, ctx.config.hwidHeaders) };
    const outcome = await relayMessage(ctx, serviceRef, input);
    return reply.status(outcome.delivered ? 200 : 202).send({ success: true as const, data: outcome });
  };

  app.post(
    '/public/relay/:service',
    {
      config: { limit: 'client' },
      schema: {
        summary: 'Relay a message to the seller webhook',
        description,
        tags: ['client'],
        params: schemas.RelayParams,
        body: schemas.RelayBody,
        response,
      },
    },
    (request, reply) => send(request, reply, request.params.service, request.body),
  );

  // What api.send_webhook() calls: the same, with the service named by the script id the library holds.
  app.post(
    '/lua/relay/:scriptId',
    {
      config: { limit: 'client' },
      schema: {
        summary: 'Relay a message, by script',
        description,
        tags: ['client'],
        params: ScriptIdParams,
        body: schemas.RelayBody,
        response,
      },
    },
    async (request, reply) => {
      const script = await deliverableScript(ctx, request.params.scriptId);
      if (!script) throw notFound('Script');
      return send(request, reply, script.serviceId, request.body);
    },
  );
}
