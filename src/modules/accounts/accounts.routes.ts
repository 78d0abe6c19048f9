import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Account, Responses } from '../../schemas.ts';
import { accountIdOf } from '../../plugins/auth.ts';
import { actorOf } from '../audit/actor.ts';
import { findAccountById } from './accounts.repository.ts';
import { regenerateAccountKey, revealAccountKey, toAccountView } from './accounts.service.ts';
import { ApiKey } from './accounts.schemas.ts';
const config = { auth: 'account', limit: 'api' } as const;

export default async function accountRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/account',
    {
      config,
      schema: {
        summary: 'Your account',
        description: 'The calling account (account key or signed-in session).',
        tags: ['account'],
        response: Responses(Account),
      },
    },
    async (request) => {
      const account = (await findAccountById(app.ctx.db, accountIdOf(request)))!;
      return { success: true as const, data: toAccountView(account) };
    },
  );

  app.get(
    '/account/api-key',
    {
      config,
      schema: {
        summary: 'Reveal your account key',
        description: 'The only answer that shows the account key in full; it is stored encrypted.',
        tags: ['account'],
        response: Responses(ApiKey),
      },
    },
    async (request) => ({
      success: true as const,
      data: { apiKey: await revealAccountKey(app.ctx, accountIdOf(request)) },
    }),
  );

  app.post(
    '/account/api-key/regenerate',
    {
      config,
      schema: {
        summary: 'Regenerate your account key',
        description: 'The old key stops working at once; vault tokens it obtained stop too.',
        tags: ['account'],
        response: Responses(ApiKey),
      },
    },
    async (request) => ({
      success: true as const,
      data: { apiKey: await regenerateAccountKey(app.ctx, accountIdOf(request), actorOf(request)) },
    }),
  );
}
