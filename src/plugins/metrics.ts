import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { AppContext } from '../context.ts';
import { inRanges } from '../lib/ip.ts';
import { outboxDepth } from '../modules/webhook/webhook.service.ts';

/**
 * GET /metrics in Prometheus text format (contract §10). Off unless METRICS=on: then nothing is counted and the
 * route does not exist. When on, it answers only METRICS_ALLOW addresses; others get the same 404 as when it is off,
 * so a scan learns nothing. Each app has its own registry (several apps share a test process).
 */
export function installMetrics(app: FastifyInstance, ctx: AppContext): void {
  const { enabled, allow } = ctx.config.metrics;
  if (!enabled) return;
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'keyward_' });

  // Labels are the route pattern, never the raw URL, so their number stays bounded whatever clients send.
  const labelNames = ['method', 'route', 'status'] as const;
  const requests = new Counter({
    name: 'keyward_http_requests_total',
    help: 'HTTP requests answered, by route pattern and status',
    labelNames,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'keyward_http_request_duration_seconds',
    help: 'Time to answer HTTP requests, by route pattern and status',
    labelNames,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registers: [registry],
  });
  app.addHook('onResponse', (request, reply, done) => {
    const labels = { method: request.method, route: request.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) };
    requests.inc(labels);
    latency.observe(labels, reply.elapsedTime / 1000);
    done();
  });

  const verdicts = ctx.analytics.keepVerdictTotals();
  new Counter({
    name: 'keyward_verdicts_total',
    help: 'Validation verdicts given (validate, loader fetch, Lua check), by code',
    labelNames: ['code'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [code, count] of verdicts) this.inc({ code }, count);
    },
  });
  new Gauge({
    name: 'keyward_webhook_outbox_messages',
    help: 'Webhook messages waiting to be delivered, by status',
    labelNames: ['status'],
    registers: [registry],
    async collect() {
      this.reset();
      this.set({ status: 'pending' }, 0);
      this.set({ status: 'sending' }, 0);
      for (const { status, count } of await outboxDepth(ctx.db)) this.set({ status }, count);
    },
  });
  const poolUse = ctx.poolUse;
  if (poolUse) {
    new Gauge({
      name: 'keyward_db_pool_connections',
      help: 'PostgreSQL pool connections: total open, idle, and requests waiting for one',
      labelNames: ['state'],
      registers: [registry],
      collect() {
        const use = poolUse();
        this.set({ state: 'total' }, use.total);
        this.set({ state: 'idle' }, use.idle);
        this.set({ state: 'waiting' }, use.waiting);
      },
    });
  }

  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (!inRanges(request.ip, allow)) return reply.callNotFound();
    return reply.type(registry.contentType).send(await registry.metrics());
  });
}
