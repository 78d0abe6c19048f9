import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Deleted, Page, PageQuery, Responses, Strict } from '../../schemas.ts';
import { pageRequest } from '../../lib/pagination.ts';
import { serviceOf } from '../../plugins/auth.ts';
import { actorOf } from '../audit/actor.ts';
import * as keyless from './keyless.service.ts';
import { Entry, HwidQuery, AddBody } from './keyless.schemas.ts';
const tags = ['keyless'];

export default async function keylessRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;
  const read = { auth: 'service', limit: 'api' } as const;
  const manage = { ...read, permission: 'allowManageKeys' } as const;

  app.get(
    '/keys/api/keyless',
    {
      config: { ...read, action: 'lists.manage' },
      schema: {
        summary: 'List keyless (whitelisted) HWIDs',
        description: "Paged; HWIDs that run the service's scripts without a key.",
        tags,
        querystring: HwidQuery,
        response: Responses(Entry),
      },
    },
    async (request) => ({
      success: true as const,
      data: keyless.toKeylessView(await keyless.getKeyless(ctx, serviceOf(request).id, request.query.hwid)),
    }),
  );

  app.get(
    '/keys/api/keyless/list',
    {
      config: { ...read, action: 'lists.manage' },
      schema: {
        summary: 'List keyless HWIDs',
        description: 'Paged, newest first; `search` matches part of the HWID, ignoring case.',
        tags,
        querystring: Strict(PageQuery),
        response: Responses(Page(Entry)),
      },
    },
    async (request) => ({
      success: true as const,
      data: await keyless.listKeyless(ctx, serviceOf(request).id, pageRequest(request.query), request.query.search),
    }),
  );

  app.post(
    '/keys/api/keyless',
    {
      config: { ...manage, action: 'lists.manage' },
      schema: {
        summary: 'Whitelist an HWID',
        description: 'The HWID validates without a key (KEY_VALID) until `expiresAt`. 409 when already listed.',
        tags,
        body: AddBody,
        response: Responses(Entry, 201),
      },
    },
    async (request, reply) => {
      const row = await keyless.addKeyless(ctx, serviceOf(request).id, request.body, actorOf(request));
      return reply.status(201).send({ success: true as const, data: keyless.toKeylessView(row) });
    },
  );

  app.delete(
    '/keys/api/keyless',
    {
      config: { ...manage, action: 'lists.manage' },
      schema: {
        summary: 'Remove a keyless HWID',
        description: '`hwid` in the query or a JSON body. 404 when it is not listed.',
        tags,
        querystring: HwidQuery,
        response: Responses(Deleted),
      },
    },
    async (request) => {
      await keyless.removeKeyless(ctx, serviceOf(request).id, request.query.hwid, actorOf(request));
      return { success: true as const, data: { deleted: 1 } };
    },
  );
}
