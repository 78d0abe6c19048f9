import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { IdParams, Responses } from '../../schemas.ts';
import { accountIdOf, accountOf, serviceOf } from '../../plugins/auth.ts';
import { actorOf } from '../audit/actor.ts';
import * as schemas from './members.schemas.ts';
import * as members from './members.service.ts';
import { getServiceAccess, withRole } from './services.service.ts';
import { conflict } from '../../errors.ts';
import { RegisterBody } from '../auth/auth.schemas.ts';
import { setSessionCookie } from '../auth/auth.service.ts';
import { inviteInfo, registerByInvite } from './invite-door.service.ts';

const config = { auth: 'account', limit: 'api' } as const;
// Owner-only routes: membership and role are checked before the body is read (contract §17's order).
const ownerOnly = { ...config, serviceAction: 'service.own' } as const;
const tags = ['teams'];

/** Invites and members of a service (contract §17). The role table decides who may call each, via getServiceAccess. */
export default async function memberRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;
  const owned = async (request: { params: { id: string } } & Parameters<typeof accountIdOf>[0]) =>
    (await getServiceAccess(ctx, accountIdOf(request), request.params.id, 'service.own')).service;

  app.post(
    '/services/:id/invites',
    {
      config: ownerOnly,
      schema: {
        summary: 'Invite a member',
        description:
          'Owner only. `role` manager, support or reseller; `quota` ({ keysLeft, maxDays, allowLifetime, maxHwids, allowNoHwidValidation, allowPremium, maxSessions }) for a reseller only (without one it starts at 0 keys, 1 HWID per key, no premium, HWID check on, sessions its choice). The invite is single-use and lives 7 days; `url` is the link to send.',
        tags,
        params: IdParams,
        body: schemas.CreateInviteBody,
        response: Responses(schemas.Invite, 201),
      },
    },
    async (request, reply) => {
      const invite = await members.createInvite(ctx, await owned(request), request.body, actorOf(request));
      return reply.status(201).send({ success: true as const, data: invite });
    },
  );

  app.get(
    '/services/:id/invites',
    {
      config: ownerOnly,
      schema: {
        summary: 'Open invites',
        description: 'Owner only: the invites not yet used or expired.',
        tags,
        params: IdParams,
        response: Responses(schemas.InviteList),
      },
    },
    async (request) => ({ success: true as const, data: await members.listInvites(ctx, await owned(request)) }),
  );

  app.delete(
    '/services/:id/invites/:code',
    {
      config: ownerOnly,
      schema: {
        summary: 'Withdraw an invite',
        description: 'Owner only; 404 for an unknown code.',
        tags,
        params: schemas.InviteParams,
        response: Responses(schemas.Removed),
      },
    },
    async (request) => {
      await members.deleteInvite(ctx, await owned(request), request.params.code, actorOf(request));
      return { success: true as const, data: { removed: true } };
    },
  );

  app.post(
    '/invites/:code/accept',
    {
      config,
      schema: {
        summary: 'Accept an invite',
        description:
          'Makes the signed-in account (or the account key’s) a member with the invite’s role and quota. 404 for an unknown, expired or used code; 409 for your own service or one you already belong to.',
        tags,
        params: schemas.CodeParams,
        response: Responses(schemas.Accepted),
      },
    },
    async (request) => {
      const account = accountOf(request);
      const { service, role } = await members.acceptInvite(ctx, request.params.code, account, actorOf(request));
      return { success: true as const, data: { service: withRole(service, role) } };
    },
  );

  app.get(
    '/invites/:code',
    {
      config: { limit: 'api' },
      schema: {
        summary: 'What an invite offers',
        description:
          'No sign-in: the code is the credential. The service (id, name), the role, for a reseller its `quota` (keysLeft, maxDays, allowLifetime) and key `policy` (maxHwids, allowNoHwidValidation, allowPremium, maxSessions), who invited, and when the invite expires. 404 for an unknown, expired or used code.',
        tags,
        params: schemas.CodeParams,
        response: Responses(schemas.InviteInfo),
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return { success: true as const, data: await inviteInfo(ctx, request.params.code) };
    },
  );

  app.post(
    '/invites/:code/register',
    {
      config: { limit: 'login' },
      schema: {
        summary: 'Register through an invite',
        description:
          'Creates the account (username, password, and a solved captcha from GET /api/v1/auth/captcha), signs it in (sets the session cookie, as sign-in does) and accepts the invite, in one transaction; works even when REGISTRATION is closed. 404 for an unknown, expired or used code, and nothing is made; 409 for a taken username.',
        tags,
        params: schemas.CodeParams,
        body: RegisterBody,
        response: Responses(schemas.Registered, 201),
      },
    },
    async (request, reply) => {
      const { account, service, role, sessionToken } = await registerByInvite(ctx, request.params.code, request.body, request.ip);
      setSessionCookie(ctx, reply, sessionToken);
      return reply.status(201).send({ success: true as const, data: { account, service: withRole(service, role) } });
    },
  );

  app.get(
    '/services/:id/members',
    {
      config,
      schema: {
        summary: 'Members',
        description: 'Owner and managers: each member with its role, quota (resellers), keys created and redeemed, and when it joined.',
        tags,
        params: IdParams,
        response: Responses(schemas.MemberList),
      },
    },
    async (request) => {
      const { service } = await getServiceAccess(ctx, accountIdOf(request), request.params.id, 'service.configure');
      return { success: true as const, data: await members.listMembers(ctx, service) };
    },
  );

  app.delete(
    '/services/:id/members/me',
    {
      config,
      schema: {
        summary: 'Leave a service',
        description: 'A member leaves; the owner cannot (409).',
        tags,
        params: IdParams,
        response: Responses(schemas.Left),
      },
    },
    async (request) => {
      const access = await getServiceAccess(ctx, accountIdOf(request), request.params.id, 'keys.read');
      if (access.role === 'owner') throw conflict('The owner cannot leave its own service');
      await members.removeMember(ctx, access.service, accountIdOf(request), actorOf(request), true);
      return { success: true as const, data: { left: true } };
    },
  );

  app.patch(
    '/services/:id/members/:accountId',
    {
      config: ownerOnly,
      schema: {
        summary: 'Change a member',
        description: 'Owner only: a new `role` and/or `quota` (resellers only), effective on the member’s next request.',
        tags,
        params: schemas.MemberParams,
        body: schemas.UpdateMemberBody,
        response: Responses(schemas.Member),
      },
    },
    async (request) => {
      const service = await owned(request);
      await members.updateMember(ctx, service, request.params.accountId, request.body, actorOf(request));
      const [member] = (await members.listMembers(ctx, service)).items.filter((m) => m.accountId === request.params.accountId);
      return { success: true as const, data: member! };
    },
  );

  app.delete(
    '/services/:id/members/:accountId',
    {
      config: ownerOnly,
      schema: {
        summary: 'Remove a member',
        description: 'Owner only; the member is a stranger from its next request on.',
        tags,
        params: schemas.MemberParams,
        response: Responses(schemas.Removed),
      },
    },
    async (request) => {
      await members.removeMember(ctx, await owned(request), request.params.accountId, actorOf(request));
      return { success: true as const, data: { removed: true } };
    },
  );

  app.get(
    '/keys/api/reseller',
    {
      config: { auth: 'service', limit: 'api', action: 'keys.read' },
      schema: {
        summary: 'Your reseller quota',
        description:
          'For a reseller: keys left, the longest duration and whether lifetime keys are allowed, and the keys it created and that were redeemed. 404 for any other role.',
        tags,
        response: Responses(schemas.ResellerStatus),
      },
    },
    async (request) => ({ success: true as const, data: await members.resellerStatus(ctx, serviceOf(request).id, accountIdOf(request)) }),
  );
}
