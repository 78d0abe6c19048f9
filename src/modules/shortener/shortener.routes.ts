import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Deleted, Page, PageQuery, Responses, Strict } from '../../schemas.ts';
import { serviceOf } from '../../plugins/auth.ts';
import { pageRequest } from '../../lib/pagination.ts';
import { htmlPage } from '../../lib/html.ts';
import * as shortener from './shortener.service.ts';
import { Link, ListedLink, CreateBody, SlugQuery, SlugParams } from './shortener.schemas.ts';

const tags = ['shortener'];
const flagged = { auth: 'service', permission: 'allowUrlShortener', limit: 'api' } as const;
const { search: _search, ...PagingOnly } = PageQuery;

/** The API half, under /api/v1. */
export default async function shortenerRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;

  app.post(
    '/public/shortener/create',
    {
      config: { ...flagged, action: 'service.configure' },
      schema: {
        summary: 'Shorten a URL',
        description: 'Answers the short link (`shortUrl`); `slug` is optional. Needs allowUrlShortener.',
        tags,
        body: CreateBody,
        response: Responses(Link, 201),
      },
    },
    async (request, reply) =>
      reply.status(201).send({ success: true as const, data: await shortener.createShortLink(ctx, serviceOf(request).id, request.body) }),
  );

  app.get(
    '/public/shortener/links',
    {
      config: { ...flagged, action: 'service.configure' },
      schema: {
        summary: 'List short links',
        description: 'Paged, with click counts; `search` filters.',
        tags,
        querystring: Strict(PagingOnly),
        response: Responses(Page(ListedLink)),
      },
    },
    async (request) => ({
      success: true as const,
      data: await shortener.listShortLinks(ctx, serviceOf(request).id, pageRequest(request.query)),
    }),
  );

  app.delete(
    '/public/shortener/links',
    {
      config: { ...flagged, action: 'service.configure' },
      schema: {
        summary: 'Delete a short link',
        description: "`slug` in the query or a JSON body. 404 when it is not this service's.",
        tags,
        querystring: SlugQuery,
        response: Responses(Deleted),
      },
    },
    async (request) => ({ success: true as const, data: await shortener.deleteShortLink(ctx, serviceOf(request).id, request.query.slug) }),
  );
}

/** The public redirect, at /go/:slug. */
export async function shortLinkRedirectRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/go/:slug',
    {
      config: { limit: 'client' },
      schema: {
        summary: 'Follow a short link',
        description: 'Redirects to the target URL.',
        hide: true,
        params: SlugParams,
      },
    },
    async (request, reply) => {
      const url = await shortener.followShortLink(app.ctx, request.params.slug);
      reply.header('cache-control', 'no-store');
      if (!url) {
        return reply
          .status(404)
          .type('text/html; charset=utf-8')
          .send(htmlPage('Link not found', '<h1>Link not found</h1><p>This short link does not exist or was deleted.</p>'));
      }
      return reply.redirect(url, 302);
    },
  );
}
