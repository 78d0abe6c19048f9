import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Account, Responses } from '../../schemas.ts';
import { accountIdOf } from '../../plugins/auth.ts';
import { actorOf } from '../audit/actor.ts';
import { findAccountById } from './accounts.repository.ts';
import { regenerateAccountKey, revealAccountKey, setDiscordUser, toAccountView } from './accounts.service.ts';
import { AccountPatch, ApiKey } from './accounts.schemas.ts';
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

  app.patch(
    '/account',
    {
      config,
      schema: {
        summary: 'Change your account',
        description:
          'Links your Discord user (`discordUserId`, 17 to 20 digits, or null to unlink): slash commands you run in a bound Discord server act as you, with your role on that service (contract §24.3). One Discord user links to one account (409 otherwise).',
        tags: ['account'],
        body: AccountPatch,
        response: Responses(Account),
      },
    },
    async (request) => ({ success: true as const, data: await setDiscordUser(app.ctx, accountIdOf(request), request.body.discordUserId) }),
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
