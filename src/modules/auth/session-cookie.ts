import type { FastifyReply } from 'fastify';
import type { AppContext } from '../../context.ts';
import { SESSION_COOKIE, sessionCookieOptions } from '../../lib/session.ts';

/** The one way a route signs a browser in: sign-in and an invite's register (contract §25) set the same cookie. */
export function setSessionCookie(ctx: AppContext, reply: FastifyReply, sessionToken: string) {
  reply.setCookie(SESSION_COOKIE, sessionToken, sessionCookieOptions(ctx.config.baseUrl, ctx.config.signin.sessionAbsoluteHours * 3600));
}
