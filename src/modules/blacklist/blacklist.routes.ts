import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { Deleted, Hwid, NullableString, NullableTime, Page, PageQuery, Responses, Strict, Time, TimeInput } from '../../schemas.ts';
import { serviceOf } from '../../plugins/auth.ts';
import { actorOf } from '../audit/actor.ts';
import { pageRequest } from '../../lib/pagination.ts';
import * as blacklist from './blacklist.service.ts';

const Entry = Type.Object({
  hwid: Type.String(),
  reason: NullableString,
  expiresAt: NullableTime,
  createdAt: Time,
});
const HwidQuery = Strict({ hwid: Hwid });
const AddBody = Strict({
  hwid: Hwid,
  reason: Type.Optional(Type.String({ maxLength: 512 })),
  expiresAt: Type.Optional(TimeInput),
});
const Check = Type.Object({
  hwid: Type.String(),
  blacklisted: Type.Boolean(),
  reason: NullableString,
  expiresAt: NullableTime,
});
const tags = ['blacklist'];

export default async function blacklistRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;
  const read = { auth: 'service', limit: 'api' } as const;
  const manage = { ...read, permission: 'allowManageKeys' } as const;

  app.get(
    '/keys/api/blacklist',
    { config: read, schema: { tags, querystring: Strict(PageQuery), response: Responses(Page(Entry)) } },
    async (request) => ({
      success: true as const,
      data: await blacklist.listBlacklist(ctx, serviceOf(request).id, pageRequest(request.query), request.query.search),
    }),
  );

  app.post('/keys/api/blacklist', { config: manage, schema: { tags, body: AddBody, response: Responses(Entry, 201) } }, async (request, reply) => {
    const row = await blacklist.addToBlacklist(ctx, serviceOf(request).id, request.body, actorOf(request));
    return reply.status(201).send({ success: true as const, data: blacklist.toBlacklistView(row) });
  });

  app.delete('/keys/api/blacklist', { config: manage, schema: { tags, querystring: HwidQuery, response: Responses(Deleted) } }, async (request) => {
    await blacklist.removeFromBlacklist(ctx, serviceOf(request).id, request.query.hwid, actorOf(request));
    return { success: true as const, data: { deleted: 1 } };
  });

  app.get('/keys/api/blacklist/check', { config: read, schema: { tags, querystring: HwidQuery, response: Responses(Check) } }, async (request) => ({
    success: true as const,
    data: await blacklist.checkBlacklist(ctx, serviceOf(request).id, request.query.hwid),
  }));
}
