// Luarmor's API at {base_url}/luarmor (contract §16): a seller's bot, deploy action and panel keep working with a new
// base address and a Keyward key. Routes translate and call the same services as Keyward's own routes.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AppError } from '../../errors.ts';
import { serviceOf } from '../../plugins/auth.ts';
import { actorOf } from '../audit/actor.ts';
import { findAccountById } from '../accounts/accounts.service.ts';
import { countKeysForActor } from '../keys/keys.service.ts';
import { allScripts } from '../scripts/scripts.service.ts';
import { reachableServicesWithRole, roleMay, type ServiceAction, type ServiceRole, type ServiceRow } from '../services/services.service.ts';
import * as luarmor from './luarmor.service.ts';
import luarmorScriptRoutes from './luarmor-scripts.routes.ts';
import * as schemas from './luarmor.schemas.ts';
import { usersAnswer } from './users-answer.ts';
import { installLuarmorErrors, installLuarmorInput, seconds, USER_KEY_MISSING } from './luarmor.translate.ts';
import { HOUR_MS } from '../../lib/time.ts';

const tags = ['luarmor'];
const ok = (message: string, fields: Record<string, unknown> = {}) => ({ success: true, message, ...fields });

// Every route but the status and the unban: the key as Luarmor's clients send it, Keyward's API-key budget.
const read = { auth: 'luarmor', limit: 'api', action: 'keys.read' } as const;
const manage = { auth: 'luarmor', limit: 'api', permission: 'allowManageKeys' } as const;

