import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { AppContext } from '../context.ts';
import { PAGE_SECURITY_HEADERS } from '../lib/page-headers.ts';

/** The OpenAPI document is generated from the route schemas: one source for validation and docs. */
export async function installDocs(app: FastifyInstance, ctx: AppContext): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: { title: 'Keyward API', version: '1.0.0', description: 'Self-hostable key licensing.' },
      servers: [{ url: ctx.config.baseUrl }],
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
          bearer: { type: 'http', scheme: 'bearer' },
        },
      },
    },
  });
  // The docs pages are HTML the server serves, like the dashboard: the same security headers (contract §14).
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiHooks: {
      onRequest: (_request, reply, done) => {
        reply.headers(PAGE_SECURITY_HEADERS);
        done();
      },
    },
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
