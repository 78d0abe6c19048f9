// Luarmor's API at {base_url}/luarmor (contract §16): a seller's bot, deploy action and panel keep working with a new
// base address and a Keyward key. Routes translate and call the same services as Keyward's own routes.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AppError } from '../../errors.ts';
import { serviceOf } from '../../plugins/auth.ts';
import { actorOf } from '../audit/actor.ts';
import { findAccountById } from '../accounts/accounts.service.ts';
import { countKeysForActor } from '../keys/keys.service.ts';
import {
  allScripts,
  buyerSnippet,
  CODE_LIMIT_BYTES,
  createScript,
  findScript,
  loadstringFor,
  updateScript,
} from '../scripts/scripts.service.ts';
import { reachableServicesWithRole, roleMay, type ServiceAction, type ServiceRole, type ServiceRow } from '../services/services.service.ts';
import * as luarmor from './luarmor.service.ts';
import * as schemas from './luarmor.schemas.ts';
import { codeOf, installLuarmorErrors, scriptNameOf, seconds, USER_KEY_MISSING } from './luarmor.translate.ts';
import { HOUR_MS } from '../../lib/time.ts';

const tags = ['luarmor'];
const MAX_USERS_PER_CALL = 1000;
const ok = (message: string, fields: Record<string, unknown> = {}) => ({ success: true, message, ...fields });

// Every route but the status and the unban: the key as Luarmor's clients send it, Keyward's API-key budget.
const read = { auth: 'luarmor', limit: 'api', action: 'keys.read' } as const;
const manage = { auth: 'luarmor', limit: 'api', permission: 'allowManageKeys' } as const;
const vss = { auth: 'luarmor', limit: 'api', permission: 'allowVss', action: 'service.configure' } as const;

export default async function luarmorRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;
  installLuarmorErrors(fastify);

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
          id: service.id,
          name: service.name,
          settings: { reset_hwid_cooldown: service.hwidResetCooldownFreeHours },
          scripts: scripts.map((s) => ({
            script_name: s.name,
            script_id: s.id,
            script_version: String(s.currentVersion),
            ffa: s.ffa === 1,
            silent: s.silent === 1,
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
          "The project's keys as Luarmor user records, oldest first, filtered by user_key, discord_id, identifier or search; from/until (at most 1,000 apart) pick the slice.",
        tags,
        params: schemas.ProjectParams,
        querystring: schemas.UsersQuery,
      },
    },
    async (request) => {
      const { from: fromText, until: untilText, ...filters } = request.query;
      const from = fromText === undefined ? 0 : Number(fromText);
      const until = untilText === undefined ? from + MAX_USERS_PER_CALL : Number(untilText);
      if (until < from) throw new AppError('VALIDATION_ERROR', 'until must not be before from');
      if (until - from > MAX_USERS_PER_CALL)
        throw new AppError('VALIDATION_ERROR', `until may be at most ${MAX_USERS_PER_CALL} after from`);
      const users = await luarmor.listUsers(ctx, serviceOf(request).id, { ...filters, from, until });
      return ok('Success!', { users });
    },
  );

  app.post(
    '/v3/projects/:project_id/users',
    {
      config: { ...manage, action: 'keys.generate' },
      schema: {
        summary: 'Luarmor: create a user (a key)',
        description:
          'A new key of 32 characters: bound to `identifier` when given, with discord_id, note and auth_expire (Unix s, -1 lifetime) or key_days (time from redemption). Needs allowManageKeys.',
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

  app.patch(
    '/v3/projects/:project_id/users',
    {
      config: { ...manage, action: 'keys.support', actionOfBody: luarmor.editUserAction },
      schema: {
        summary: 'Luarmor: edit a user',
        description:
          'Changes identifier ("" unbinds), discord_id ("" unlinks), note and auth_expire of `user_key`, as PUT /keys/api/key does. Needs allowManageKeys.',
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

  // Scripts take the whole code in the body, as Keyward's upload does (40 MB; JSON escapes may double it on the wire).
  const bodyLimit = CODE_LIMIT_BYTES * 2;
  app.post(
    '/v3/projects/:project_id/scripts',
    {
      config: vss,
      bodyLimit,
      schema: {
        summary: 'Luarmor: create a script',
        description:
          "Uploads `script` under `name` with ffa, silent and heartbeat (contract §16.3, §18); answers the buyer's loader snippet. Needs allowVss.",
        tags,
        params: schemas.ProjectParams,
        body: schemas.CreateScriptBody,
      },
    },
    async (request) => {
      const { name, script, ffa, silent, heartbeat } = request.body;
      const view = await createScript(
        ctx,
        serviceOf(request).id,
        { name: scriptNameOf(name), code: codeOf(script), ffa, silent, heartbeat },
        actorOf(request),
      );
      return ok('Script created!', {
        script_id: view.id,
        script_name: view.name,
        loader_script: buyerSnippet(loadstringFor(ctx, view.id)),
        ffa: ffa === true,
        silent: silent === true,
        heartbeat: view.heartbeat,
      });
    },
  );

  app.put(
    '/v3/projects/:project_id/scripts/:script_id',
    {
      config: vss,
      bodyLimit,
      schema: {
        summary: 'Luarmor: update a script',
        description: 'New code (a new version, live at once) and the ffa/silent/heartbeat options of the script. Needs allowVss.',
        tags,
        params: schemas.ScriptParams,
        body: schemas.UpdateScriptBody,
      },
    },
    async (request) => {
      const { script, ffa, silent, heartbeat } = request.body;
      const serviceId = serviceOf(request).id;
      const view = await updateScript(
        ctx,
        serviceId,
        request.params.script_id,
        { code: script === undefined ? undefined : codeOf(script), ffa, silent, heartbeat },
        actorOf(request),
      );
      const row = await findScript(ctx.db, view.id);
      return ok('Script updated!', { script_version: String(row?.currentVersion ?? 1) });
    },
  );
}
