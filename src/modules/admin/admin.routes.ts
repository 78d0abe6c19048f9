import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { IdParams, Page, PageQuery, Responses, Strict } from '../../schemas.ts';
import { pageRequest } from '../../lib/pagination.ts';
import { accountOf } from '../../plugins/auth.ts';
import * as admin from './admin.service.ts';
import { BackupStatus, StaffAccount, StaffService, RoleBody } from './admin.schemas.ts';

const tags = ['admin'];
const staffOnly = { auth: 'staff', limit: 'api' } as const;

function staffOf(request: FastifyRequest): admin.Staff {
  const account = accountOf(request);
  return { id: account.id, role: account.role };
}

export default async function adminRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;

  app.get(
    '/admin/accounts',
    {
      config: staffOnly,
      schema: {
        summary: 'All accounts',
        description: 'Staff: every account, paged, with role, two-factor and disabled state.',
        tags,
        querystring: Strict(PageQuery),
        response: Responses(Page(StaffAccount)),
      },
    },
    async (request) => ({
      success: true as const,
      data: await admin.listAccounts(ctx, { ...pageRequest(request.query), search: request.query.search }),
    }),
  );

  app.get(
    '/admin/services',
    {
      config: staffOnly,
      schema: {
        summary: 'All services',
        description: 'Staff: every service on the server with its owner, paged.',
        tags,
        querystring: Strict(PageQuery),
        response: Responses(Page(StaffService)),
      },
    },
    async (request) => ({
      success: true as const,
      data: await admin.listServices(ctx, { ...pageRequest(request.query), search: request.query.search }),
    }),
  );

  app.post(
    '/admin/accounts/:id/disable',
    {
      config: staffOnly,
      schema: {
        summary: 'Disable an account',
        description:
          'The account can no longer sign in or use its account key; its services keep answering clients. Nobody disables their own account; moderators act on user accounts only.',
        tags,
        params: IdParams,
        response: Responses(StaffAccount),
      },
    },
    async (request) => ({ success: true as const, data: await admin.setDisabled(ctx, staffOf(request), request.params.id, true) }),
  );

  app.post(
    '/admin/accounts/:id/enable',
    {
      config: staffOnly,
      schema: {
        summary: 'Enable an account',
        description: 'Lets a disabled account sign in and use its keys again.',
        tags,
        params: IdParams,
        response: Responses(StaffAccount),
      },
    },
    async (request) => ({ success: true as const, data: await admin.setDisabled(ctx, staffOf(request), request.params.id, false) }),
  );

  app.patch(
    '/admin/accounts/:id',
    {
      config: staffOnly,
      schema: {
        summary: "Change an account's role",
        description: 'Admins only: user, moderator or admin; nobody changes their own role.',
        tags,
        params: IdParams,
        body: RoleBody,
        response: Responses(StaffAccount),
      },
    },
    async (request) => ({ success: true as const, data: await admin.setRole(ctx, staffOf(request), request.params.id, request.body.role) }),
  );

  app.get(
    '/admin/backup',
    {
      config: staffOnly,
      schema: {
        summary: 'Backup status',
        description:
          'Admins only: the database kind, the last `keyward backup` (time, size, key count) or null, and `stale` when there is none or it is older than `staleAfterDays` (7).',
        tags,
        response: Responses(BackupStatus),
      },
    },
    async (request) => ({ success: true as const, data: await admin.backupStatus(ctx, staffOf(request)) }),
  );
}
