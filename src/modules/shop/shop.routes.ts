import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { pageRequest } from '../../lib/pagination.ts';
import { serviceOf } from '../../plugins/auth.ts';
import { Deleted, Responses } from '../../schemas.ts';
import { actorOf } from '../audit/actor.ts';
import * as schemas from './shop.schemas.ts';
import * as shop from './shop.service.ts';

const read = { auth: 'service', limit: 'api' } as const;
const manage = { auth: 'service', limit: 'api', permission: 'allowManageKeys' } as const;
const tags = ['selling'];

/** Products, shop secrets and orders (contract §12.2): the seller's side of shop delivery. */
export default async function shopRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;

  app.get(
    '/keys/api/products',
    {
      config: { ...read, action: 'service.configure' },
      schema: {
        summary: 'List products',
        description: 'The products a shop sells, each with the delivery URLs to paste into Sellix, SellAuth or any other shop.',
        tags,
        querystring: schemas.PageQuery,
        response: Responses(schemas.ProductPage),
      },
    },
    async (request) => ({ success: true as const, data: await shop.listProducts(ctx, serviceOf(request).id, pageRequest(request.query)) }),
  );

  app.post(
    '/keys/api/products',
    {
      config: { ...manage, action: 'service.configure' },
      schema: {
        summary: 'Create a product',
        description:
          'What one unit sold delivers: a key that runs `days` from its sale (byDays) or from its redemption (afterRedeem), or a lifetime key; premium, max HWIDs and note. Needs allowManageKeys.',
        tags,
        body: schemas.ProductBody,
        response: Responses(schemas.Product, 201),
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .send({ success: true as const, data: await shop.createProduct(ctx, serviceOf(request).id, request.body, actorOf(request)) }),
  );

  app.put(
    '/keys/api/products/:id',
    {
      config: { ...manage, action: 'service.configure' },
      schema: {
        summary: 'Edit a product',
        description: 'Changes only the fields sent; keys already delivered keep what they were made with. Needs allowManageKeys.',
        tags,
        params: schemas.ProductParams,
        body: schemas.ProductEditBody,
        response: Responses(schemas.Product),
      },
    },
    async (request) => ({
      success: true as const,
      data: await shop.updateProduct(ctx, serviceOf(request).id, request.params.id, request.body, actorOf(request)),
    }),
  );

  app.delete(
    '/keys/api/products/:id',
    {
      config: { ...manage, action: 'service.configure' },
      schema: {
        summary: 'Delete a product',
        description: 'Its delivery URLs stop working (404); orders already delivered stay listed. Needs allowManageKeys.',
        tags,
        params: schemas.ProductParams,
        response: Responses(Deleted),
      },
    },
    async (request) => {
      await shop.deleteProduct(ctx, serviceOf(request).id, request.params.id, actorOf(request));
      return { success: true as const, data: { deleted: 1 } };
    },
  );

  app.get(
    '/keys/api/shop',
    {
      config: { ...read, action: 'service.configure' },
      schema: {
        summary: 'Shop secrets',
        description: 'Which shops are connected: each secret reads "****" when set, null when not; a secret is never shown.',
        tags,
        response: Responses(schemas.ShopSettings),
      },
    },
    async (request) => ({ success: true as const, data: await shop.shopSettings(ctx, serviceOf(request).id) }),
  );

  app.put(
    '/keys/api/shop',
    {
      config: { ...manage, action: 'service.configure' },
      schema: {
        summary: 'Set shop secrets',
        description:
          'The secrets each shop signs its delivery requests with (the generic one is yours to choose; Sellix and SellAuth show theirs in their settings). Write-only and stored encrypted; a field left out stays, null disconnects that shop. Needs allowManageKeys.',
        tags,
        body: schemas.ShopBody,
        response: Responses(schemas.ShopSettings),
      },
    },
    async (request) => ({
      success: true as const,
      data: await shop.updateShopSettings(ctx, serviceOf(request).id, request.body, actorOf(request)),
    }),
  );

  app.get(
    '/keys/api/orders',
    {
      config: { ...read, action: 'service.configure' },
      schema: {
        summary: 'List delivered orders',
        description: 'Newest first: the shop order id, the shop, the product, the keys delivered and when.',
        tags,
        querystring: schemas.PageQuery,
        response: Responses(schemas.OrderPage),
      },
    },
    async (request) => ({ success: true as const, data: await shop.listOrders(ctx, serviceOf(request).id, pageRequest(request.query)) }),
  );
}
