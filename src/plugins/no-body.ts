import type { FastifyInstance } from 'fastify';

/**
 * The routes added to `app` after this read no body: whatever a client sends is left unread, and Node discards it
 * once the answer is sent. A heartbeat is the hot route that clients POST with a body it never uses (`{}` from an
 * executor's request()), and reading, parsing and checking that body cost more than the heartbeat's own work
 * (docs/benchmarks.md, fifth round). Call it inside a plugin of its own, so only that plugin's routes are affected.
 */
export function readNoBody(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
}