export default async function luarmorRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;
  installLuarmorErrors(fastify);
  installLuarmorInput(fastify);

  /**
   * The services a principal of the key routes sees: a service key its own; an account key every one it owns or is a
   * member of whose role allows `action` (a reseller's key counts no one else's keys in the stats).
   */
  async function servicesOf(request: Parameters<typeof actorOf>[0], action: ServiceAction): Promise<ServiceRow[]> {
    return (await servicesWithRole(request, action)).map(({ service }) => service);
  }
  async function servicesWithRole(
    request: Parameters<typeof actorOf>[0],
    action: ServiceAction,
  ): Promise<{ service: ServiceRow; role: ServiceRole }[]> {
    const principal = request.principal!;
    if (principal.kind === 'service-key') return [{ service: principal.service, role: 'owner' }];
    if (principal.service) return [{ service: principal.service, role: principal.role ?? 'owner' }];
    return reachableServicesWithRole(ctx, principal.account.id, action);
  }

  app.get(
    '/status',
    {
      config: { limit: 'client' },
      schema: { summary: 'Luarmor: API status', description: "Luarmor's status answer, exactly; no key needed (contract §16.2).", tags },
    },
    async () => ({ version: 'v3', active: true, message: 'API is up and working!', warning: false, warning_message: 'No warning' }),
  );

  app.get(
    '/v3/keys/:api_key/details',
    {
      config: read,
      schema: {
        summary: "Luarmor: the key's account and projects",
        description:
          "The key in the path (as Luarmor's clients send it): its account and projects (services) with their scripts. A service key lists its own service only.",
        tags,
        params: schemas.ApiKeyParams,
      },
    },
    async (request) => {
      const principal = request.principal!;
      const account = principal.kind === 'service-key' ? await findAccountById(ctx.db, principal.accountId) : principal.account;
      const projects = [];
      for (const service of await servicesOf(request, 'keys.read')) {
        const scripts = await allScripts(ctx, service.id);
        projects.push({
          platform: 'roblox',
          // The identifier: the project id the dashboard and the docs give a seller, which deploy actions match on.
          id: service.identifier,
          name: service.name,
          settings: { reset_hwid_cooldown: service.hwidResetCooldownFreeHours },
          scripts: scripts.map((s) => ({
            script_name: s.name,
            script_id: s.id,
            script_version: String(s.currentVersion),
            ffa: s.ffa === 1,
            silent: s.silent === 1,
            heartbeat: s.heartbeat === 1,
            enabled: s.enabled === 1,
          })),
        });
      }
      return ok('Success!', {
        email: '',
        discord_id: '',
        expires_at: -1,
        registered_at: seconds(account?.createdAt ?? 0),
        plan: 'r',
        enabled: 1,
        projects,
      });
    },
  );

  app.get(
    '/v3/keys/:api_key/stats',
    {
      config: read,
      schema: {
        summary: "Luarmor: the last day's counts",
        description:
          '24 hourly execution counts (oldest first) and the counts of scripts, users (keys; absent with noUsers=true), obfuscated scripts and refused verdicts of the last day.',
        tags,
        params: schemas.ApiKeyParams,
        querystring: schemas.StatsQuery,
      },
    },
    async (request) => {
      const now = ctx.clock();
      const executions = new Array<number>(24).fill(0);
      let scripts = 0;
      let users = 0;
      let obfuscations = 0;
      let attacksBlocked = 0;
      // A reseller counts its own keys only, and sees no analytics of the service (contract §17, §27).
      for (const { service, role } of await servicesWithRole(request, 'keys.read')) {
        if (request.query.noUsers !== 'true') {
          const counted = await countKeysForActor(ctx.db, service.id, { ...actorOf(request), role });
          users += counted.active + counted.generated;
        }
        if (!roleMay(role, 'keys.insights')) continue;
        const series = await luarmor.lastDay(ctx, service.id, now);
        series.forEach((bucket, i) => {
          executions[i]! += bucket.executions;
          attacksBlocked += bucket.refused;
        });
        const rows = await allScripts(ctx, service.id);
        scripts += rows.length;
        obfuscations += rows.filter((s) => s.obfuscationType !== 'NONE').length;
      }
      return ok('Success!', {
        execution_data: { frequency: 3600, executions },
        stats: {
          scripts,
          ...(request.query.noUsers === 'true' ? {} : { users }),
          obfuscations,
          // Luarmor's plan defaults, which both SDKs require to parse the answer: Keyward's own counts stand in.
          default: { scripts, users, obfuscations },
          attacks_blocked: attacksBlocked,
          reset_at: seconds(Math.floor(now / HOUR_MS) * HOUR_MS + HOUR_MS),
        },
      });
    },
  );

  app.get(
    '/v3/projects/:project_id/users',
    {
      config: read,
      schema: {
        summary: 'Luarmor: list users',
        description:
          "The project's keys as Luarmor user records, oldest first, filtered by user_key, discord_id, identifier or search: every match, streamed, or the slice from/until (indexes, until exclusive).",
        tags,
        params: schemas.ProjectParams,
        querystring: schemas.UsersQuery,
      },
    },
    async (request, reply) => {
      const { from: fromText, until: untilText, ...filters } = request.query;
      const from = fromText === undefined ? 0 : Number(fromText);
      const until = untilText === undefined ? undefined : Number(untilText);
      if (until !== undefined && until < from) throw new AppError('VALIDATION_ERROR', `until must be ${from} (from) or more`);
      const users = luarmor.listUsers(ctx, serviceOf(request).id, { ...filters, from, until }, actorOf(request));
      return reply.type('application/json; charset=utf-8').send(usersAnswer(users));
    },
  );

  app.post(
    '/v3/projects/:project_id/users',
    {
      config: { ...manage, action: 'keys.generate' },
      schema: {
        summary: 'Luarmor: create a user (a key)',
        description:
          'A new key of 32 characters: bound to `identifier` when given, with discord_id, note and auth_expire (Unix s, -1 lifetime) or key_days (time from first use: redemption, or for a bound key its first validation). Needs allowManageKeys.',
        tags,
        params: schemas.ProjectParams,
        body: schemas.CreateUserBody,
      },
    },
    async (request) => {
      const userKey = await luarmor.createUser(ctx, serviceOf(request).id, request.body, actorOf(request));
      return ok('Success!', { user_key: userKey });
    },
  );

  app.post(
    '/v3/projects/:project_id/users/import',
    {
      config: { ...manage, action: 'keys.manage' },
      // 10,000 users of a few hundred bytes each; Keyward's own import takes the same 16 MB (contract §7.4).
      bodyLimit: 16 * 1024 * 1024,
      schema: {
        summary: "Luarmor: import users (the seller's own keys)",
        description:
          'Up to 10,000 users `{ user_key, identifier?, discord_id?, note?, auth_expire?, key_days? }`, each made as POST …/users makes one, in one transaction; keys the project already has are skipped. A bad entry is a 400 naming its index, and nothing is made. Needs allowManageKeys.',
        tags,
        params: schemas.ProjectParams,
        body: schemas.ImportUsersBody,
      },
    },
    async (request) => {
      const { imported, skipped } = await luarmor.importUsers(ctx, serviceOf(request), request.body.users, actorOf(request));
      return ok(`Imported ${imported} users`, { imported, skipped });
    },
  );

  app.patch(
    '/v3/projects/:project_id/users',
    {
      config: { ...manage, action: 'keys.support', actionOfBody: luarmor.editUserAction },
      schema: {
        summary: 'Luarmor: edit a user',
        description:
          'Changes identifier ("" unbinds; on a never-used key it binds it, its time kept), discord_id ("" unlinks), note and auth_expire of `user_key`, as PUT /keys/api/key does. Needs allowManageKeys.',
        tags,
        params: schemas.ProjectParams,
        body: schemas.EditUserBody,
      },
    },
    async (request) => {
      await luarmor.editUser(ctx, serviceOf(request).id, request.body, actorOf(request));
      return ok('User has been edited successfully!');
    },
  );

  const deleteConfig = { ...manage, action: 'keys.delete' } as const;
  app.delete(
    '/v3/projects/:project_id/users',
    {
      config: deleteConfig,
      schema: {
        summary: 'Luarmor: delete a user',
        description: 'Deletes the key `user_key` (query or path), as DELETE /keys/api/key does. Needs allowManageKeys.',
        tags,
        params: schemas.ProjectParams,
        querystring: schemas.UserKeyQuery,
      },
    },
    async (request) => {
      await luarmor.deleteUser(ctx, serviceOf(request).id, request.query.user_key, actorOf(request));
      return ok('User has been deleted!');
    },
  );
  app.delete(
    '/v3/projects/:project_id/users/:user_key',
    {
      config: deleteConfig,
      schema: {
        summary: 'Luarmor: delete a user',
        description: 'Deletes the key `user_key` (query or path), as DELETE /keys/api/key does. Needs allowManageKeys.',
        tags,
        params: schemas.UserParams,
      },
    },
    async (request) => {
      await luarmor.deleteUser(ctx, serviceOf(request).id, request.params.user_key, actorOf(request));
      return ok('User has been deleted!');
    },
  );

  app.post(
    '/v3/projects/:project_id/users/resethwid',
    {
      config: { ...manage, action: 'keys.support', luarmorKeyNotFound: USER_KEY_MISSING },
      schema: {
        summary: "Luarmor: reset a user's HWID",
        description:
          "Keyward's HWID reset with the key's cooldown; `force` skips the cooldown. A banned key is refused. Needs allowManageKeys.",
        tags,
        params: schemas.ProjectParams,
        body: schemas.ResetBody,
      },
    },
    async (request) => {
      const { user_key: key, force } = request.body;
      await luarmor.resetUserHwid(ctx, serviceOf(request), key, force === true, actorOf(request));
      return ok('Successfully reset!');
    },
  );

  app.post(
    '/v3/projects/:project_id/users/linkdiscord',
    {
      config: { ...manage, action: 'keys.support' },
      schema: {
        summary: 'Luarmor: link a Discord user',
        description: "Sets the key's Discord user; a key already linked needs `force`. Needs allowManageKeys.",
        tags,
        params: schemas.ProjectParams,
        body: schemas.LinkDiscordBody,
      },
    },
    async (request) => {
      const { user_key: key, discord_id: discordId, force } = request.body;
      await luarmor.linkDiscord(ctx, serviceOf(request).id, key, discordId, force === true, actorOf(request));
      return ok('Discord ID successfully linked!');
    },
  );

  app.post(
    '/v3/projects/:project_id/users/blacklist',
    {
      config: { ...manage, action: 'keys.support' },
      schema: {
        summary: 'Luarmor: blacklist a user',
        description:
          'Bans the key with ban_reason and ban_expire (contract §19) and blacklists its HWIDs alike; answers the unban_token that undoes it. Needs allowManageKeys.',
        tags,
        params: schemas.ProjectParams,
        body: schemas.BlacklistBody,
      },
    },
    async (request) => {
      const token = await luarmor.blacklistUser(ctx, serviceOf(request).id, request.body, actorOf(request));
      return ok('User has been blacklisted!', { unban_token: token });
    },
  );

  // Public, as Luarmor's unban link is: the client budget; an unknown token spends the failed-authentication budget.
  const unban = async (projectId: string, token: string, request: Parameters<typeof actorOf>[0]) => {
    await luarmor.unbanByToken(ctx, projectId, token, actorOf(request));
    return ok('User has been unbanned!');
  };
  const unbanSchema = {
    summary: 'Luarmor: unban by token',
    description:
      "Public, as Luarmor's unban link is: the key is active again and the blacklist entries its ban made are removed; the token works once.",
    tags,
    params: schemas.ProjectParams,
  };
  app.get(
    '/v3/projects/:project_id/users/unban',
    { config: { limit: 'client' }, schema: { ...unbanSchema, querystring: schemas.UnbanInput } },
    async (request) => unban(request.params.project_id, request.query.unban_token, request),
  );
  app.post(
    '/v3/projects/:project_id/users/unban',
    { config: { limit: 'client' }, schema: { ...unbanSchema, body: schemas.UnbanInput } },
    async (request) => unban(request.params.project_id, request.body.unban_token, request),
  );

  await luarmorScriptRoutes(fastify);
}
