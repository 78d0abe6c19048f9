import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Deleted, Page, PageQuery, Responses, Strict } from '../../schemas.ts';
import { serviceOf } from '../../plugins/auth.ts';
import { actorOf } from '../audit/actor.ts';
import { pageRequest } from '../../lib/pagination.ts';
import * as blacklist from './blacklist.service.ts';
import { Entry, HwidQuery, AddBody, Check } from './blacklist.schemas.ts';
const tags = ['blacklist'];

export default async function blacklistRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;
  const read = { auth: 'service', limit: 'api' } as const;
  const manage = { ...read, permission: 'allowManageKeys' } as const;

  app.get(
    '/keys/api/blacklist',
    {
      config: { ...read, action: 'lists.manage' },
      schema: {
        summary: 'List blacklisted HWIDs',
        description: 'Paged; `search` matches part of the HWID or the reason, ignoring case.',
        tags,
        querystring: Strict(PageQuery),
        response: Responses(Page(Entry)),
      },
    },
    async (request) => ({
      success: true as const,
      data: await blacklist.listBlacklist(ctx, serviceOf(request).id, pageRequest(request.query), request.query.search),
    }),
  );

  app.post(
    '/keys/api/blacklist',
    {
      config: { ...manage, action: 'lists.manage' },
      schema: {
        summary: 'Blacklist an HWID',
        description:
          'Refuses every key on this HWID with KEY_BANNED until `expiresAt` (never, when absent). 409 when the HWID is already listed.',
        tags,
        body: AddBody,
        response: Responses(Entry, 201),
      },
    },
    async (request, reply) => {
      const row = await blacklist.addToBlacklist(ctx, serviceOf(request).id, request.body, actorOf(request));
      return reply.status(201).send({ success: true as const, data: blacklist.toBlacklistView(row) });
    },
  );

  app.delete(
    '/keys/api/blacklist',
    {
      config: { ...manage, action: 'lists.manage' },
      schema: {
        summary: 'Remove an HWID from the blacklist',
        description: '`hwid` in the query or a JSON body. 404 when it is not listed.',
        tags,
        querystring: HwidQuery,
        response: Responses(Deleted),
      },
    },
    async (request) => {
      await blacklist.removeFromBlacklist(ctx, serviceOf(request).id, request.query.hwid, actorOf(request));
      return { success: true as const, data: { deleted: 1 } };
    },
  );

  app.get(
    '/keys/api/blacklist/check',
    {
      config: { ...read, action: 'lists.manage' },
      schema: {
        summary: 'Check whether an HWID is blacklisted',
        description: 'Answers `blacklisted` with the reason and expiry of an entry in force.',
        tags,
        querystring: HwidQuery,
        response: Responses(Check),
      },
    },
    async (request) => ({
      success: true as const,
      data: await blacklist.checkBlacklist(ctx, serviceOf(request).id, request.query.hwid),
    }),
  );
}
