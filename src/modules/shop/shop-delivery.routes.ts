import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ErrorEnvelope, Strict } from '../../schemas.ts';
import { PROVIDERS, type Provider } from './shop.formats.ts';
import * as shop from './shop.service.ts';

const tags = ['selling'];
const Params = Strict({ productId: Type.String({ minLength: 1, maxLength: 64 }) });

const DESCRIPTIONS: Record<Provider, string> = {
  generic:
    'For any shop or your own code. Body `{ orderId (1–128 printable), quantity (1–100), email?, chatId? }`, header `X-Keyward-Signature: sha256=<hex HMAC-SHA256 of the raw body under the generic secret>`. Answers the keys as text, one per line; the same orderId again answers the same keys and makes none. 401 for a missing or wrong signature (nothing made), 404 for an unknown product or a service without the generic secret.',
  sellix:
    "Sellix's dynamic-product webhook (event product:dynamic), signed with X-Sellix-Signature (HMAC-SHA512 of the body under the shop's webhook secret). Answers the keys as text, one per line, which Sellix hands to the buyer; a repeat of the order answers the same keys.",
  sellauth:
    "SellAuth's dynamic delivery (event INVOICE.ITEM.DELIVER-DYNAMIC, one request per invoice item), signed with X-Signature (HMAC-SHA256 of the body under the shop's webhook secret). Answers the keys as text, one per line, which SellAuth shows the buyer; a repeat of the item answers the same keys.",
};

/**
 * The shops' delivery endpoints (contract §12.2). Public: a shop proves itself by signing the exact bytes it
 * sent, so this scope keeps the raw body (any content type) instead of parsing it first.
 */
export default async function shopDeliveryRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  for (const provider of PROVIDERS) {
    app.post(
      `/public/shop/${provider}/:productId`,
      {
        schema: {
          summary: `Deliver keys to ${provider === 'generic' ? 'any shop' : provider === 'sellix' ? 'Sellix' : 'SellAuth'}`,
          description: DESCRIPTIONS[provider],
          tags,
          params: Params,
          response: { 200: Type.String(), '4xx': ErrorEnvelope, '5xx': ErrorEnvelope },
        },
      },
      async (request, reply) => {
        const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        const keys = await shop.deliverFromShop(ctx, provider, request.params.productId, raw, request.headers, request.ip);
        return reply.type('text/plain; charset=utf-8').send(keys.join('\n'));
      },
    );
  }
}
