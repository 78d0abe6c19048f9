import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Deleted, Page, PageQuery, Responses, Strict } from '../../schemas.ts';
import { accountIdOf, accountOf } from '../../plugins/auth.ts';
import { pageRequest } from '../../lib/pagination.ts';
import { issueVaultToken } from './vault-token.ts';
import * as vault from './vault.service.ts';
import { VaultScript, VaultScriptWithCode, CreateBody, UpdateBody, RefParams, VaultToken } from './vault.schemas.ts';

const tags = ['vault'];
const vaultAuth = { auth: 'vault', limit: 'api' } as const;
// JSON escaping can double the code's size on the wire; the 40 MB rule is checked on the decoded code.
const SCRIPT_BODY_LIMIT = 2 * vault.MAX_CODE_BYTES + 65_536;

/** POST /api/v1/vault-v3/session/token: the account key buys a short-lived vault token. */
export async function vaultTokenRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/vault-v3/session/token',
    {
      config: { auth: 'account-key', limit: 'api' },
      schema: {
        summary: 'Get a vault token',
        description: 'Trades the account key for a short-lived bearer token for the vault API (/api/v3/vault).',
        tags,
        response: Responses(VaultToken),
      },
    },
    async (request) => {
      const account = accountOf(request);
      return { success: true as const, data: issueVaultToken(app.ctx, { id: account.id, apiKeyDigest: account.apiKeyDigest! }) };
    },
  );
}

/** The vault API under /api/v3/vault, called with `Authorization: Bearer <vault token>`. */
export default async function vaultRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;

  app.get(
    '/scripts',
    {
      config: vaultAuth,
      schema: {
        summary: 'List vault scripts',
        description: 'Paged; `search` filters by name.',
        tags,
        querystring: Strict(PageQuery),
        response: Responses(Page(VaultScript)),
      },
    },
    async (request) => ({
      success: true as const,
      data: await vault.listVaultScripts(ctx, accountIdOf(request), { ...pageRequest(request.query), search: request.query.search }),
    }),
  );

  app.post(
    '/scripts',
    {
      config: vaultAuth,
      bodyLimit: SCRIPT_BODY_LIMIT,
      schema: {
        summary: 'Store a script in the vault',
        description: 'Name and code; the code is stored encrypted. 409 when the name is taken.',
        tags,
        body: CreateBody,
        response: Responses(VaultScript, 201),
      },
    },
    async (request, reply) =>
      reply.status(201).send({ success: true as const, data: await vault.createVaultScript(ctx, accountIdOf(request), request.body) }),
  );

  app.get(
    '/scripts/:idOrName',
    {
      config: vaultAuth,
      schema: {
        summary: 'Get a vault script',
        description: 'By id or name, with its code.',
        tags,
        params: RefParams,
        response: Responses(VaultScriptWithCode),
      },
    },
    async (request) => ({ success: true as const, data: await vault.readVaultScript(ctx, accountIdOf(request), request.params.idOrName) }),
  );

  app.put(
    '/scripts/:idOrName',
    {
      config: vaultAuth,
      bodyLimit: SCRIPT_BODY_LIMIT,
      schema: {
        summary: 'Update a vault script',
        description: 'Name and/or code.',
        tags,
        params: RefParams,
        body: UpdateBody,
        response: Responses(VaultScript),
      },
    },
    async (request) => ({
      success: true as const,
      data: await vault.updateVaultScript(ctx, accountIdOf(request), request.params.idOrName, request.body),
    }),
  );

  app.delete(
    '/scripts/:idOrName',
    {
      config: vaultAuth,
      schema: { summary: 'Delete a vault script', description: 'By id or name.', tags, params: RefParams, response: Responses(Deleted) },
    },
    async (request) => ({
      success: true as const,
      data: await vault.deleteVaultScript(ctx, accountIdOf(request), request.params.idOrName),
    }),
  );
}
