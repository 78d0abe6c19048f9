import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Account, Envelope, ErrorEnvelope, Responses } from '../../schemas.ts';
import { accountIdOf, sessionTokenOf } from '../../plugins/auth.ts';
import { actorOf } from '../audit/actor.ts';
import { issueCaptcha } from './captcha.ts';
import { csrfTokenFor, SESSION_COOKIE, sessionCookieOptions } from '../../lib/session.ts';
import { unauthorized } from '../../errors.ts';
import { findAccountById } from '../accounts/accounts.service.ts';
import { toAccountView } from '../accounts/accounts.service.ts';
import * as schemas from './auth.schemas.ts';
import * as auth from './auth.service.ts';
import { setSessionCookie } from './session-cookie.ts';

const tags = ['auth'];
const session = { auth: 'session', limit: 'api' } as const;

export default async function authRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;

  app.get(
    '/auth/captcha',
    {
      config: { limit: 'api' },
      schema: {
        summary: 'Get a captcha challenge',
        description: 'An ALTCHA proof-of-work challenge; its solution is the `captcha` of register and login, good once.',
        tags,
        response: Responses(schemas.CaptchaChallenge),
      },
    },
    async (_request, reply) => {
      reply.header('cache-control', 'no-store');
      return { success: true as const, data: await issueCaptcha(ctx) };
    },
  );

  app.post(
    '/auth/register',
    {
      config: { limit: 'login' },
      schema: {
        summary: 'Register an account',
        description: 'Only when REGISTRATION=open; needs a solved captcha.',
        tags,
        body: schemas.RegisterBody,
        response: Responses(Account, 201),
      },
    },
    async (request, reply) => reply.status(201).send({ success: true as const, data: await auth.register(ctx, request.body) }),
  );

  app.post(
    '/auth/login',
    {
      config: { limit: 'login' },
      schema: {
        summary: 'Sign in',
        description:
          'Username and password (plus `totp` when two-factor is on) or the account key as `apiKey`; sets the session cookie. Repeated failures lock password sign-in for a while (429), alike for every username; the account key still signs in.',
        tags,
        body: schemas.LoginBody,
        response: { 200: Envelope(schemas.LoginResult), '4xx': schemas.LoginError, '5xx': ErrorEnvelope },
      },
    },
    async (request, reply) => {
      const { account, sessionToken } = await auth.login(ctx, request.body, request.ip);
      setSessionCookie(ctx, reply, sessionToken);
      return { success: true as const, data: { account } };
    },
  );

  app.post(
    '/auth/logout',
    {
      config: session,
      schema: { summary: 'Sign out', description: 'Ends the session on every instance.', tags, response: Responses(schemas.LoggedOut) },
    },
    async (request, reply) => {
      await auth.closeSession(ctx, sessionTokenOf(request));
      reply.clearCookie(SESSION_COOKIE, sessionCookieOptions(ctx.config.baseUrl));
      return { success: true as const, data: { loggedOut: true as const } };
    },
  );

  app.get(
    '/auth/session',
    {
      config: session,
      schema: {
        summary: 'Current session',
        description: 'The signed-in account and the X-CSRF-Token that cookie-authenticated mutations must send.',
        tags,
        response: Responses(schemas.SessionView),
      },
    },
    async (request) => {
      const account = await findAccountById(ctx.db, accountIdOf(request));
      if (!account) throw unauthorized('Sign in first');
      return {
        success: true as const,
        data: { account: toAccountView(account), csrfToken: csrfTokenFor(ctx.config.secret, sessionTokenOf(request)) },
      };
    },
  );

  app.post(
    '/account/2fa/setup',
    {
      config: session,
      schema: {
        summary: 'Start two-factor setup',
        description: 'A new TOTP secret (and its otpauth URI); it counts once enabled with a code.',
        tags,
        response: Responses(schemas.TwoFactorSetup),
      },
    },
    async (request) => ({
      success: true as const,
      data: await auth.setupTwoFactor(ctx, accountIdOf(request)),
    }),
  );

  app.post(
    '/account/2fa/enable',
    {
      config: session,
      schema: {
        summary: 'Turn two-factor on',
        description: 'Confirms the pending secret with a current 6-digit code.',
        tags,
        body: schemas.TotpBody,
        response: Responses(schemas.TwoFactorState),
      },
    },
    async (request) => ({
      success: true as const,
      data: await auth.enableTwoFactor(ctx, accountIdOf(request), request.body.totp, actorOf(request)),
    }),
  );

  app.post(
    '/account/2fa/disable',
    {
      config: session,
      schema: {
        summary: 'Turn two-factor off',
        description: 'Needs a current 6-digit code.',
        tags,
        body: schemas.TotpBody,
        response: Responses(schemas.TwoFactorState),
      },
    },
    async (request) => ({
      success: true as const,
      data: await auth.disableTwoFactor(ctx, accountIdOf(request), request.body.totp, actorOf(request)),
    }),
  );
}
