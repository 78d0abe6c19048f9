import type { FastifyInstance } from 'fastify';
import { redisState } from '../../context.ts';
import { ping } from '../../db/database.ts';
import { HealthStatus } from './health.schemas.ts';

export default async function healthRoutes(app: FastifyInstance) {
  app.get('/healthz', { schema: { hide: true, response: { 200: HealthStatus, 503: HealthStatus } } }, async (_request, reply) => {
    try {
      await ping(app.ctx.db);
      const redis = redisState(app.ctx.redis);
      return redis === null ? { status: 'ok' } : { status: 'ok', redis };
    } catch (err) {
      app.log.error({ err }, 'health check: database unreachable');
      return reply.status(503).send({ status: 'unavailable' });
    }
  });
}
