import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { ping } from '../../db/database.ts';

export default async function healthRoutes(app: FastifyInstance) {
  app.get(
    '/healthz',
    { schema: { hide: true, response: { 200: Type.Object({ status: Type.String() }), 503: Type.Object({ status: Type.String() }) } } },
    async (_request, reply) => {
      try {
        await ping(app.ctx.db);
        return { status: 'ok' };
      } catch (err) {
        app.log.error({ err }, 'health check: database unreachable');
        return reply.status(503).send({ status: 'unavailable' });
      }
    },
  );
}
