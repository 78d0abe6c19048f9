import type { FastifyRequest } from 'fastify';

/**
 * The request's cookies, parsed the first time a route asks: @fastify/cookie runs with `hook: false`, so the
 * public client routes (which never carry a session) do not pay for parsing on every call.
 */
export function cookiesOf(request: FastifyRequest): Record<string, string | undefined> {
  return (request.cookies ??= request.server.parseCookie(request.headers.cookie ?? ''));
}
