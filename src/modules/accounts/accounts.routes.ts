import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { Responses, Time } from '../../schemas.ts';
import { accountIdOf } from '../../plugins/auth.ts';
import { actorOf } from '../audit/actor.ts';
import { findAccountById } from './accounts.repository.ts';
import { regenerateAccountKey, revealAccountKey, toAccountView } from './accounts.service.ts';

const Account = Type.Object({
  id: Type.String(),
  username: Type.String(),
  role: Type.String(),
  twoFactorEnabled: Type.Boolean(),
  createdAt: Time,
});
const ApiKey = Type.Object({ apiKey: Type.String() });
const config = { auth: 'account', limit: 'api' } as const;

export default async function accountRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get('/account', { config, schema: { tags: ['account'], response: Responses(Account) } }, async (request) => {
    const account = (await findAccountById(app.ctx.db, accountIdOf(request)))!;
    return { success: true as const, data: toAccountView(account) };
  });

  app.get('/account/api-key', { config, schema: { tags: ['account'], response: Responses(ApiKey) } }, async (request) => ({
    success: true as const,
    data: { apiKey: await revealAccountKey(app.ctx, accountIdOf(request)) },
  }));

  app.post('/account/api-key/regenerate', { config, schema: { tags: ['account'], response: Responses(ApiKey) } }, async (request) => ({
    success: true as const,
    data: { apiKey: await regenerateAccountKey(app.ctx, accountIdOf(request), actorOf(request)) },
  }));
}
